/**
 * Runs a write command at the sandbox: its small numbers pick targets from the plan as it is
 * now, so a command that finds nothing to act on, or that the interface refuses, changes nothing.
 */
import type { FlagColor, PlanDetail } from '@plans-gateway/rest-contract';
import { isUpstreamError } from '../../../src/errors/upstream-error.js';
import type { UpstreamClient } from '../../../src/upstream/client.js';
import type { WriteCommand } from './write-commands.js';

const FLAGS: readonly (FlagColor | null)[] = [
  'red',
  'orange',
  'yellow',
  'green',
  'blue',
  'purple',
  null,
];

export interface WriteContext {
  client: UpstreamClient;
  token: string;
  planId: string;
  /** Epoch ms of "today" at the sandbox. */
  now: number;
}

function pick<T>(items: readonly T[], n: number): T | undefined {
  return items.length === 0 ? undefined : items[n % items.length];
}

function isoDay(epochMs: number): string {
  return new Date(epochMs).toISOString().slice(0, 10);
}

function monthStart(epochMs: number, monthsAgo: number): string {
  const d = new Date(epochMs);
  return new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() - monthsAgo, 1))
    .toISOString()
    .slice(0, 10);
}

/**
 * Applies one command. Returns true when the upstream accepted it, false when it refused it
 * with a 4xx (the generator can ask for writes the interface rejects, such as a category on a
 * split; a refusal changes nothing). Anything else is thrown.
 */
export async function applyWrite(ctx: WriteContext, command: WriteCommand): Promise<boolean> {
  const call = { token: ctx.token };
  const { plan } = await ctx.client.getPlanById(call, { planId: ctx.planId });
  const target: Target = { ctx, live: liveParts(plan), call };
  try {
    switch (command.kind) {
      case 'create':
        return await createTransaction(target, command);
      case 'update':
        return await updateTransaction(target, command);
      case 'bulk-update':
        return await updateTransactions(target, command);
      case 'delete':
        return await deleteTransaction(target, command);
      case 'assign':
        return await assign(target, command);
      case 'rename-payee':
        return await renamePayee(target, command);
      case 'create-account':
        return await createAccount(target, command);
      case 'update-category':
        return await updateCategory(target, command);
      case 'scheduled-create':
        return await createScheduled(target, command);
      case 'scheduled-update':
        return await updateScheduled(target, command);
      case 'scheduled-delete':
        return await deleteScheduled(target, command);
    }
  } catch (error) {
    if (
      isUpstreamError(error) &&
      error.status !== null &&
      error.status >= 400 &&
      error.status < 500 &&
      error.status !== 429
    ) {
      return false;
    }
    throw error;
  }
}

/** What a command picks its targets from, and how it calls the upstream. */
interface Target {
  ctx: WriteContext;
  live: ReturnType<typeof liveParts>;
  call: { token: string };
}

async function createTransaction(
  { ctx, live, call }: Target,
  command: Extract<WriteCommand, { kind: 'create' }>,
): Promise<boolean> {
  const { client, planId } = ctx;
  const account = pick(live.openAccounts, command.account);
  const other = pick(
    live.openAccounts.filter((a) => a.id !== account?.id),
    command.other,
  );
  const category = pick(live.categories, command.category);
  if (!account || !category) return false;
  const date = isoDay(ctx.now - command.daysAgo * 86_400_000);
  const base = {
    account_id: account.id,
    date,
    approved: command.approved,
    memo: `gen ${command.amount}`,
  };
  const half = Math.trunc(command.amount / 20) * 10;
  const transfer = other?.transfer_payee_id ?? null;
  const transaction =
    command.shape === 'plain'
      ? {
          ...base,
          amount: command.amount,
          category_id: category.id,
          payee_name: `Payee ${command.category % 7}`,
        }
      : command.shape === 'transfer' && transfer
        ? { ...base, amount: command.amount, payee_id: transfer }
        : {
            ...base,
            amount: command.amount,
            payee_name: 'Split shop',
            subtransactions: [
              { amount: half, category_id: category.id, memo: 'part one' },
              command.shape === 'split-transfer' && transfer
                ? { amount: command.amount - half, payee_id: transfer, memo: 'part transfer' }
                : {
                    amount: command.amount - half,
                    category_id: pick(live.categories, command.other)?.id ?? null,
                    payee_name: 'Second payee',
                  },
            ],
          };
  await client.createTransaction(call, { planId, body: { transaction } });
  return true;
}

