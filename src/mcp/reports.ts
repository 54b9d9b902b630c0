/**
 * Reports that count right, so a model never sums amounts itself: `spending_report` totals a
 * month or a date range by category, payee or account. The lines come from one curated query
 * (`operations/reports/spending-lines.graphql`, run like any tool, page after page); the gateway
 * counts them here:
 *
 * - a split transaction counts by its lines, each under its own category or payee;
 * - by category or payee, transfers between accounts are left out (they move money, they do not
 *   spend it), and income to Ready to Assign is kept apart as `income`;
 * - by account (cash flow), every line counts, transfers included, since they move cash;
 * - outflows and inflows are given apart, and `net` is their sum: by category, `net` of a month
 *   is the category's activity of that month.
 */
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import type { GraphQLSchema } from 'graphql';
import { computedAmount, type GraphCurrencyFormat, restFormat } from './answer-shaping.js';
import { readOperation } from './catalog.js';
import { type Amount, ArgumentError, amountOutputSchema, argumentErrors } from './money.js';
import { MATCHED_OUTPUT_SCHEMA, type Matched, NAME_NOTE } from './names.js';
import type { OptionalTool } from './optional-tools.js';
import { type ToolDefinition, toolFromDocument } from './tool-definition.js';
import type { Caller, ToolRunner } from './tool-runner.js';

/** Pages of 500 read at most: 10,000 transactions; past that the range must be narrower. */
const MAX_PAGES = 20;

const GROUPINGS = ['category', 'payee', 'account', 'month'] as const;
type Grouping = (typeof GROUPINGS)[number];

interface Line {
  readonly amount: Amount;
  readonly accountId?: string;
  readonly accountName?: string;
  readonly categoryId: string | null;
  readonly categoryName: string | null;
  readonly category: { internal: boolean } | null;
  readonly payeeId: string | null;
  readonly payeeName: string | null;
  readonly transferAccountId: string | null;
}

interface Row extends Line {
  readonly date: string;
  readonly accountId: string;
  readonly accountName: string;
  readonly subtransactions: readonly Line[];
}

interface Page {
  readonly plan: {
    readonly id: string;
    readonly currencyFormat: GraphCurrencyFormat | null;
    readonly transactions: {
      readonly nodes: readonly Row[];
      readonly pageInfo: { hasNextPage: boolean; endCursor: string | null };
    };
  } | null;
}

interface Total {
  id: string | null;
  name: string;
  outflows: number;
  inflows: number;
  lines: number;
}

export function reportTools(runner: ToolRunner, schema: GraphQLSchema): OptionalTool[] {
  const lines = toolFromDocument(
    schema,
    readOperation('reports/spending-lines.graphql'),
    'src/mcp/operations/reports/spending-lines.graphql',
  );
  return [spendingReport(runner, lines)];
}

const AMOUNT = amountOutputSchema(undefined);
const GROUP_SCHEMA = {
  type: 'object',
  properties: {
    id: { type: ['string', 'null'] },
    name: { type: 'string' },
    outflows: AMOUNT,
    inflows: AMOUNT,
    net: AMOUNT,
    lines: { type: 'integer' },
  },
  required: ['id', 'name', 'outflows', 'inflows', 'net', 'lines'],
};

function spendingReport(runner: ToolRunner, linesTool: ToolDefinition): OptionalTool {
  const tool: Tool = {
    name: 'spending_report',
    title: 'Spending report',
    description:
      'Totals of a month or a date range, counted by the gateway (quote them; never add amounts yourself): by category (the default), by payee, by account (cash flow per account) or by month (month-over-month history, oldest first). A split transaction counts by its lines; except by account, transfers between accounts are left out and income to Ready to Assign is kept apart as `income`; by account, every line counts, transfers included. `categoryId` or `payeeId` narrows to the lines of that category or payee (a split counts only its lines of it): with groupBy month and a date range, the history of one category. Each group gives outflows, inflows and `net` (their sum; by category, a month\'s `net` is the category activity of month_budget), largest spending first. Give `month` ("2026-11", "current") or `sinceDate`/`untilDate`; neither: the current month.',
    inputSchema: {
      type: 'object',
      properties: {
        planId: { type: 'string', default: 'last-used', description: 'The plan (list_plans).' },
        groupBy: {
          type: 'string',
          enum: [...GROUPINGS],
          default: 'category',
          description:
            'How to group: category, payee, account (cash flow per account) or month (history).',
        },
        month: {
          type: 'string',
          description: 'A month: "current", "2026-11" or a date in it.',
        },
        sinceDate: { type: 'string', format: 'date', description: 'From this date (inclusive).' },
        untilDate: { type: 'string', format: 'date', description: 'To this date (inclusive).' },
        accountId: { type: 'string', description: `Only this account. ${NAME_NOTE}` },
        categoryId: {
          type: 'string',
          description: `Only the lines of this category. ${NAME_NOTE}`,
        },
        payeeId: { type: 'string', description: `Only the lines of this payee. ${NAME_NOTE}` },
      },
    },
    outputSchema: {
      type: 'object',
      properties: {
        planId: { type: 'string' },
        groupBy: { type: 'string', enum: [...GROUPINGS] },
        range: {
          type: 'object',
          properties: {
            month: { type: ['string', 'null'] },
            sinceDate: { type: ['string', 'null'] },
            untilDate: { type: ['string', 'null'] },
          },
        },
        groups: { type: 'array', items: GROUP_SCHEMA },
        totals: {
          type: 'object',
          properties: { outflows: AMOUNT, inflows: AMOUNT, net: AMOUNT },
          required: ['outflows', 'inflows', 'net'],
        },
        income: AMOUNT,
        transfersLeftOut: { type: 'integer' },
        transactions: { type: 'integer' },
        matched: MATCHED_OUTPUT_SCHEMA,
      },
      required: ['planId', 'groupBy', 'groups', 'totals', 'income', 'transfersLeftOut'],
    },
    annotations: {
      title: 'Spending report',
      readOnlyHint: true,
      destructiveHint: false,
      idempotentHint: true,
      openWorldHint: false,
    },
  };
  return {
    tool,
    async call(args, caller) {
      const { groupBy = 'category', ...given } = args;
      const rest: Record<string, unknown> = { ...given };
      const errors: ArgumentError[] = [];
      if (!GROUPINGS.includes(groupBy as Grouping))
        errors.push(
          new ArgumentError(
            'groupBy',
            `one of ${GROUPINGS.join(', ')}; got ${JSON.stringify(groupBy)}.`,
          ),
        );
      if (rest.month === undefined && rest.sinceDate === undefined && rest.untilDate === undefined)
        rest.month = 'current';
      let variables: Record<string, unknown> = {};
      let matched: readonly Matched[] = [];
      try {
        if ('after' in rest) throw new ArgumentError('after', 'this tool reads every page itself.');
        ({ variables, matched } = await runner.checked(linesTool, rest, caller));
      } catch (error) {
        if (!(error instanceof ArgumentError)) throw error;
        errors.push(...error.all);
      }
      if (errors.length > 0) return toolError(argumentErrors(errors).message);
      return report(runner, linesTool, variables, matched, groupBy as Grouping, caller);
    },
  };
}

