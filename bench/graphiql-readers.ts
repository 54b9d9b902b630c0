/**
 * `npm run bench:graphiql`: the gateway (`node dist/cli.js`, embedded sandbox, GraphiQL on) with
 * N clients that ask for the GraphiQL page and its 5 MB script and never read the answers.
 * Prints the gateway's RSS before and while they hang on, and how many downloads were refused
 * with 503 (at most 64 are sent at once). Figures for the report, not assertions.
 *
 *   npm run build && npm run bench:graphiql [-- --clients 150]
 */
import { execFileSync, spawn } from 'node:child_process';
import { connect, type Socket } from 'node:net';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const clientsArg = process.argv.indexOf('--clients');
const CLIENTS = clientsArg > 0 ? Number(process.argv[clientsArg + 1]) : 150;

const rssMiB = (pid: number) =>
  Number(execFileSync('ps', ['-o', 'rss=', '-p', String(pid)], { encoding: 'utf8' }).trim()) / 1024;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const child = spawn('node', ['dist/cli.js'], {
  cwd: ROOT,
  env: { ...process.env, PORT: '0', LOG_FORMAT: 'json', LOG_LEVEL: 'warn', GRAPHIQL: 'on' },
  stdio: ['ignore', 'pipe', 'inherit'],
  detached: true,
});
const pid = child.pid ?? -1;
try {
  const url = await new Promise<URL>((resolve) => {
    let text = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      text += chunk.toString('utf8');
      const match = /Gateway listening on (\S+)/.exec(text);
      if (match?.[1]) resolve(new URL(match[1]));
    });
  });
  const html = await (await fetch(url, { headers: { accept: 'text/html' } })).text();
  const script = /src="(\/graphiql\/[0-9a-f]+\/app\.js)"/.exec(html)?.[1] ?? '';
  await sleep(500);
  const before = rssMiB(pid);

  const statuses: string[] = [];
  const sockets: Socket[] = [];
  for (let i = 0; i < CLIENTS; i++) {
    for (const path of ['/graphql', script]) {
      const socket = connect(
        Number(url.port),
        url.hostname === 'localhost' ? '127.0.0.1' : url.hostname,
      );
      socket.once('data', (chunk: Buffer) => {
        statuses.push(chunk.toString('latin1').slice(9, 12));
        socket.pause(); // never read the rest
      });
      socket.write(`GET ${path} HTTP/1.1\r\nHost: ${url.host}\r\nAccept: text/html\r\n\r\n`);
      sockets.push(socket);
    }
  }
  await sleep(3_000);
  const during = rssMiB(pid);
  const count = (status: string) => statuses.filter((s) => s === status).length;
  console.log(`${CLIENTS} clients, each asking for the page and app.js and reading nothing`);
  console.log(
    `  gateway RSS before: ${before.toFixed(0)} MiB, while they hang on: ${during.toFixed(0)} MiB`,
  );
  console.log(
    `  answers: ${count('200')} x 200, ${count('503')} x 503 (busy), ${CLIENTS * 2 - statuses.length} without headers yet`,
  );
  for (const socket of sockets) socket.destroy();
} finally {
  process.kill(-pid, 'SIGTERM');
}
