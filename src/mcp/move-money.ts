/**
 * `move_money`: moves an amount assigned in a month from one category to another in one call.
 * The plan has no such write: what each category has assigned is read first
 * (`operations/move-money/move-money-before.graphql`), then assign_to_category's own operation
 * sets the two new totals, the source first. When the second write fails, the first is set back
 * (and the answer says whether that worked), so a move is never left half-done silently.
 */
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import type { GraphQLSchema } from 'graphql';
import { MILLIUNITS_INPUT_SCHEMA, takeAmount, UNITS_INPUT_SCHEMA } from './amount-arguments.js';
import { computedAmount, type GraphCurrencyFormat, restFormat } from './answer-shaping.js';
import { readOperation, type ToolCatalog } from './catalog.js';
import { type Amount, ArgumentError, amountOutputSchema, argumentErrors } from './money.js';
import { MATCHED_OUTPUT_SCHEMA, NAME_NOTE } from './names.js';
import type { OptionalTool } from './optional-tools.js';
import { type ToolDefinition, toolFromDocument } from './tool-definition.js';
import type { Caller, ToolRunner } from './tool-runner.js';

interface Budgeted {
  readonly categoryId: string;
  readonly name: string;
  readonly budgeted: Amount;
  readonly balance: Amount;
}

interface Before {
  readonly plan: {
    readonly id: string;
    readonly currencyFormat: GraphCurrencyFormat | null;
    readonly month: { month: string; from: Budgeted | null; to: Budgeted | null } | null;
  } | null;
}

interface Assigned {
  readonly updateMonthCategory: {
    readonly category: Budgeted & { activity: Amount };
    readonly month: { month: string; toBeBudgeted: Amount };
  };
}

const AMOUNT = amountOutputSchema(undefined);
const SIDE = {
  type: 'object',
  properties: {
    categoryId: { type: 'string' },
    name: { type: 'string' },
    budgeted: AMOUNT,
    activity: AMOUNT,
    balance: AMOUNT,
    replacedBudgeted: AMOUNT,
  },
  required: ['categoryId', 'name', 'budgeted', 'balance', 'replacedBudgeted'],
};

const TOOL: Tool = {
  name: 'move_money',
  title: 'Move money',
  description:
    "Moves an amount assigned in a month from one category to another, in one call: the source category's assigned amount goes down by `amount` and the destination's goes up by it; Ready to Assign does not change. Both categories may be named. The answer gives each category's new assigned amount and balance, and the amount each had assigned before (`replacedBudgeted`); moving the same amount back undoes it. Calling it twice moves twice.\n\nWrites to the plan: call it once per intended change; when its outcome is unknown, check with month_budget before calling again.",
  inputSchema: {
    type: 'object',
    properties: {
      planId: { type: 'string', default: 'last-used', description: 'The plan (list_plans).' },
      month: {
        type: 'string',
        default: 'current',
        description: 'The month: "current" (the default), "2026-11" or any date in it.',
      },
      fromCategoryId: { type: 'string', description: `The category to take from. ${NAME_NOTE}` },
      toCategoryId: { type: 'string', description: `The category to give to. ${NAME_NOTE}` },
      amount: {
        ...UNITS_INPUT_SCHEMA,
        description: `How much to move, more than zero. ${UNITS_INPUT_SCHEMA.description}`,
      },
      amountMilliunits: { ...MILLIUNITS_INPUT_SCHEMA },
    },
    required: ['fromCategoryId', 'toCategoryId'],
  },
  outputSchema: {
    type: 'object',
    properties: {
      planId: { type: 'string' },
      month: { type: 'string' },
      moved: AMOUNT,
      from: SIDE,
      to: SIDE,
      toBeBudgeted: AMOUNT,
      matched: MATCHED_OUTPUT_SCHEMA,
    },
    required: ['planId', 'month', 'moved', 'from', 'to', 'toBeBudgeted'],
  },
  annotations: {
    title: 'Move money',
    readOnlyHint: false,
    destructiveHint: true,
    idempotentHint: false,
    openWorldHint: false,
  },
};