async function updateTransaction(
  { ctx, live, call }: Target,
  command: Extract<WriteCommand, { kind: 'update' }>,
): Promise<boolean> {
  const { client, planId } = ctx;
  const target = pick(live.transactions, command.target);
  if (!target) return false;
  const v = command.value;
  const changes = {
    amount: { amount: (v - 500) * 170 },
    date: { date: isoDay(ctx.now - (v % 80) * 86_400_000) },
    category: { category_id: pick(live.categories, v)?.id ?? null },
    memo: { memo: v % 5 === 0 ? null : `memo ${v}` },
    cleared: { cleared: (['cleared', 'uncleared', 'reconciled'] as const)[v % 3]! },
    approved: { approved: v % 2 === 0 },
    flag: { flag_color: FLAGS[v % FLAGS.length] ?? null },
    payee: { payee_name: `Renamed payee ${v % 9}` },
    // Turns a transaction into a split, or replaces a split's lines (same total).
    split: {
      subtransactions: [
        {
          amount: Math.trunc(target.amount / 20) * 10,
          category_id: pick(live.categories, v)?.id ?? null,
          memo: `line ${v}`,
        },
        {
          amount: target.amount - Math.trunc(target.amount / 20) * 10,
          category_id: pick(live.categories, v + 1)?.id ?? null,
        },
      ],
    },
  }[command.field];
  await client.updateTransaction(call, {
    planId,
    transactionId: target.id,
    body: { transaction: changes },
  });
  return true;
}

async function updateTransactions(
  { ctx, live, call }: Target,
  command: Extract<WriteCommand, { kind: 'bulk-update' }>,
): Promise<boolean> {
  const { client, planId } = ctx;
  const ids = [
    ...new Set(
      command.targets.map((t) => pick(live.transactions, t)?.id).filter((id): id is string => !!id),
    ),
  ];
  if (ids.length === 0) return false;
  const transactions = ids.map((id, i) => ({
    id,
    memo: `bulk ${command.value + i}`,
    approved: true,
    flag_color: FLAGS[(command.value + i) % FLAGS.length] ?? null,
  }));
  await client.updateTransactions(call, { planId, body: { transactions } });
  return true;
}

async function deleteTransaction(
  { ctx, live, call }: Target,
  command: Extract<WriteCommand, { kind: 'delete' }>,
): Promise<boolean> {
  const { client, planId } = ctx;
  const target = pick(live.transactions, command.target);
  if (!target) return false;
  await client.deleteTransaction(call, { planId, transactionId: target.id });
  return true;
}

async function assign(
  { ctx, live, call }: Target,
  command: Extract<WriteCommand, { kind: 'assign' }>,
): Promise<boolean> {
  const { client, planId } = ctx;
  const category = pick(live.budgetable, command.category);
  if (!category) return false;
  await client.updateMonthCategory(call, {
    planId,
    month: monthStart(ctx.now, command.monthsAgo),
    categoryId: category.id,
    body: { category: { budgeted: Math.abs(command.amount) } },
  });
  return true;
}

async function renamePayee(
  { ctx, live, call }: Target,
  command: Extract<WriteCommand, { kind: 'rename-payee' }>,
): Promise<boolean> {
  const { client, planId } = ctx;
  const payee = pick(live.payees, command.payee);
  if (!payee) return false;
  await client.updatePayee(call, {
    planId,
    payeeId: payee.id,
    body: { payee: { name: `${payee.name.slice(0, 20)} ${command.value}` } },
  });
  return true;
}

