/**
 * Answers shaped so a model reads them right, after the fold (`output-shape.ts`) and before the
 * client sees them: what a tool's operation cannot say by itself.
 *
 * - `search_transactions` with a category: a split transaction keeps only its lines of that
 *   category, and `categoryAmount` is their sum (the whole amount otherwise), so summing
 *   `categoryAmount` counts a split by its lines.
 * - `month_budget`: hidden, internal and deleted categories only with `includeHidden`.
 * - Results naming a plan, a month or transactions carry resource links to them.
 */

import type { ResourceLink } from '@modelcontextprotocol/sdk/types.js';
import {
  type CurrencyFormat,
  formatMilliunits,
  toCurrencyAmount,
} from '@plans-gateway/rest-contract';
import { type Amount, amountOf } from './money.js';
import type { ToolDefinition } from './tool-definition.js';

/** A plan's currency format as the graph answers it (`currencyFormat { ... }`). */
export interface GraphCurrencyFormat {
  readonly isoCode: string;
  readonly exampleFormat: string;
  readonly decimalDigits: number;
  readonly decimalSeparator: string;
  readonly symbolFirst: boolean;
  readonly groupSeparator: string;
  readonly currencySymbol: string;
  readonly displaySymbol: boolean;
}

/** The REST form of a graph currency format (null stays null: the default format). */
export function restFormat(format: GraphCurrencyFormat | null | undefined): CurrencyFormat | null {
  if (!format) return null;
  return {
    iso_code: format.isoCode,
    example_format: format.exampleFormat,
    decimal_digits: format.decimalDigits,
    decimal_separator: format.decimalSeparator,
    symbol_first: format.symbolFirst,
    group_separator: format.groupSeparator,
    currency_symbol: format.currencySymbol,
    display_symbol: format.displaySymbol,
  };
}

/** An amount the gateway computed (a sum), in the three forms of every amount. */
export function computedAmount(milliunits: number, format: CurrencyFormat | null): Amount {
  return amountOf(
    milliunits,
    toCurrencyAmount(milliunits, format),
    formatMilliunits(milliunits, format),
  );
}

type Json = Record<string, unknown>;

/** `data` as the client sees it (see the module comment). */
export function shapedAnswer(
  tool: ToolDefinition,
  variables: Readonly<Record<string, unknown>>,
  data: Json,
): Json {
  if (tool.name === 'search_transactions' && typeof variables.categoryId === 'string')
    return splitLinesOf(data, variables.categoryId);
  if (tool.name === 'month_budget' && variables.includeHidden !== true) return shownOnly(data);
  return data;
}

interface Line {
  readonly categoryId?: string | null;
  readonly amount: Amount;
}

interface Node {
  readonly amount: Amount;
  readonly subtransactions?: readonly Line[];
  readonly categoryAmount?: Amount;
}

/** Private: split transactions cut to their lines of `categoryId`, counted by those lines. */
function splitLinesOf(data: Json, categoryId: string): Json {
  const plan = data.plan as
    | { currencyFormat?: GraphCurrencyFormat | null; transactions?: { nodes: Node[] } }
    | null
    | undefined;
  if (!plan?.transactions) return data;
  const format = restFormat(plan.currencyFormat);
  const nodes = plan.transactions.nodes.map((node) => {
    const lines = node.subtransactions ?? [];
    if (lines.length === 0) return node;
    const own = lines.filter((line) => line.categoryId === categoryId);
    const sum = own.reduce((total, line) => total + line.amount.milliunits, 0);
    return { ...node, subtransactions: own, categoryAmount: computedAmount(sum, format) };
  });
  return { ...data, plan: { ...plan, transactions: { ...plan.transactions, nodes } } };
}

interface ShownCategory {
  readonly hidden?: boolean;
  readonly internal?: boolean;
  readonly deleted?: boolean;
}

/** Private: a month budget without its hidden, internal and deleted categories. */
function shownOnly(data: Json): Json {
  const plan = data.plan as { month?: { categories?: ShownCategory[] } | null } | null | undefined;
  const categories = plan?.month?.categories;
  if (!plan?.month || !categories) return data;
  const shown = categories.filter((c) => !c.hidden && !c.internal && !c.deleted);
  return { ...data, plan: { ...plan, month: { ...plan.month, categories: shown } } };
}

/** Links to the plan, month and transactions a result names (resources a client can read). */
export function resourceLinks(
  tool: ToolDefinition,
  variables: Readonly<Record<string, unknown>>,
  data: Json,
): ResourceLink[] {
  const planId = findString(data, 'planId') ?? planIdOf(data, variables);
  if (!planId) return [];
  const links: ResourceLink[] = [
    {
      type: 'resource_link',
      uri: `plans://${planId}/overview`,
      name: 'plan_overview',
      description: 'The plan at a glance (read or subscribe).',
      mimeType: 'application/json',
    },
  ];
  const month = findString(data, 'month');
  if (month && /^\d{4}-\d{2}-\d{2}$/.test(month))
    links.push({
      type: 'resource_link',
      uri: `plans://${planId}/months/${month}/budget`,
      name: 'month_budget',
      description: `The budget of ${month.slice(0, 7)} (read or subscribe).`,
      mimeType: 'application/json',
    });
  return tool.name === 'list_plans' ? [] : links;
}

function planIdOf(data: Json, variables: Readonly<Record<string, unknown>>): string | undefined {
  const plan = data.plan as { id?: unknown } | null | undefined;
  if (plan && typeof plan.id === 'string') return plan.id;
  const given = variables.planId;
  return typeof given === 'string' && /^[0-9a-f-]{36}$/i.test(given) ? given : undefined;
}

/** Private: the first string under `key` at any depth (breadth first). */
function findString(value: unknown, key: string): string | undefined {
  const queue: unknown[] = [value];
  while (queue.length > 0) {
    const item = queue.shift();
    if (item === null || typeof item !== 'object') continue;
    if (Array.isArray(item)) {
      queue.push(...item);
      continue;
    }
    const found = (item as Json)[key];
    if (typeof found === 'string') return found;
    queue.push(...Object.values(item));
  }
  return undefined;
}
