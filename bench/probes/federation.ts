/**
 * Issue 21's figures: what `_entities` at `/subgraph` costs upstream, by how many
 * representations of one plan it resolves (cold, then warm), against the upstream calls a
 * subgraph that wraps the REST interface by hand pays (one `GET .../transactions/{id}` per
 * representation); and what the admission path does with 10,000 of them and a malformed one.
 *
 *   npx tsx bench/probes/federation.ts [--transactions 20000]
 *
 * Figures, not assertions: test/federation/ proves the counts; timings depend on the machine.
 */
import { parseArgs } from 'node:util';
import { codes, gql, ms, report, sandboxWith, startFront, userWith } from './kit.js';

const { values: flags } = parseArgs({
  options: { transactions: { type: 'string', default: '20000' } },
});
const TOKEN = 'federation-probe-token-0001';
const ENTITIES =
  'query ($representations: [_Any!]!) { _entities(representations: $representations) { ... on Transaction { id amount memo payeeName } } }';

const sandbox = await sandboxWith({ users: [userWith(TOKEN, Number(flags.transactions))] });
const planId = sandbox.users[0]!.planIds[0]!;
const exported = (await (
  await fetch(`${sandbox.url}/plans/${planId}`, { headers: { authorization: `Bearer ${TOKEN}` } })
).json()) as { data: { plan: { transactions: { id: string; deleted: boolean }[] } } };
const ids = exported.data.plan.transactions.filter((t) => !t.deleted).map((t) => t.id);
console.log(`federation probes, node ${process.version}, ${ids.length} transactions`);

for (const count of [1, 100, 1_000]) {
  const front = await startFront(sandbox.url);
  const subgraph = front.url.replace(/\/graphql$/, '/subgraph');
  const representations = ids
    .slice(0, count)
    .map((id) => ({ __typename: 'Transaction', planId, id }));
  const run = async () => {
    sandbox.resetCalls();
    const answer = await gql(subgraph, ENTITIES, TOKEN, {}, { representations });
    const found = (answer.json().data?._entities as unknown[] | undefined)?.length ?? 0;
    return { answer, found, calls: sandbox.calls().length };
  };
  const cold = await run();
  const warm = await run();
  report(`${count} representations of one plan`, {
    'upstream calls, cold / warm': `${cold.calls} / ${warm.calls}`,
    'by hand over REST (one GET per representation)': count,
    found: cold.found,
    'answer, cold / warm': `${ms(cold.answer.ms)} / ${ms(warm.answer.ms)}, ${cold.answer.bytes} bytes`,
  });
  await front.close();
}

const front = await startFront(sandbox.url);
const subgraph = front.url.replace(/\/graphql$/, '/subgraph');
sandbox.resetCalls();
const many = Array.from({ length: 10_000 }, () => ({ __typename: 'Plan', id: planId }));
const refused = await gql(
  subgraph,
  'query ($r: [_Any!]!) { _entities(representations: $r) { __typename } }',
  TOKEN,
  {},
  { r: many },
);
report('10,000 representations', {
  status: refused.status,
  code: codes(refused),
  cost: String(refused.json().errors?.[0]?.extensions?.value),
  'upstream calls': sandbox.calls().length,
  answer: `${ms(refused.ms)}, ${refused.bytes} bytes`,
});
sandbox.resetCalls();
const malformed = await gql(
  subgraph,
  ENTITIES,
  TOKEN,
  {},
  {
    representations: [
      { __typename: 'Transaction', planId, id: ids[0] },
      { __typename: 'Transaction', planId: 'nope', id: 'x' },
    ],
  },
);
report('a malformed representation beside a valid one', {
  code: codes(malformed),
  message: String(malformed.json().errors?.[0]?.message),
  'upstream calls': sandbox.calls().length,
});
await front.close();
await sandbox.close();
process.exit(0);
