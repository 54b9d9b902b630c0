/**
 * What a write does beyond its operation: the read of what it replaces (`before`, answered as
 * `replaced` beside the write's own answer, so a model sees the old value and the new one), and,
 * for a write that overwrites or deletes (`# mcp: confirm`), the user's confirmation through MCP
 * elicitation when the client supports it. A client without elicitation runs the write as its
 * description says (the description states what it changes).
 */
import type { ToolDefinition } from './tool-definition.js';

type Outcome =
  | { readonly ok: true; readonly data: Record<string, unknown>; readonly notes: string[] }
  | { readonly ok: false; readonly message: string };

/** Runs `tool` (any tool; a read just runs) with its before-read and confirmation. */
export async function runWrite<C>(
  runner: {
    run(tool: ToolDefinition, variables: Record<string, unknown>, caller: C): Promise<Outcome>;
  },
  tool: ToolDefinition,
  variables: Record<string, unknown>,
  caller: C,
  confirm: ((message: string) => Promise<boolean>) | undefined,
  args: Readonly<Record<string, unknown>> = variables,
): Promise<Outcome> {
  if (!tool.writes) return runner.run(tool, variables, caller);
  let replaced: unknown;
  if (tool.before && tool.beforeEach) {
    const read = await readEach(runner, tool, tool.before, variables, caller);
    if (typeof read === 'string') return { ok: false, message: read };
    replaced = read;
  } else if (tool.before) {
    const own = Object.fromEntries(
      tool.before.variables
        .filter((v) => variables[v.name] !== undefined)
        .map((v) => [v.name, variables[v.name]]),
    );
    const read = await runner.run(tool.before, own, caller);
    if (!read.ok)
      return {
        ok: false,
        message: `What ${tool.name} would replace could not be read, so nothing was written: ${read.message}`,
      };
    replaced = read.data;
  }
  if (tool.confirms && confirm) {
    const what = replaced ? ` It replaces: ${JSON.stringify(plainAmounts(replaced))}.` : '';
    const asked = `${tool.title} with ${JSON.stringify(args)}?${what}`;
    if (!(await confirm(asked)))
      return {
        ok: false,
        message: `The user did not confirm ${tool.name}: nothing was changed. Ask them before trying again.`,
      };
  }
  const outcome = await runner.run(tool, variables, caller);
  if (!outcome.ok || !replaced) return outcome;
  return { ...outcome, data: { ...outcome.data, replaced } };
}

/**
 * Private: each transaction a list write names, as it is before the write (its own before-read,
 * once per distinct id; answered from the replica when fresh), or why nothing is written.
 */
async function readEach<C>(
  runner: {
    run(tool: ToolDefinition, variables: Record<string, unknown>, caller: C): Promise<Outcome>;
  },
  tool: ToolDefinition,
  before: ToolDefinition,
  variables: Record<string, unknown>,
  caller: C,
): Promise<unknown[] | string> {
  const list = variables[tool.beforeEach ?? 'transactions'];
  const items = Array.isArray(list) ? (list as unknown[]) : [];
  const planId = variables.planId === undefined ? {} : { planId: variables.planId };
  const read = new Map<string, unknown>();
  const rows: unknown[] = [];
  for (const [index, item] of items.entries()) {
    const id = (item as { id?: unknown } | null)?.id;
    if (typeof id !== 'string')
      return `Argument "transactions[${index}].id": required here, so that the answer can say what each transaction had before (search_transactions gives the ids). Nothing was written.`;
    if (!read.has(id)) {
      const outcome = await runner.run(before, { ...planId, transactionId: id }, caller);
      // The plan answers an unknown id as NOT_FOUND beside a null transaction.
      if (!outcome.ok && /\(NOT_FOUND\)/.test(outcome.message))
        return `Argument "transactions[${index}].id": this plan has no transaction ${JSON.stringify(id)} (search_transactions gives the ids). Nothing was written.`;
      if (!outcome.ok)
        return `What ${tool.name} would replace could not be read, so nothing was written: ${outcome.message}`;
      const found = (outcome.data as { plan?: { transaction?: unknown } | null }).plan?.transaction;
      if (!found)
        return `Argument "transactions[${index}].id": this plan has no transaction ${JSON.stringify(id)} (search_transactions gives the ids). Nothing was written.`;
      read.set(id, found);
    }
    rows.push(read.get(id));
  }
  return rows;
}

/** Private: amounts as their formatted text, for a question put to a person. */
function plainAmounts(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(plainAmounts);
  if (value === null || typeof value !== 'object') return value;
  if ('formatted' in value && 'milliunits' in value)
    return (value as { formatted: unknown }).formatted;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, plainAmounts(v)]));
}
