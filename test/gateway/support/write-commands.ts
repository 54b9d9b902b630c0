/**
 * Random writes another REST client makes at the sandbox, behind the gateway's back, for the
 * consistency property: every kind of change a delta must carry (transactions with splits and
 * transfers, updates, deletes, month assignments, payee renames, new accounts, scheduled
 * transactions, category edits). Commands hold small numbers that pick their targets from the
 * plan as it is when they run (apply-write.ts), so any sequence is valid to generate and shrink.
 */
import type { Frequency, SaveAccountType } from '@plans-gateway/rest-contract';
import fc from 'fast-check';

export type WriteCommand =
  | {
      kind: 'create';
      shape: 'plain' | 'split' | 'transfer' | 'split-transfer';
      account: number;
      other: number;
      category: number;
      amount: number;
      daysAgo: number;
      approved: boolean;
    }
  | {
      kind: 'update';
      target: number;
      field:
        | 'amount'
        | 'date'
        | 'category'
        | 'memo'
        | 'cleared'
        | 'approved'
        | 'flag'
        | 'payee'
        | 'split';
      value: number;
    }
  | { kind: 'bulk-update'; targets: number[]; value: number }
  | { kind: 'delete'; target: number }
  | { kind: 'assign'; monthsAgo: number; category: number; amount: number }
  | { kind: 'rename-payee'; payee: number; value: number }
  | { kind: 'create-account'; type: SaveAccountType; balance: number }
  | { kind: 'update-category'; category: number; value: number }
  | {
      kind: 'scheduled-create';
      account: number;
      category: number;
      amount: number;
      daysAhead: number;
      frequency: Frequency;
    }
  | { kind: 'scheduled-update'; target: number; amount: number; daysAhead: number }
  | { kind: 'scheduled-delete'; target: number };

const index = fc.nat(1_000);
const amount = fc.integer({ min: -500_000, max: 300_000 }).map((n) => n * 10);

export const writeCommand: fc.Arbitrary<WriteCommand> = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.record({
      kind: fc.constant('create' as const),
      shape: fc.constantFrom(
        'plain' as const,
        'split' as const,
        'transfer' as const,
        'split-transfer' as const,
      ),
      account: index,
      other: index,
      category: index,
      amount,
      daysAgo: fc.nat(75),
      approved: fc.boolean(),
    }),
  },
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('update' as const),
      target: index,
      field: fc.constantFrom(
        'amount' as const,
        'date' as const,
        'category' as const,
        'memo' as const,
        'cleared' as const,
        'approved' as const,
        'flag' as const,
        'payee' as const,
        'split' as const,
      ),
      value: index,
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('bulk-update' as const),
      targets: fc.array(index, { minLength: 1, maxLength: 4 }),
      value: index,
    }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('delete' as const), target: index }) },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('assign' as const),
      monthsAgo: fc.nat(2),
      category: index,
      amount,
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('rename-payee' as const),
      payee: index,
      value: index,
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('create-account' as const),
      type: fc.constantFrom<SaveAccountType>(
        'checking',
        'savings',
        'cash',
        'creditCard',
        'otherAsset',
        'otherLiability',
      ),
      balance: amount,
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('update-category' as const),
      category: index,
      value: index,
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('scheduled-create' as const),
      account: index,
      category: index,
      amount,
      daysAhead: fc.integer({ min: 1, max: 60 }),
      frequency: fc.constantFrom<Frequency>('never', 'weekly', 'monthly', 'yearly'),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('scheduled-update' as const),
      target: index,
      amount,
      daysAhead: fc.integer({ min: 1, max: 60 }),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant('scheduled-delete' as const), target: index }),
  },
);