async function createAccount(
  { ctx, call }: Target,
  command: Extract<WriteCommand, { kind: 'create-account' }>,
): Promise<boolean> {
  const { client, planId } = ctx;
  await client.createAccount(call, {
    planId,
    body: {
      account: {
        name: `Account ${command.type} ${command.balance}`,
        type: command.type,
        balance: command.balance,
      },
    },
  });
  return true;
}

async function updateCategory(
  { ctx, live, call }: Target,
  command: Extract<WriteCommand, { kind: 'update-category' }>,
): Promise<boolean> {
  const { client, planId } = ctx;
  const category = pick(live.budgetable, command.category);
  if (!category) return false;
  const v = command.value;
  const body =
    v % 3 === 0
      ? { name: `${category.name.slice(0, 20)} ${v}` }
      : v % 3 === 1
        ? { note: `note ${v}` }
        : { goal_target: (v + 1) * 1000 };
  await client.updateCategory(call, {
    planId,
    categoryId: category.id,
    body: { category: body },
  });
  return true;
}

async function createScheduled(
  { ctx, live, call }: Target,
  command: Extract<WriteCommand, { kind: 'scheduled-create' }>,
): Promise<boolean> {
  const { client, planId } = ctx;
  const account = pick(live.openAccounts, command.account);
  const category = pick(live.budgetable, command.category);
  if (!account) return false;
  await client.createScheduledTransaction(call, {
    planId,
    body: {
      scheduled_transaction: {
        account_id: account.id,
        date: isoDay(ctx.now + command.daysAhead * 86_400_000),
        amount: command.amount,
        frequency: command.frequency,
        category_id: category?.id ?? null,
        payee_name: `Scheduled ${command.daysAhead % 5}`,
        memo: 'scheduled by the property',
      },
    },
  });
  return true;
}

async function updateScheduled(
  { ctx, live, call }: Target,
  command: Extract<WriteCommand, { kind: 'scheduled-update' }>,
): Promise<boolean> {
  const { client, planId } = ctx;
  const target = pick(live.scheduled, command.target);
  if (!target) return false;
  await client.updateScheduledTransaction(call, {
    planId,
    scheduledTransactionId: target.id,
    body: {
      scheduled_transaction: {
        account_id: target.account_id,
        date: isoDay(ctx.now + command.daysAhead * 86_400_000),
        amount: command.amount,
        memo: `rescheduled ${command.daysAhead}`,
      },
    },
  });
  return true;
}

async function deleteScheduled(
  { ctx, live, call }: Target,
  command: Extract<WriteCommand, { kind: 'scheduled-delete' }>,
): Promise<boolean> {
  const { client, planId } = ctx;
  const target = pick(live.scheduled, command.target);
  if (!target) return false;
  await client.deleteScheduledTransaction(call, {
    planId,
    scheduledTransactionId: target.id,
  });
  return true;
}

/** The parts of a plan export writes may target, in a stable order. */
export function liveParts(plan: PlanDetail) {
  const byId = <T extends { id: string }>(rows: readonly T[]) =>
    [...rows].sort((a, b) => a.id.localeCompare(b.id));
  const categories = byId(plan.categories.filter((c) => !c.deleted));
  const internalGroups = new Set(plan.category_groups.filter((g) => g.internal).map((g) => g.id));
  return {
    openAccounts: byId(plan.accounts.filter((a) => !a.deleted && !a.closed)),
    categories,
    budgetable: categories.filter((c) => !c.internal && !internalGroups.has(c.category_group_id)),
    payees: byId(plan.payees.filter((p) => !p.deleted && p.transfer_account_id === null)),
    transactions: byId(plan.transactions.filter((t) => !t.deleted)),
    scheduled: byId(plan.scheduled_transactions.filter((s) => !s.deleted)),
  };
}