export function moveMoneyTool(
  runner: ToolRunner,
  schema: GraphQLSchema,
  catalog: ToolCatalog,
  writes: boolean,
): OptionalTool {
  const before = toolFromDocument(
    schema,
    readOperation('move-money/move-money-before.graphql'),
    'src/mcp/operations/move-money/move-money-before.graphql',
  );
  const assign = catalog.tools.get('assign_to_category');
  if (!assign) throw new Error('move_money sets amounts through assign_to_category');
  return {
    tool: TOOL,
    writes: true,
    async call(args, caller) {
      if (!writes)
        return toolError(
          "move_money writes to the plan, and this server is read-only: the gateway's operator enables write tools with MCP_WRITES=on. Nothing was changed.",
        );
      const { amount, amountMilliunits, ...rest } = args;
      const errors: ArgumentError[] = [];
      let moved: number | null | undefined;
      try {
        moved = takeAmount({ amount, amountMilliunits }, 'amount', 'amount');
        if (moved === undefined || moved === null)
          throw new ArgumentError(
            'amount',
            'required: how much to move, in currency units (or "amountMilliunits").',
          );
        if (moved <= 0)
          throw new ArgumentError(
            'amount',
            'more than zero; to move the other way, swap fromCategoryId and toCategoryId.',
          );
      } catch (error) {
        if (!(error instanceof ArgumentError)) throw error;
        errors.push(error);
      }
      let checked: Awaited<ReturnType<ToolRunner['checked']>> | undefined;
      try {
        checked = await runner.checked(before, rest, caller);
      } catch (error) {
        if (!(error instanceof ArgumentError)) throw error;
        errors.push(...error.all);
      }
      if (checked?.variables.fromCategoryId === checked?.variables.toCategoryId && checked)
        errors.push(
          new ArgumentError(
            'toCategoryId',
            'the same category as fromCategoryId: nothing to move.',
          ),
        );
      if (errors.length > 0 || !checked || typeof moved !== 'number')
        return toolError(argumentErrors(errors).message);
      return move(runner, before, assign, checked, moved, caller);
    },
  };
}

async function move(
  runner: ToolRunner,
  beforeTool: ToolDefinition,
  assign: ToolDefinition,
  checked: Awaited<ReturnType<ToolRunner['checked']>>,
  moved: number,
  caller: Caller,
): Promise<CallToolResult> {
  const { variables, matched } = checked;
  const read = await runner.run(beforeTool, variables, caller);
  if (!read.ok) return toolError(`Nothing was moved: ${read.message}`);
  const plan = (read.data as unknown as Before).plan;
  const month = plan?.month;
  if (!plan || !month)
    return toolError(
      'Nothing was moved: the plan or month could not be read (list_plans, list_months).',
    );
  if (!month.from || !month.to)
    return toolError(
      `Nothing was moved: ${month.from ? 'toCategoryId' : 'fromCategoryId'} is not a category of this month (month_budget lists them).`,
    );
  const set = (categoryId: string, budgeted: number) =>
    runner.run(assign, { planId: plan.id, month: month.month, categoryId, budgeted }, caller);
  const from = await set(month.from.categoryId, month.from.budgeted.milliunits - moved);
  if (!from.ok) return toolError(`Nothing was moved: ${from.message}`);
  const to = await set(month.to.categoryId, month.to.budgeted.milliunits + moved);
  if (!to.ok) {
    const undo = await set(month.from.categoryId, month.from.budgeted.milliunits);
    return toolError(
      undo.ok
        ? `Nothing was moved: giving to ${month.to.name} failed (${to.message}), and ${month.from.name} was set back to ${month.from.budgeted.formatted}.`
        : `Half a move: ${month.from.name} was lowered by the amount, giving to ${month.to.name} failed (${to.message}), and setting ${month.from.name} back to ${month.from.budgeted.formatted} failed too (${undo.message}). Check with month_budget and fix it with assign_to_category.`,
    );
  }
  const fromAnswer = (from.data as unknown as Assigned).updateMonthCategory;
  const toAnswer = (to.data as unknown as Assigned).updateMonthCategory;
  const side = (answer: Assigned['updateMonthCategory'], old: Budgeted) => ({
    categoryId: answer.category.categoryId,
    name: answer.category.name,
    budgeted: answer.category.budgeted,
    activity: answer.category.activity,
    balance: answer.category.balance,
    replacedBudgeted: old.budgeted,
  });
  const data = {
    planId: plan.id,
    month: month.month,
    moved: computedAmount(moved, restFormat(plan.currencyFormat)),
    from: side(fromAnswer, month.from),
    to: side(toAnswer, month.to),
    toBeBudgeted: toAnswer.month.toBeBudgeted,
    ...(matched.length > 0 ? { matched } : {}),
  };
  return {
    content: [
      { type: 'text', text: JSON.stringify(data) },
      {
        type: 'resource_link',
        uri: `plans://${plan.id}/months/${month.month}/budget`,
        name: 'month_budget',
        description: `The budget of ${month.month.slice(0, 7)} (read or subscribe).`,
        mimeType: 'application/json',
      },
    ],
    structuredContent: data,
  };
}

function toolError(text: string): CallToolResult {
  return { isError: true, content: [{ type: 'text', text }] };
}
