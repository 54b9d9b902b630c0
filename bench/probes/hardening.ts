/**
 * Reproduces each attack of issue 8 against an in-process gateway (REST sandbox behind it, a
 * hostile upstream where the sandbox cannot misbehave enough) and prints what it cost: answer
 * bytes, CPU, upstream calls, heap growth, what a second tenant saw meanwhile.
 *
 *   npx tsx bench/probes/hardening.ts                 # every probe
 *   npx tsx bench/probes/hardening.ts --only 1,4,11   # some of them
 *   npx tsx bench/probes/hardening.ts --transactions 20000 --endless 2
 *
 * Figures, not assertions: the tests in `test/` prove the bounds; this measures them.
 */
import { randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';
import { startHostileUpstream } from '../../test/support/hostile-upstream.js';
import { startStack } from '../../test/support/stack.js';
import {
  codes,
  collectGarbage,
  cpu,
  gql,
  heapAfterGc,
  mb,
  ms,
  post,
  report,
  sandboxWith,
  sleep,
  startFront,
  userWith,
} from './kit.js';

const { values: flags } = parseArgs({
  options: {
    only: { type: 'string' },
    transactions: { type: 'string', default: '100000' },
    endless: { type: 'string', default: '4' },
  },
});
const ONLY = flags.only ? new Set(flags.only.split(',').map((s) => s.trim())) : null;
const LARGE_PLAN = Number(flags.transactions);
const ENDLESS = Number(flags.endless);

// ---------------------------------------------------------------------------------------------
// Probes

/** 1. Introspection: 30 aliases of a nested __schema selection, without a token. */
async function introspection(): Promise<void> {
  const sandbox = await sandboxWith({ users: [userWith('intro-token-000001')] });
  const front = await startFront(sandbox.url);
  try {
    const nested =
      '__schema { types { kind name description fields { name description isDeprecated deprecationReason args { name description defaultValue type { kind name ofType { kind name ofType { kind name ofType { kind name } } } } } type { kind name ofType { kind name ofType { kind name ofType { kind name } } } } } inputFields { name description defaultValue type { kind name ofType { kind name ofType { kind name } } } } enumValues { name description isDeprecated } interfaces { name } possibleTypes { name } } }';
    const query = `{ ${Array.from({ length: 30 }, (_, i) => `a${i}: ${nested}`).join(' ')} }`;
    const batch = JSON.stringify(Array.from({ length: 5 }, () => ({ query })));
    const { result, cpuMs } = await cpu(() => post(front.url, batch));
    const full = await gql(front.url, (await import('graphql')).getIntrospectionQuery(), null);
    report(
      '1 introspection (no token, a batch of 5 operations x 30 aliases of a nested __schema)',
      {
        status: result.status,
        'answer bytes': result.bytes,
        'CPU (process)': ms(cpuMs),
        codes: codes(result),
        'standard introspection query (GraphiQL)': `${full.status}, ${full.bytes} bytes, codes ${codes(full)}`,
      },
    );
    const off = await startFront(sandbox.url, { introspection: false });
    try {
      const refused = await gql(off.url, '{ __schema { queryType { name } } }', null);
      report('1 introspection off', {
        status: refused.status,
        codes: codes(refused),
        'answer bytes': refused.bytes,
      });
    } finally {
      await off.close();
    }
  } finally {
    await front.close();
    await sandbox.close();
  }
}

/** 3. Hybrid connections on a large plan: 30 aliases of a category's page, a second tenant meanwhile. */
async function hybridPages(): Promise<void> {
  const sandbox = await sandboxWith({
    users: [userWith('hybrid-attacker-0001', LARGE_PLAN), userWith('hybrid-bystander-001', 200)],
  });
  const front = await startFront(sandbox.url);
  try {
    const attacker = 'hybrid-attacker-0001';
    const bystander = 'hybrid-bystander-001';
    const planId = sandbox.users[0]!.planIds[0]!;
    const cold = await gql(front.url, `{ plan(id: "${planId}") { name } }`, attacker);
    // The busiest category, from the REST list (not measured).
    const listing = (await (
      await fetch(`${sandbox.url}/plans/${planId}/transactions`, {
        headers: { authorization: `Bearer ${attacker}` },
      })
    ).json()) as { data: { transactions: { category_id: string | null }[] } };
    const counts = new Map<string, number>();
    for (const t of listing.data.transactions)
      if (t.category_id) counts.set(t.category_id, (counts.get(t.category_id) ?? 0) + 1);
    const [busiest, rows] = [...counts].sort((a, b) => b[1] - a[1])[0]!;
    const bystanderQuery = '{ plan(id: "last-used") { name accounts { name balance } } }';
    await gql(front.url, bystanderQuery, bystander);
    const quiet: number[] = [];
    for (let i = 0; i < 5; i++) quiet.push((await gql(front.url, bystanderQuery, bystander)).ms);

    const attack = async (query: string, label: string) => {
      let during = 0;
      const { result, cpuMs } = await cpu(async () => {
        const pending = gql(front.url, query, attacker);
        await sleep(5);
        during = (await gql(front.url, bystanderQuery, bystander)).ms;
        return pending;
      });
      report(`3 ${label}`, {
        status: result.status,
        'answer bytes': result.bytes,
        'CPU (process)': ms(cpuMs),
        codes: codes(result),
        "bystander's warm query, quiet (median of 5)": ms(quiet.sort((a, b) => a - b)[2]!),
        "bystander's warm query during the attack": ms(during),
      });
    };
    const page = `category(id: "${busiest}") { transactions(first: 1) { edges { cursor node { id amount } } } }`;
    console.log(
      `\n(large plan: ${LARGE_PLAN} transactions, cold load ${ms(cold.ms)}; busiest category ${rows} transactions)`,
    );
    await attack(
      `{ plan(id: "${planId}") { ${Array.from({ length: 30 }, (_, i) => `a${i}: ${page}`).join(' ')} } }`,
      '30 aliases of category.transactions(first: 1)',
    );
    const counted = 'categories { transactions(first: 0) { totalCount } }';
    await attack(
      `{ plan(id: "${planId}") { ${Array.from({ length: 30 }, (_, i) => `a${i}: ${counted}`).join(' ')} } }`,
      '30 aliases of categories { transactions(first: 0) { totalCount } }',
    );
    await attack(
      `{ plan(id: "${planId}") { ${Array.from({ length: 9 }, (_, i) => `a${i}: ${counted}`).join(' ')} } }`,
      '9 aliases of categories { transactions(first: 0) { totalCount } } (what the cost limit lets through)',
    );
  } finally {
    await front.close();
    await sandbox.close();
  }
}

/** 4. Junk tokens fanning out, and /ready probes. */
async function junkTokens(): Promise<void> {
  const sandbox = await sandboxWith({ users: [userWith('junk-real-token-0001')] });
  const front = await startFront(sandbox.url);
  try {
    const aliases = (n: number) =>
      `{ ${Array.from({ length: n }, (_, i) => `p${i}: plan(id: "${randomUUID()}") { name }`).join(' ')} }`;
    sandbox.resetCalls();
    const batch = await post(
      front.url,
      JSON.stringify(Array.from({ length: 5 }, () => ({ query: aliases(30) }))),
      { authorization: 'Bearer junk-token-aaaaaaaaaaaa' },
    );
    const batchCalls = sandbox.calls().length;

    sandbox.resetCalls();
    for (let i = 0; i < 10; i++) {
      await Promise.all(
        Array.from({ length: 10 }, () =>
          gql(
            front.url,
            '{ user { id } plans { id } plan(id: "last-used") { name } }',
            'junk-token-bbbbbbbbbbbb',
          ),
        ),
      );
    }
    const sameTokenCalls = sandbox.calls().length;

    sandbox.resetCalls();
    for (let i = 0; i < 10; i++) {
      await Promise.all(
        Array.from({ length: 10 }, () =>
          gql(
            front.url,
            '{ user { id } plans { id } plan(id: "last-used") { name } }',
            `junk-${randomUUID()}`,
          ),
        ),
      );
    }
    const distinctTokenCalls = sandbox.calls().length;

    sandbox.resetCalls();
    const readyUrl = front.url.replace('/graphql', '/ready');
    await Promise.all(Array.from({ length: 50 }, () => fetch(readyUrl).then((r) => r.text())));
    const readyCalls = sandbox.calls().length;

    report('4 junk tokens', {
      '1 request, 5 operations x 30 aliases of random plan ids: upstream calls': batchCalls,
      'its codes': codes(batch),
      '100 requests, one junk token (user, plans, plan each): upstream calls': sameTokenCalls,
      '100 requests, 100 distinct junk tokens: upstream calls': distinctTokenCalls,
      '50 concurrent /ready probes: upstream calls': readyCalls,
    });
  } finally {
    await front.close();
    await sandbox.close();
  }
}

/** 5. One tenant's reads hang upstream: what another tenant's cold read and write wait. */
async function fairPool(): Promise<void> {
  const attacker = 'pool-attacker-000001';
  const bystander = 'pool-bystander-00001';
  const timeouts = { headersTimeoutMs: 4_000, bodyTimeoutMs: 4_000 };
  const front = await startStack({
    hostile: true,
    sandbox: { rateLimit: false, users: [userWith(attacker), userWith(bystander)] },
    config: { operationDeadlineMs: 2_000 },
    deps: { upstreamTimeouts: timeouts },
  });
  const { hostile } = front;
  try {
    await gql(front.url, '{ user { id } }', attacker); // the attacker's token is known good
    hostile.setRule((r) =>
      r.token === attacker && r.operationId === 'getPlanById' ? { kind: 'hang' } : { kind: 'pass' },
    );
    const started = performance.now();
    const attacks = Array.from({ length: 20 }, () =>
      gql(front.url, `{ plan(id: "${randomUUID()}") { name } }`, attacker),
    );
    await sleep(200);
    const read = await gql(front.url, '{ plan(id: "last-used") { name } }', bystander);
    const write = await gql(
      front.url,
      'mutation { createPayee(planId: "last-used", input: { name: "Pool probe" }) { __typename } }',
      bystander,
    );
    const first = await attacks[0]!;
    const done = await Promise.all(attacks);
    report('5 one tenant hung upstream (20 reads of random plans; upstream timeouts 4 s)', {
      "bystander's cold read": `${ms(read.ms)} (${codes(read)})`,
      "bystander's write": `${ms(write.ms)} (${codes(write)})`,
      "attacker's first read answered after": `${ms(first.ms)} (${codes(first)})`,
      "attacker's 20 reads all answered after": ms(performance.now() - started),
      "attacker's codes": [...new Set(done.map(codes))].join(' '),
    });
  } finally {
    await front.close();
  }
}

/** 6. A revoked token and `Cache-Control: max-age=86400`. */
async function revokedToken(): Promise<void> {
  const token = 'revoked-token-000001';
  let offset = 0;
  const front = await startStack({
    hostile: true,
    sandbox: { rateLimit: false, users: [userWith(token)] },
    deps: { now: () => Date.now() + offset },
  });
  const { hostile } = front;
  try {
    const query = '{ user { id } plan(id: "last-used") { name accounts { balance } } }';
    await gql(front.url, query, token);
    hostile.setRule((r) =>
      r.token === token
        ? {
            kind: 'reply',
            status: 401,
            body: { error: { id: '401', name: 'unauthorized', detail: 'revoked' } },
          }
        : { kind: 'pass' },
    );
    offset += 60_000;
    hostile.resetCalls();
    const longAge = await gql(front.url, query, token, { 'cache-control': 'max-age=86400' });
    const served = longAge.json().data?.plan != null;
    const plain = await gql(front.url, '{ plan(id: "last-used") { name } }', token);
    const userAfter = await gql(front.url, '{ user { id } }', token, {
      'cache-control': 'max-age=86400',
    });
    report('6 revoked token (upstream now answers 401; 60 s later)', {
      'max-age=86400 read served data': served,
      'its upstream calls': hostile.calls().length,
      'plain read after': codes(plain),
      'user with max-age=86400 after the 401 served data': userAfter.json().data?.user != null,
      'replicas held for the token after the 401': front.gateway.replicas.stats().replicas,
    });
  } finally {
    await front.close();
  }
}

/** 7. One answer with an inflated server_knowledge. */
async function inflatedKnowledge(): Promise<void> {
  const token = 'inflated-token-00001';
  const front = await startStack({
    hostile: true,
    sandbox: { rateLimit: false, users: [userWith(token)] },
  });
  const { sandbox, hostile } = front;
  try {
    const planId = sandbox.users[0]!.planIds[0]!;
    let inflate = 1;
    hostile.setRule((r) =>
      r.operationId === 'getPlanById' && inflate-- > 0
        ? {
            kind: 'rewrite',
            rewrite: (body) => {
              const b = body as { data: { server_knowledge: number } };
              b.data.server_knowledge += 1000;
              return b;
            },
          }
        : { kind: 'pass' },
    );
    const query = `{ plan(id: "${planId}") { serverKnowledge transactions(first: 3) { nodes { memo } } } }`;
    await gql(front.url, query, token);
    const accounts = (await (
      await fetch(`${sandbox.url}/plans/${planId}/accounts`, {
        headers: { authorization: `Bearer ${token}` },
      })
    ).json()) as { data: { accounts: { id: string; closed: boolean }[] } };
    const account = accounts.data.accounts.find((a) => !a.closed)!;
    const memo = `outside-${Date.now()}`;
    await fetch(`${sandbox.url}/plans/${planId}/transactions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        transaction: {
          account_id: account.id,
          date: new Date().toISOString().slice(0, 10),
          amount: -1000,
          memo,
        },
      }),
    });
    const seen: string[] = [];
    for (let i = 0; i < 3; i++) {
      const answer = await gql(front.url, query, token, { 'cache-control': 'no-cache' });
      seen.push(
        `${answer.text.includes(memo) ? 'sees the write' : 'old data'}${answer.json().extensions?.stale ? ' (stale flag)' : ''}`,
      );
    }
    report('7 inflated server_knowledge (+1000 once), then an outside write', {
      'three no-cache reads': seen.join(' / '),
    });
  } finally {
    await front.close();
  }
}

/** 8. A write through `last-used` after another client moved it. */
async function aliasWrite(): Promise<void> {
  const token = 'alias-token-00000001';
  const sandbox = await sandboxWith({ users: [userWith(token, 100, 2)] });
  const front = await startFront(sandbox.url);
  try {
    const [first, second] = sandbox.users[0]!.planIds as [string, string];
    await gql(front.url, '{ plan(id: "last-used") { id payees { name } } }', token);
    await fetch(`${sandbox.url}/plans/${second}`, {
      headers: { authorization: `Bearer ${token}` },
    });
    const name = `Phantom ${Date.now()}`;
    await gql(
      front.url,
      `mutation { createPayee(planId: "last-used", input: { name: "${name}" }) { __typename } }`,
      token,
    );
    const payees = async (planId: string) =>
      (
        await gql(front.url, `{ plan(id: "${planId}") { payees { name } } }`, token, {
          'cache-control': 'no-cache',
        })
      ).text.includes(name);
    report('8 createPayee through last-used after another client moved it', {
      'payee shown in the first plan (wrong, phantom)': await payees(first),
      'payee shown in the second plan (where upstream wrote it)': await payees(second),
    });
  } finally {
    await front.close();
    await sandbox.close();
  }
}

/** 10. An invalid JSON body. */
async function invalidJson(): Promise<void> {
  const sandbox = await sandboxWith({ users: [userWith('json-token-00000001')] });
  const front = await startFront(sandbox.url);
  try {
    const secret = 'SECRET-TOKEN-abcdef0123456789';
    const body = `{"query":"{ user { id } }","variables":{"x":"${secret}${'a'.repeat(900_000)}"`;
    const answer = await post(front.url, body, {});
    report('10 invalid JSON body of 900 KB with a secret inside', {
      status: answer.status,
      'answer bytes': answer.bytes,
      'secret echoed': answer.text.includes(secret),
    });
  } finally {
    await front.close();
    await sandbox.close();
  }
}

/** 11. The REST cache flooded by many tokens, and endless upstream bodies. */
async function memoryBounds(): Promise<void> {
  const hostile = await startHostileUpstream();
  const plans = Array.from({ length: 300 }, (_, i) => ({
    id: randomUUID(),
    name: `Plan ${i} ${'x'.repeat(300)}`,
    last_modified_on: null,
    first_month: null,
    last_month: null,
    date_format: null,
    currency_format: null,
  }));
  hostile.setRule((r) => {
    if (r.operationId === 'getUser')
      return { kind: 'reply', status: 200, body: { data: { user: { id: randomUUID() } } } };
    if (r.operationId === 'getPlans')
      return { kind: 'reply', status: 200, body: { data: { plans, default_plan: null } } };
    return {
      kind: 'reply',
      status: 404,
      body: { error: { id: '404.1', name: 'not_found', detail: '' } },
    };
  });
  const front = await startFront(hostile.url, { replicaMaxBytes: 1024 * 1024 });
  try {
    const answerBytes = Buffer.byteLength(JSON.stringify({ data: { plans } }));
    await gql(front.url, '{ plans { id } }', 'warm-up-token-000000');
    const before = heapAfterGc();
    for (let i = 0; i < 60; i++) {
      await Promise.all(
        Array.from({ length: 10 }, (_, j) =>
          gql(front.url, '{ plans { id name } }', `flood-${i}-${j}-${randomUUID()}`),
        ),
      );
    }
    const after = heapAfterGc();
    report('11 REST cache: 600 tokens each reading a plan list', {
      'upstream answer bytes each': answerBytes,
      'heap growth after GC': mb(after - before),
    });

    for (const [operationId, query] of [
      ['getUser', '{ user { id } }'],
      ['getPlanById', '{ plan(id: "last-used") { name } }'],
    ] as const) {
      hostile.setRule((r) =>
        r.operationId === operationId
          ? { kind: 'endless' }
          : { kind: 'reply', status: 200, body: { data: { user: { id: randomUUID() } } } },
      );
      // Heap and buffers, not RSS: RSS stays high after an earlier peak and would hide this one.
      const used = () => {
        const m = process.memoryUsage();
        return m.heapUsed + m.arrayBuffers;
      };
      collectGarbage();
      const base = used();
      let peak = base;
      const sampler = setInterval(() => {
        peak = Math.max(peak, used());
      }, 10);
      const started = performance.now();
      const answers = await Promise.all(
        Array.from({ length: ENDLESS }, (_, i) =>
          gql(front.url, query, `endless-${operationId}-${i}-${randomUUID()}`),
        ),
      );
      clearInterval(sampler);
      report(`11 ${ENDLESS} concurrent endless upstream bodies (${operationId})`, {
        'peak heap + buffers growth': mb(peak - base),
        'answered after': ms(performance.now() - started),
        codes: [...new Set(answers.map(codes))].join(' '),
      });
    }
  } finally {
    await hostile.close();
    await front.close();
  }
}

/** 12. Bad ids and tokens, and a wrongly typed amount from upstream. */
async function badInput(): Promise<void> {
  const token = 'input-token-00000001';
  const front = await startStack({
    hostile: true,
    sandbox: { rateLimit: false, users: [userWith(token)] },
  });
  const { sandbox, hostile } = front;
  try {
    const planId = sandbox.users[0]!.planIds[0]!;
    const del = (id: string) =>
      gql(
        front.url,
        'mutation($plan: PlanId!, $id: ID!) { deleteTransaction(planId: $plan, transactionId: $id) { __typename } }',
        token,
        {},
        { plan: planId, id },
      );
    const figures: Record<string, string> = {};
    for (const [label, id] of [
      ['"."', '.'],
      ['".."', '..'],
      ['NUL', '\u0000'],
      ['500 KB id', 'x'.repeat(500_000)],
    ] as const) {
      hostile.resetCalls();
      const answer = await del(id);
      figures[`deleteTransaction(transactionId: ${label})`] =
        `${codes(answer)}, ${hostile.calls().length} upstream calls, ${answer.bytes} bytes`;
    }
    hostile.resetCalls();
    const nonAscii = await post(
      `${front.url}?access_token=${encodeURIComponent('tøken-ünïcode')}`,
      JSON.stringify({ query: '{ user { id } }' }),
    );
    figures['non-ASCII token'] = `${codes(nonAscii)}, ${hostile.calls().length} upstream calls`;

    // A delta whose first transaction has a string amount.
    const query = `{ plan(id: "${planId}") { transactions(first: 5) { nodes { id amount } } } }`;
    await gql(front.url, query, token);
    const accounts = (await (
      await fetch(`${sandbox.url}/plans/${planId}/accounts`, {
        headers: { authorization: `Bearer ${token}` },
      })
    ).json()) as { data: { accounts: { id: string; closed: boolean }[] } };
    await fetch(`${sandbox.url}/plans/${planId}/transactions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        transaction: {
          account_id: accounts.data.accounts.find((a) => !a.closed)!.id,
          date: new Date().toISOString().slice(0, 10),
          amount: -2500,
        },
      }),
    });
    hostile.setRule((r) =>
      r.operationId === 'getPlanById'
        ? {
            kind: 'rewrite',
            rewrite: (body) => {
              const b = body as { data: { plan: { transactions: { amount: unknown }[] } } };
              for (const t of b.data.plan.transactions) t.amount = '-2.5';
              return b;
            },
          }
        : { kind: 'pass' },
    );
    const during = await gql(front.url, query, token, { 'cache-control': 'no-cache' });
    hostile.setRule(() => ({ kind: 'pass' }));
    const afterFault = await gql(front.url, query, token);
    figures['read while upstream sends a string amount'] =
      `${codes(during)}${during.json().extensions?.stale ? ' (stale flag)' : ''}`;
    figures['next read within max-age, fault gone'] = codes(afterFault);
    report('12 bad input and wrongly typed upstream answers', figures);
  } finally {
    await front.close();
  }
}

