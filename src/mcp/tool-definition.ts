/**
 * A tool made from one GraphQL operation: its name (the operation's, in snake_case), its
 * description (the document's leading comment, then the descriptions of the root fields it
 * reads or writes), its input schema (the variables), its output schema (the selection, amounts
 * folded) and its annotations (a query only reads; a mutation writes, and says in its comment
 * whether it only adds, `# mcp: additive`, or can be repeated safely, `# mcp: idempotent`).
 */
import {
  type DocumentNode,
  type GraphQLSchema,
  Kind,
  type OperationDefinitionNode,
  parse,
  print,
  validate,
} from 'graphql';
import {
  type ItemFields,
  inputSchemaOf,
  itemFieldsOf,
  type JsonSchema,
  type ToolVariable,
  takesNames,
  variablesOf,
} from './input-schema.js';
import { MATCHED_OUTPUT_SCHEMA } from './names.js';
import { outputOf, type Shape, withCompanions } from './output-shape.js';

/** What MCP's `ToolAnnotations` says of a tool (hints for clients and people). */
export interface ToolHints {
  readonly title: string;
  readonly readOnlyHint: boolean;
  readonly destructiveHint: boolean;
  readonly idempotentHint: boolean;
  readonly openWorldHint: boolean;
}

export interface ToolDefinition {
  readonly name: string;
  readonly title: string;
  readonly description: string;
  readonly operationName: string;
  /** The document as it runs: the original with the companions of its amounts. */
  readonly query: string;
  readonly operation: OperationDefinitionNode;
  readonly variables: readonly ToolVariable[];
  readonly inputSchema: JsonSchema;
  readonly outputSchema: JsonSchema;
  readonly shape: Shape;
  readonly annotations: ToolHints;
  /** A mutation: listed and run only when writes are on. */
  readonly writes: boolean;
  /** A write that overwrites or deletes: the user confirms it when the client can be asked. */
  readonly confirms: boolean;
  /**
   * A write's read of what it replaces, run just before it with the same variables; its answer
   * is the write's `replaced`.
   */
  readonly before?: ToolDefinition;
  /**
   * A write of a list of transactions (`$transactions`, each with its `id`): `before` reads one
   * transaction (`$transactionId`) and runs once per item; `replaced` is their list.
   */
  readonly beforeEach?: 'transactions';
}

/**
 * `tool` with `before`, the query reading what it replaces: its answer joins the write's as
 * `replaced` (and its output schema too). Its variables must be the write's.
 */
export function withBefore(
  tool: ToolDefinition,
  before: ToolDefinition | undefined,
): ToolDefinition {
  if (!before) return tool;
  const each =
    before.variables.some((v) => v.name === 'transactionId') &&
    !tool.variables.some((v) => v.name === 'transactionId') &&
    tool.variables.some((v) => v.name === 'transactions');
  for (const variable of before.variables)
    if (!(each && variable.name === 'transactionId'))
      if (!tool.variables.some((v) => v.name === variable.name))
        throw new Error(
          `${before.operationName}: $${variable.name} is not a variable of ${tool.name}`,
        );
  const properties = (tool.outputSchema.properties ?? {}) as Record<string, unknown>;
  const replaced = each
    ? {
        type: 'array',
        items: schemaAt(before.outputSchema, ['plan', 'transaction']),
        description:
          'Each transaction as it was just before this write, in the order given: the values it replaced.',
      }
    : {
        ...before.outputSchema,
        description: 'The values this write replaced, as read just before it.',
      };
  return {
    ...tool,
    before,
    ...(each ? { beforeEach: 'transactions' as const } : {}),
    outputSchema: { ...tool.outputSchema, properties: { ...properties, replaced } },
  };
}

/** Private: the schema of the value at `path` of an object schema (through `anyOf` with null). */
function schemaAt(schema: JsonSchema, path: readonly string[]): JsonSchema {
  let at = schema;
  for (const key of path) {
    const object =
      (at.anyOf as JsonSchema[] | undefined)?.find((variant) => variant.type === 'object') ?? at;
    const next = (object.properties as Record<string, JsonSchema> | undefined)?.[key];
    if (!next) throw new Error(`the before-read answers no ${path.join('.')}`);
    at = next;
  }
  return at;
}

/** The leading comment of a document: its description, hints and variable descriptions. */
interface LeadingComment {
  readonly description: string;
  readonly hints: ReadonlySet<string>;
  readonly variables: ReadonlyMap<string, string>;
  /** `# $name.fields: ...` lines: the fields a variable of input objects takes. */
  readonly fields: ReadonlyMap<string, ItemFields>;
  /** A `# before: <file>` line: the before-read (in `operations/before/`) the write shares. */
  readonly before: string | undefined;
}