async function report(
  runner: ToolRunner,
  linesTool: ToolDefinition,
  variables: Record<string, unknown>,
  matched: readonly Matched[],
  groupBy: Grouping,
  caller: Caller,
): Promise<CallToolResult> {
  const rows: Row[] = [];
  let plan: NonNullable<Page['plan']> | null = null;
  let after: string | null = null;
  for (let page = 0; ; page += 1) {
    if (page === MAX_PAGES)
      return toolError(
        `The range holds more than ${MAX_PAGES * 500} transactions: ask for a shorter range (a month, or sinceDate/untilDate) and add the reports up.`,
      );
    const outcome = await runner.run(linesTool, { ...variables, after }, caller);
    if (!outcome.ok) return toolError(outcome.message);
    plan = (outcome.data as unknown as Page).plan;
    if (!plan) return toolError('The plan could not be read: check planId with list_plans.');
    rows.push(...plan.transactions.nodes);
    if (!plan.transactions.pageInfo.hasNextPage) break;
    after = plan.transactions.pageInfo.endCursor;
  }
  if (!plan) return toolError('The plan could not be read.');
  const format = restFormat(plan.currencyFormat);
  const groups = new Map<string, Total>();
  let income = 0;
  let transfersLeftOut = 0;
  const onlyCategory = variables.categoryId as string | undefined;
  const onlyPayee = variables.payeeId as string | undefined;
  for (const row of rows) {
    const parts: readonly Line[] = row.subtransactions.length > 0 ? row.subtransactions : [row];
    for (const line of parts) {
      // The plan's filter matches a split whole; only its lines of the category or payee count.
      if (onlyCategory && line.categoryId !== onlyCategory) continue;
      if (onlyPayee && (line.payeeId ?? row.payeeId) !== onlyPayee) continue;
      const milliunits = line.amount.milliunits;
      if (groupBy !== 'account') {
        if (line.transferAccountId) {
          transfersLeftOut += 1;
          continue;
        }
        if (line.category?.internal && milliunits > 0) {
          income += milliunits;
          continue;
        }
      }
      const [id, name] =
        groupBy === 'category'
          ? [line.categoryId, line.categoryName ?? 'Uncategorized']
          : groupBy === 'payee'
            ? [line.payeeId ?? row.payeeId, line.payeeName ?? row.payeeName ?? '(no payee)']
            : groupBy === 'month'
              ? [`${row.date.slice(0, 7)}-01`, row.date.slice(0, 7)]
              : [row.accountId, row.accountName];
      const key = id ?? name;
      const total = groups.get(key) ?? { id, name, outflows: 0, inflows: 0, lines: 0 };
      if (milliunits < 0) total.outflows += milliunits;
      else total.inflows += milliunits;
      total.lines += 1;
      groups.set(key, total);
    }
  }
  const sorted = [...groups.values()].sort((a, b) =>
    groupBy === 'month' ? String(a.id).localeCompare(String(b.id)) : a.outflows - b.outflows,
  );
  const amount = (m: number) => computedAmount(m, format);
  const sum = (pick: (t: Total) => number) => sorted.reduce((s, t) => s + pick(t), 0);
  const data = {
    planId: plan.id,
    groupBy,
    range: {
      month: (variables.month as string | undefined) ?? null,
      sinceDate: (variables.sinceDate as string | undefined) ?? null,
      untilDate: (variables.untilDate as string | undefined) ?? null,
    },
    groups: sorted.map((t) => ({
      id: t.id,
      name: t.name,
      outflows: amount(t.outflows),
      inflows: amount(t.inflows),
      net: amount(t.outflows + t.inflows),
      lines: t.lines,
    })),
    totals: {
      outflows: amount(sum((t) => t.outflows)),
      inflows: amount(sum((t) => t.inflows)),
      net: amount(sum((t) => t.outflows + t.inflows)),
    },
    income: amount(income),
    transfersLeftOut,
    transactions: rows.length,
    ...(matched.length > 0 ? { matched } : {}),
  };
  return { content: [{ type: 'text', text: JSON.stringify(data) }], structuredContent: data };
}

function toolError(text: string): CallToolResult {
  return { isError: true, content: [{ type: 'text', text }] };
}
