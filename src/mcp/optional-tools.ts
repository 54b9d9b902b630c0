/**
 * The two tools an operator may add (both off by default): `graphql`, any operation within the
 * gateway's limits (mutations only with writes on), and `search_schema`, the types and fields
 * whose name or description mentions some words. Both go through the same admission path as any
 * tool; `search_schema` reads the schema in memory and costs nothing upstream.
 */
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import {
  type GraphQLError,
  type GraphQLField,
  type GraphQLFormattedError,
  type GraphQLSchema,
  getOperationAST,
  isInputObjectType,
  isInterfaceType,
  isObjectType,
} from 'graphql';
import type { McpConfig } from '../config/config.js';
import { cleanError } from '../errors/use-error-hygiene.js';
import type { Gateway } from '../gateway/gateway.js';
import { prepareOperation } from '../server/run-operation.js';
import { QUOTED_CHARACTERS, quoted } from './quote.js';
import type { Caller } from './tool-runner.js';

export interface OptionalTool {
  readonly tool: Tool;
  /** A write: listed only when writes are on (and refused by `call` otherwise). */
  readonly writes?: boolean;
  call(args: Readonly<Record<string, unknown>>, caller: Caller): Promise<CallToolResult>;
}

/** How many matches `search_schema` answers at most. */
const SEARCH_RESULTS = 25;

export function optionalTools(
  gateway: Gateway,
  schema: GraphQLSchema,
  config: Pick<McpConfig, 'graphqlTool' | 'schemaSearch' | 'writes'>,
): OptionalTool[] {
  const tools: OptionalTool[] = [];
  if (config.graphqlTool) tools.push(graphqlTool(gateway, config.writes));
  if (config.schemaSearch) tools.push(schemaSearchTool(schema));
  return tools;
}

function graphqlTool(gateway: Gateway, writes: boolean): OptionalTool {
  return {
    tool: {
      name: 'graphql',
      title: 'GraphQL',
      description: `Runs one GraphQL operation against the plan graph (see search_schema for its types). Amounts are integer milliunits (1000 = 1.00 of the currency); each amount field \`x\` has \`xFormatted\` and \`xCurrency\` companions. ${writes ? 'Queries and mutations run; mutations write to the plan.' : 'Queries only: this server is read-only.'} Subscriptions do not run here: subscribe to a resource instead. The gateway's limits (depth, cost, aliases) apply.`,
      inputSchema: {
        type: 'object',
        properties: {
          query: { type: 'string', description: 'The GraphQL document.' },
          variables: { type: 'object', description: 'Its variables.' },
          operationName: {
            type: 'string',
            description: 'Which operation to run, when it holds several.',
          },
        },
        required: ['query'],
      },
      annotations: {
        title: 'GraphQL',
        readOnlyHint: !writes,
        destructiveHint: writes,
        idempotentHint: !writes,
        openWorldHint: false,
      },
    },
    async call(args, caller) {
      const { query, variables, operationName } = args;
      if (typeof query !== 'string')
        return error('Argument "query": the GraphQL document, as a string.');
      if (
        variables !== undefined &&
        (typeof variables !== 'object' || variables === null || Array.isArray(variables))
      )
        return error('Argument "variables": an object of the operation\'s variables.');
      if (operationName !== undefined && typeof operationName !== 'string')
        return error('Argument "operationName": a string.');
      const prepared = await prepareOperation(gateway, {
        query,
        variables: variables as Record<string, unknown> | undefined,
        operationName,
        presented: caller.presented,
        origin: caller.origin ?? null,
        ownOrigins: caller.ownOrigins ?? [],
        path: '/mcp',
      });
      if (!prepared.ok) return error(JSON.stringify({ errors: prepared.errors.map(forTool) }));
      const kind = getOperationAST(prepared.document, operationName)?.operation;
      if (kind === 'subscription')
        return error('Subscriptions do not run as a tool call: subscribe to a resource instead.');
      if (kind === 'mutation' && !writes)
        return error(
          'Mutations are refused: this server is read-only (the operator enables writes with MCP_WRITES=on). Nothing was changed.',
        );
      const result = await prepared.execute();
      const text = JSON.stringify({
        data: result.data ?? null,
        ...(result.errors ? { errors: result.errors.map(forTool) } : {}),
      });
      return { content: [{ type: 'text', text }], ...(result.data ? {} : { isError: true }) };
    },
  };
}

function schemaSearchTool(schema: GraphQLSchema): OptionalTool {
  return {
    tool: {
      name: 'search_schema',
      title: 'Search schema',
      description: `The GraphQL types and fields whose name or description mentions every given word (ignoring case), at most ${SEARCH_RESULTS}, each with its arguments, type and description: what to write in a graphql tool call.`,
      inputSchema: {
        type: 'object',
        properties: {
          words: {
            type: 'string',
            description: 'Such as "transaction memo" or "ready to assign".',
          },
        },
        required: ['words'],
      },
      annotations: {
        title: 'Search schema',
        readOnlyHint: true,
        destructiveHint: false,
        idempotentHint: true,
        openWorldHint: false,
      },
    },
    async call(args) {
      const words =
        typeof args.words === 'string' ? args.words.toLowerCase().split(/\s+/).filter(Boolean) : [];
      if (words.length === 0) return error('Argument "words": some words to look for.');
      const lines = searchSchema(schema, words).slice(0, SEARCH_RESULTS);
      const text =
        lines.length > 0
          ? lines.join('\n')
          : `Nothing in the schema mentions ${shortened(words.join(' '))}.`;
      return { content: [{ type: 'text', text }] };
    },
  };
}

/** Private: `Type.field(arg: T): Result: description` lines of the fields (and types) that match. */
function searchSchema(schema: GraphQLSchema, words: readonly string[]): string[] {
  const matches = (...texts: (string | null | undefined)[]) => {
    const haystack = texts.filter(Boolean).join(' ').toLowerCase();
    return words.every((word) => haystack.includes(word));
  };
  const lines: string[] = [];
  for (const type of Object.values(schema.getTypeMap())) {
    if (type.name.startsWith('__')) continue;
    if (matches(type.name, type.description))
      lines.push(`type ${type.name}: ${type.description ?? ''}`.trim());
    if (!isObjectType(type) && !isInterfaceType(type) && !isInputObjectType(type)) continue;
    for (const field of Object.values(type.getFields())) {
      if (!matches(type.name, field.name, field.description)) continue;
      const args =
        'args' in field && (field as GraphQLField<unknown, unknown>).args.length > 0
          ? `(${(field as GraphQLField<unknown, unknown>).args.map((a) => `${a.name}: ${String(a.type)}`).join(', ')})`
          : '';
      lines.push(
        `${type.name}.${field.name}${args}: ${String(field.type)}: ${field.description ?? ''}`.trim(),
      );
    }
  }
  return lines;
}

/** Private: an error as a tool answers it: cleaned as over HTTP, without the HTTP-only extension. */
function forTool(graphQLError: GraphQLError): GraphQLFormattedError {
  const clean = cleanError(graphQLError).toJSON();
  const { http: _httpOnly, ...extensions } = clean.extensions ?? {};
  return { ...clean, extensions };
}

/** Private: words as they were sent, or quoted and cut when long. */
function shortened(text: string): string {
  return text.length > QUOTED_CHARACTERS ? quoted(text) : text;
}

function error(text: string): CallToolResult {
  return { isError: true, content: [{ type: 'text', text }] };
}
