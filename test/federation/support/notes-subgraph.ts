/**
 * A second subgraph for the federation tests: notes a user writes on transactions, each naming
 * the transaction's account too. It holds no plan data: it extends `Transaction` (keyed
 * `planId id`, resolved by the gateway) with `notes`, and refers to `Account` by the same key
 * without resolving it. Built with Apollo's `buildSubgraphSchema`, served by yoga on loopback.
 */
import { buildSubgraphSchema } from '@apollo/subgraph';
import { parse } from 'graphql';
import { createYoga } from 'graphql-yoga';
import { type Served, serveOnLoopback } from './loopback.js';

export interface Note {
  readonly id: string;
  readonly text: string;
  readonly planId: string;
  readonly transactionId: string;
  readonly accountId: string;
}

export const NOTES_SDL = /* GraphQL */ `
  extend schema @link(url: "https://specs.apollo.dev/federation/v2.6", import: ["@key"])

  type Note {
    id: ID!
    text: String!
    transaction: Transaction!
    account: Account!
  }

  type Transaction @key(fields: "planId id") {
    planId: ID!
    id: ID!
    notes: [Note!]!
  }

  type Account @key(fields: "planId id", resolvable: false) {
    planId: ID!
    id: ID!
  }

  type Query {
    notes(planId: ID!): [Note!]!
  }
`;

export type NotesSubgraph = Served;

export async function startNotesSubgraph(notes: readonly Note[]): Promise<NotesSubgraph> {
  const ref = (note: Note) => ({ planId: note.planId, id: note.transactionId });
  const schema = buildSubgraphSchema({
    typeDefs: parse(NOTES_SDL),
    resolvers: {
      Query: {
        notes: (_root: unknown, { planId }: { planId: string }) =>
          notes.filter((note) => note.planId === planId),
      },
      Note: {
        transaction: (note: Note) => ref(note),
        account: (note: Note) => ({ planId: note.planId, id: note.accountId }),
      },
      Transaction: {
        __resolveReference: (key: { planId: string; id: string }) => key,
        notes: (key: { planId: string; id: string }) =>
          notes.filter((note) => note.planId === key.planId && note.transactionId === key.id),
      },
    },
  });
  return serveOnLoopback(createYoga({ schema, logging: false }), '/graphql');
}
