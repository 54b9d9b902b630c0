import type { GraphQLSchema } from 'graphql';
import { builder } from './builder.js';
import './scalars.js';
import './node.js';
import './plan.js';
import './account/index.js';
import './category/index.js';
import './payee/index.js';
import './month.js';
import './money-movement.js';
import './transaction/index.js';
import './scheduled-transaction/index.js';
import './user.js';
import './subscriptions.js';
import './sync.js';
import './webhooks.js';
import './entities.js';
import { buildSubgraphSchema } from './subgraph.js';

// What code outside this folder uses of the schema's modules, besides `context`, `cost` and
// `input-checks`, which add nothing to the builder. The graph's fields are in the order their
// modules are first loaded, so those modules are loaded only from here, in the order above
// (rule `schema-loads-through-its-index` in .dependency-cruiser.cjs).
export { ENTITY_KEYS } from './entities.js';
export { transactionsView } from './subscriptions.js';

builder.queryType({
  description:
    'Reads: the user, the plans and everything in them, the rate limit, any object by id.',
});
builder.mutationType({
  description:
    'One mutation per REST write. Each answers with a payload of the saved objects, or a typed ' +
    'error (`... on Error { message }`).',
});
builder.subscriptionType({
  description: "Live updates: a plan's changes as graph objects, pushed over SSE or WebSocket.",
});

export const schema = builder.toSchema({ sortSchema: false });

let subgraph: GraphQLSchema | undefined;

/**
 * The same graph as a Federation v2 subgraph (`_service`, `_entities`), served at `/subgraph`.
 * Built on first use, once: it takes as long again as the graph (a second build, sorted and
 * printed), which a gateway without the subgraph endpoint never pays, nor anyone at start-up.
 */
export function subgraphSchema(): GraphQLSchema {
  subgraph ??= buildSubgraphSchema();
  return subgraph;
}
