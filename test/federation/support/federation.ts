/**
 * A federated stack for the router suites: the sandbox and a gateway (`startStack`), the notes
 * subgraph with a note on each of the plan's newest transactions, both composed into a supergraph
 * and served by a real router (Hive Gateway's runtime), all on loopback.
 */
import { printSubgraphSchema } from '@apollo/subgraph';
import type { Plugin } from 'graphql-yoga';
import { subgraphSchema } from '../../../src/schema/index.js';
import type { ServedGateway, Stack } from '../../support/stack.js';
import { NOTES_SDL, type Note, type NotesSubgraph, startNotesSubgraph } from './notes-subgraph.js';
import { type Composer, compose, type Router, startRouter } from './router.js';
import { subgraphUrl } from './subgraph.js';

/** The subgraph SDL a router composes: what `/subgraph` answers `_service { sdl }` with. */
export const PLANS_SDL = printSubgraphSchema(subgraphSchema());

interface TransactionRow {
  readonly id: string;
  readonly account_id: string;
  readonly date: string;
  readonly deleted: boolean;
}

/** A note on each of the `count` newest transactions of the stack's plan, read straight from REST. */
export async function notesOnNewest(stack: Stack, count: number): Promise<Note[]> {
  const { body } = await stack.rest<{ data: { transactions: TransactionRow[] } }>(
    `/plans/${stack.planId}/transactions`,
  );
  const newest = body.data.transactions
    .filter((row) => !row.deleted)
    .sort((a, b) => b.date.localeCompare(a.date) || b.id.localeCompare(a.id))
    .slice(0, count);
  return newest.map((row, i) => ({
    id: `note-${i}`,
    text: `checked on ${row.date}`,
    planId: stack.planId,
    transactionId: row.id,
    accountId: row.account_id,
  }));
}

export interface Federation {
  /** The gateway behind the router (cold when made). */
  readonly gateway: ServedGateway;
  readonly notes: NotesSubgraph;
  readonly router: Router;
  /** How many `_entities` requests reached the gateway's subgraph endpoint. */
  entityRequests(): number;
  close(): Promise<void>;
}

/**
 * A cold gateway of `stack`'s (on its sandbox), the notes subgraph over `notes`, their
 * supergraph composed by `composer`, and the router serving it.
 */
export async function startFederation(
  stack: Stack,
  notes: readonly Note[],
  composer: Composer,
): Promise<Federation> {
  let entityRequests = 0;
  const countEntities: Plugin = {
    onParams({ params }) {
      if (params.query?.includes('_entities')) entityRequests += 1;
    },
  };
  const gateway = await stack.addGateway({ deps: { plugins: [countEntities] } });
  const notesSubgraph = await startNotesSubgraph(notes);
  const composed = compose(composer, [
    { name: 'plans', url: subgraphUrl(gateway), sdl: PLANS_SDL },
    { name: 'notes', url: notesSubgraph.url, sdl: NOTES_SDL },
  ]);
  if ('errors' in composed) throw new Error(`composition failed: ${composed.errors.join('; ')}`);
  const router = await startRouter(composed.supergraphSdl);
  return {
    gateway,
    notes: notesSubgraph,
    router,
    entityRequests: () => entityRequests,
    async close() {
      await router.close();
      await notesSubgraph.close();
    },
  };
}
