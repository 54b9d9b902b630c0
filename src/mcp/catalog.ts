/**
 * The tools a gateway offers: the curated operations of `operations/*.graphql` (shipped beside
 * this module; `npm run build` copies them into `dist/`), and, when configured, the named
 * queries and mutations of the trusted-documents manifest. Built once per gateway; every session
 * lists the same tools.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { type GraphQLSchema, Kind, parse, print } from 'graphql';
import { loadDocumentManifest } from '../admission/trusted-documents.js';
import type { McpConfig } from '../config/config.js';
import {
  beforeFileOf,
  type ToolDefinition,
  toolFromDocument,
  withBefore,
} from './tool-definition.js';

const OPERATIONS = new URL('./operations/', import.meta.url);

export interface ToolCatalog {
  /** Every tool, writes included, by name. */
  readonly tools: ReadonlyMap<string, ToolDefinition>;
  /** Manifest operations left out, and why (a name taken, a subscription...). */
  readonly skipped: readonly string[];
}

/** The curated operations, as `{ file, text }`, in file name order. */
export function curatedDocuments(): { file: string; text: string }[] {
  return readdirSync(OPERATIONS)
    .filter((file) => file.endsWith('.graphql'))
    .sort()
    .map((file) => ({ file, text: readOperation(file) }));
}

/**
 * The text of `operations/<file>`, followed by the shared fragments it spreads (from
 * `operations/fragments/`, those they spread too): selections several tools make alike are
 * written once.
 */
export function readOperation(file: string): string {
  const text = readFileSync(new URL(file, OPERATIONS), 'utf8');
  const fragments = sharedFragments();
  const needed = new Set<string>();
  const visit = (source: string) => {
    for (const [, name] of source.matchAll(/\.\.\.\s*([_A-Za-z]\w*)/g)) {
      if (!name || name === 'on' || needed.has(name)) continue;
      const fragment = fragments.get(name);
      if (!fragment) continue;
      needed.add(name);
      visit(fragment);
    }
  };
  visit(text);
  return [text, ...[...needed].map((name) => fragments.get(name))].join('\n');
}

let fragmentCache: ReadonlyMap<string, string> | undefined;

/** Private: the shared fragments by name, as printed definitions (read once). */
function sharedFragments(): ReadonlyMap<string, string> {
  if (fragmentCache) return fragmentCache;
  const found = new Map<string, string>();
  const directory = new URL('fragments/', OPERATIONS);
  for (const file of readdirSync(directory)
    .filter((f) => f.endsWith('.graphql'))
    .sort())
    for (const definition of parse(readFileSync(new URL(file, directory), 'utf8')).definitions)
      if (definition.kind === Kind.FRAGMENT_DEFINITION)
        found.set(definition.name.value, print(definition));
  fragmentCache = found;
  return found;
}

/**
 * The read of what a write replaces (`operations/before/<file>`), when the write has one; a
 * `# before:` line naming a file that is not there is a mistake in the write's document.
 */
function beforeDocument(file: string, text: string): { file: string; text: string } | undefined {
  const named = beforeFileOf(text, file);
  const url = new URL(`before/${named}`, OPERATIONS);
  if (existsSync(url)) return { file: named, text: readOperation(`before/${named}`) };
  if (named !== file) throw new Error(`${file}: # before: ${named} is not in operations/before/`);
  return undefined;
}

export function buildCatalog(
  schema: GraphQLSchema,
  config: Pick<McpConfig, 'trustedDocumentTools'>,
  manifestPath: string | undefined,
): ToolCatalog {
  const tools = new Map<string, ToolDefinition>();
  for (const { file, text } of curatedDocuments()) {
    const before = beforeDocument(file, text);
    const tool = withBefore(
      toolFromDocument(schema, text, `src/mcp/operations/${file}`),
      before
        ? toolFromDocument(schema, before.text, `src/mcp/operations/before/${before.file}`)
        : undefined,
    );
    if (tools.has(tool.name)) throw new Error(`${file}: a second tool named ${tool.name}`);
    tools.set(tool.name, tool);
  }
  const skipped: string[] = [];
  if (config.trustedDocumentTools && manifestPath) {
    for (const [hash, text] of loadDocumentManifest(manifestPath)) {
      let tool: ToolDefinition;
      try {
        tool = toolFromDocument(schema, text, `manifest entry ${hash.slice(0, 12)}`);
      } catch (error) {
        skipped.push(error instanceof Error ? error.message : String(error));
        continue;
      }
      if (tools.has(tool.name)) {
        skipped.push(`manifest operation ${tool.operationName}: the tool ${tool.name} exists`);
        continue;
      }
      tools.set(tool.name, tool);
    }
  }
  return { tools, skipped };
}