/**
 * The tool of a document holding one named query or mutation. Throws, naming the document, when
 * it holds anything else or does not validate against the schema.
 */
export function toolFromDocument(
  schema: GraphQLSchema,
  text: string,
  source: string,
): ToolDefinition {
  const document = parse(text);
  const operations = document.definitions.filter(
    (d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION,
  );
  const [operation] = operations;
  if (operations.length !== 1 || !operation?.name)
    throw new Error(`${source}: a tool is one named operation; found ${operations.length}`);
  if (operation.operation === 'subscription')
    throw new Error(`${source}: a subscription cannot be a tool`);
  if (/@(defer|stream)\b/.test(print(document)))
    throw new Error(`${source}: a tool answers once; @defer and @stream cannot be a tool`);
  const errors = validate(schema, document);
  if (errors.length > 0) throw new Error(`${source}: ${errors[0]?.message}`);

  const comment = leadingComment(text);
  const withAmounts = withCompanions(schema, document);
  const running = operationOf(withAmounts);
  const { schema: ownOutput, shape } = outputOf(schema, withAmounts, running);
  const variables = variablesOf(schema, document, operation, comment.variables, comment.fields);
  const inputSchema = inputSchemaOf(operation, variables);
  const outputSchema = takesNames(inputSchema)
    ? {
        ...ownOutput,
        properties: {
          ...((ownOutput.properties ?? {}) as Record<string, unknown>),
          matched: MATCHED_OUTPUT_SCHEMA,
        },
      }
    : ownOutput;
  const operationName = operation.name.value;
  const writes = operation.operation === 'mutation';
  const title = titleOf(operationName);
  return {
    name: snakeCase(operationName),
    title,
    description: describe(comment.description, writes),
    operationName,
    query: print(withAmounts),
    operation,
    variables,
    inputSchema,
    outputSchema,
    shape,
    annotations: {
      title,
      readOnlyHint: !writes,
      destructiveHint: writes && !comment.hints.has('additive'),
      idempotentHint: !writes || comment.hints.has('idempotent'),
      // The tools reach one plan's data, not an open world of external entities.
      openWorldHint: false,
    },
    writes,
    confirms: writes && comment.hints.has('confirm'),
  };
}

/** `SearchTransactions` → `search_transactions`. */
export function snakeCase(name: string): string {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1_$2')
    .toLowerCase();
}

function titleOf(name: string): string {
  const words = snakeCase(name).split('_');
  const text = words.join(' ');
  return text.charAt(0).toUpperCase() + text.slice(1);
}

function operationOf(document: DocumentNode): OperationDefinitionNode {
  const found = document.definitions.find(
    (d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION,
  );
  if (!found) throw new Error('no operation');
  return found;
}

/**
 * Private: the comment lines before the first definition. `# mcp: additive idempotent` lines are
 * hints, `# $name: text` lines describe a variable; the rest is the description.
 */
function leadingComment(text: string): LeadingComment {
  const lines: string[] = [];
  const hints = new Set<string>();
  const variables = new Map<string, string>();
  const fields = new Map<string, ItemFields>();
  let before: string | undefined;
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line === '') continue;
    if (!line.startsWith('#')) break;
    const content = line.replace(/^#\s?/, '');
    const hint = /^mcp:\s*(.*)$/.exec(content);
    const variable = /^\$(\w+):\s*(.*)$/.exec(content);
    const restricted = /^\$(\w+)\.fields:\s*(.*)$/.exec(content);
    const shared = /^before:\s*(\S+\.graphql)\s*$/.exec(content);
    if (shared?.[1]) {
      before = shared[1];
    } else if (restricted?.[1]) {
      fields.set(restricted[1], itemFieldsOf(restricted[2] ?? ''));
    } else if (hint) {
      for (const word of (hint[1] ?? '').split(/\s+/)) if (word) hints.add(word);
    } else if (variable?.[1]) {
      variables.set(variable[1], variable[2] ?? '');
    } else {
      lines.push(content);
    }
  }
  return { description: lines.join(' ').trim(), hints, variables, fields, before };
}

/**
 * The file in `operations/before/` whose query reads what the write in `text` replaces: the one
 * its `# before: <file>` line names (writes replacing the same rows share one read), else `file`.
 */
export function beforeFileOf(text: string, file: string): string {
  return leadingComment(text).before ?? file;
}

/**
 * Private: the comment, then what a call costs or risks. The root fields' own descriptions are
 * left out: they speak of REST paths and GraphQL names, which are not tools.
 */
function describe(comment: string, writes: boolean): string {
  const parts = [comment];
  parts.push(
    writes
      ? 'Writes to the plan: call it once per intended change; when its outcome is unknown, check before calling again.'
      : 'Reads only; answers within the gateway max-age cost no upstream request.',
  );
  return parts.filter(Boolean).join('\n\n');
}
