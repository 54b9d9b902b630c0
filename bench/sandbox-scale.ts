/**
 * Probe: the sandbox at a size, measured from outside. Starts `packages/sandbox/src/cli.ts` as one node
 * process (its own process group), waits for it to listen, then downloads the big answers (plan
 * export, its delta from knowledge 0, the transaction list) without keeping them, and reports
 * seeding time, bytes, download times, a card purchase's round trip and the sandbox's peak RSS
 * (`VmHWM`, Linux). Nothing here is a test: the figures depend on the machine.
 *
 *   npx tsx bench/sandbox-scale.ts [--transactions 1000000]
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const TOKEN = 'sandbox-demo-token';
const WRITES = 25;
const WARM_UP = 5;

const { values } = parseArgs({
  options: { transactions: { type: 'string', default: '1000000' } },
});
const transactions = Number(values.transactions);

function peakRssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? Number.NaN);
  return Math.round(kb / 1024);
}

/** Downloads `url`, counting bytes and chunks; checks the JSON ends the way a `data` wrapper does. */
function download(url: string): Promise<{ status: number; bytes: number; seconds: number }> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const req = request(url, { headers: { authorization: `Bearer ${TOKEN}` } }, (res) => {
      let bytes = 0;
      let tail = '';
      res.on('data', (chunk: Buffer) => {
        bytes += chunk.length;
        tail = (tail + chunk.toString('utf8', Math.max(0, chunk.length - 64))).slice(-64);
      });
      res.on('end', () => {
        if (res.statusCode === 200 && !/"server_knowledge":\d+\}\}$/.test(tail))
          reject(new Error(`${url}: the answer ends with ${JSON.stringify(tail)}`));
        resolve({
          status: res.statusCode ?? 0,
          bytes,
          seconds: (performance.now() - started) / 1000,
        });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

async function main(): Promise<void> {
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      'packages/sandbox/src/cli.ts',
      '--port',
      '0',
      '--rate-limit',
      'off',
      '--transactions',
      String(transactions),
    ],
    { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'], detached: true },
  );
  const pid = child.pid ?? 0;
  const stop = () => {
    try {
      process.kill(-pid, 'SIGKILL');
    } catch {
      // already gone
    }
  };
  process.on('exit', stop);
  const started = performance.now();
  let out = '';
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const match = /listening on (http:\/\/\S+\/v1)/.exec(out);
      if (match?.[1] !== undefined && /seeded in/.test(out)) resolve(match[1]);
    });
    child.on('exit', (code) => reject(new Error(`the sandbox exited with ${String(code)}`)));
  });
  const figures: Record<string, unknown> = {
    transactions,
    seededSeconds: Number(/seeded in ([\d.]+) s/.exec(out)?.[1] ?? Number.NaN),
    readySeconds: Number(((performance.now() - started) / 1000).toFixed(1)),
    rssAfterSeedMb: peakRssMb(pid),
  };
  const plan = `${url}/plans/last-used`;
  for (const [name, target] of [
    ['export', plan],
    ['deltaFrom0', `${plan}?last_knowledge_of_server=0`],
    ['transactionList', `${plan}/transactions?since_date=2000-01-01`],
  ] as const) {
    const result = await download(target);
    figures[name] = {
      status: result.status,
      megabytes: Number((result.bytes / 1e6).toFixed(1)),
      seconds: Number(result.seconds.toFixed(1)),
    };
  }
  const headers = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' };
  const accounts = (await (await fetch(`${plan}/accounts`, { headers })).json()) as {
    data: { accounts: { id: string; type: string }[] };
  };
  const card = accounts.data.accounts.find((account) => account.type === 'creditCard');
  const groups = (await (await fetch(`${plan}/categories`, { headers })).json()) as {
    data: { category_groups: { internal: boolean; name: string; categories: { id: string }[] }[] };
  };
  const category = groups.data.category_groups.find(
    (group) => !group.internal && !/credit card/i.test(group.name),
  )?.categories[0]?.id;
  // Card spending touches the card, its category and its payment category: the write path the
  // card rules lengthen. The first writes warm the code up; the figure is the median of the rest.
  const times: number[] = [];
  for (let n = 0; n < WRITES; n++) {
    const writeStarted = performance.now();
    const write = await fetch(`${plan}/transactions`, {
      method: 'POST',
      headers,
      body: JSON.stringify({
        transaction: {
          account_id: card?.id,
          date: new Date().toISOString().slice(0, 10),
          amount: -12_340 - n * 10,
          payee_name: 'Probe',
          category_id: category,
        },
      }),
    });
    await write.arrayBuffer();
    if (write.status !== 201) throw new Error(`card write answered ${write.status}`);
    times.push(performance.now() - writeStarted);
  }
  const measured = times.slice(WARM_UP).sort((a, b) => a - b);
  figures.cardWriteMs = {
    median: Number((measured[measured.length >> 1] ?? 0).toFixed(1)),
    max: Number((measured.at(-1) ?? 0).toFixed(1)),
  };
  figures.peakRssMb = peakRssMb(pid);
  process.stdout.write(`${JSON.stringify(figures, null, 2)}\n`);
  stop();
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
});