/** 14. 25 concurrent hung syncs. */
async function hungSyncs(): Promise<void> {
  const hostile = await startHostileUpstream();
  hostile.setRule((r) =>
    r.operationId === 'getUser'
      ? { kind: 'reply', status: 200, body: { data: { user: { id: randomUUID() } } } }
      : { kind: 'hang' },
  );
  const front = await startFront(
    hostile.url,
    { operationDeadlineMs: 1_500 },
    { upstreamTimeouts: { headersTimeoutMs: 3_000, bodyTimeoutMs: 3_000 } },
  );
  const warnings: string[] = [];
  const onWarning = (warning: Error) => warnings.push(warning.name);
  process.on('warning', onWarning);
  try {
    const tokens = Array.from({ length: 25 }, (_, i) => `hung-${i}-${randomUUID()}`);
    await Promise.all(tokens.map((t) => gql(front.url, '{ user { id } }', t)));
    const reads = tokens.map((t) =>
      gql(front.url, '{ plan(id: "last-used") { name } }', t).catch(() => null),
    );
    await sleep(1_000);
    await hostile.close();
    await Promise.all(reads);
    await sleep(50);
    report('14 25 concurrent hung syncs', {
      MaxListenersExceededWarning: warnings.filter((w) => w === 'MaxListenersExceededWarning')
        .length,
    });
  } finally {
    process.off('warning', onWarning);
    await front.close();
  }
}

const PROBES: Record<string, () => Promise<void>> = {
  '1': introspection,
  '3': hybridPages,
  '4': junkTokens,
  '5': fairPool,
  '6': revokedToken,
  '7': inflatedKnowledge,
  '8': aliasWrite,
  '10': invalidJson,
  '11': memoryBounds,
  '12': badInput,
  '14': hungSyncs,
};

console.log(`hardening probes, node ${process.version}, ${new Date().toISOString()}`);
for (const [item, probe] of Object.entries(PROBES)) {
  if (ONLY && !ONLY.has(item)) continue;
  try {
    await probe();
  } catch (error) {
    console.log(`\n[item ${item}] probe failed: ${error instanceof Error ? error.stack : error}`);
  }
}
process.exit(0);
