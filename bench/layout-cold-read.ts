/**
 * The hops of a cold read, for `bench/layout.ts`: the modules one cold GraphQL read goes
 * through from the HTTP server to the upstream client, and how often it comes back into
 * `src/server`.
 *
 * Method. The import graph alone cannot say it: the wiring hands functions down (a loader gets
 * the replica's fetch, yoga gets the plugins), so a read reaches modules its caller never
 * imports. So the chain is observed: the gateway's own CLI (`src/cli.ts`, with
 * `layout-trace.ts` loaded beside it) starts on a loopback port over a sandbox in this process,
 * answers `bench/dashboard.graphql` for a token it has never seen, and the tracer records the
 * call chain that led to its first upstream request (joined across promises, timers and batches
 * through `async_hooks`). The chain's frames are kept where they are in `src/`, from the first
 * in `src/server/http-server.ts` on, and a module that calls itself counts once, so each line is
 * one hop. Each hop then follows the imports: `import` where the caller's module imports the
 * callee's (statically or dynamically), `handed in` where it does not (the callee's function
 * reached it as a value: injected by the wiring, or a callback registered with it). Libraries
 * the call passes through between two hops are named beside it.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, normalize, relative } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { createSandbox } from '@plans-gateway/sandbox';
import ts from 'typescript';
import { homeOf, nodesOf, type SourceFile } from './layout-sources.js';
import type { ColdReadTrace } from './layout-trace.js';

const TOKEN = 'bench-layout-cold-read-token';
const SERVER = 'src/server';
const FIRST_MODULE = 'src/server/http-server.ts';
/** The chain ends at the first module of the upstream client: its insides are not hops. */
const UPSTREAM = 'src/upstream';
/** Bounds every wait on the child: its start, the read, its exit. */
const STEP_TIMEOUT_MS = 60_000;

export interface Hop {
  module: string;
  /** How the previous module reached this one (none for the first). */
  via?: 'import' | 'handed in';
  /** Libraries the call passed through on the way. */
  libraries: string[];
}

export interface ColdRead {
  request: string;
  hops: Hop[];
  /** The modules of `src/upstream` the call then passes through to the request, in order. */
  inUpstream: string[];
  /** Times the chain comes back into `src/server` after leaving it. */
  serverReentries: number;
}

export async function coldRead(root: string, files: readonly SourceFile[]): Promise<ColdRead> {
  const trace = await traceColdRead(root);
  const chain = hopsOf(trace.frames, root, importsOf(files));
  const end = chain.findIndex((hop) => homeOf(hop.module) === UPSTREAM);
  if (end < 0) throw new Error(`the traced chain never reached ${UPSTREAM}`);
  const hops = chain.slice(0, end + 1);
  let serverReentries = 0;
  for (let i = 1; i < hops.length; i++) {
    const inServer = homeOf(hops[i]!.module) === SERVER;
    const cameFromElsewhere = homeOf(hops[i - 1]!.module) !== SERVER;
    if (inServer && cameFromElsewhere) serverReentries++;
  }
  const inUpstream = chain.slice(end + 1).map((hop) => hop.module);
  return { request: trace.request, hops, inUpstream, serverReentries };
}

export function formatColdRead({ request, hops, inUpstream, serverReentries }: ColdRead): string {
  const rows = hops.map(
    (hop, index) =>
      `| ${index} | ${hop.module} | ${hop.via ?? 'entry'} | ${hop.libraries.join(', ') || '-'} |`,
  );
  return [
    `## Cold read: ${hops.length - 1} hops through ${hops.length} modules, re-entering ${SERVER} ${serverReentries} times`,
    '',
    `\`bench/dashboard.graphql\` for a new token, from the HTTP server to the first module of the upstream client, on the way to the first upstream request (${request}). Method: bench/layout-cold-read.ts.`,
    '',
    '| hop | module | reached by | through |',
    '| --- | --- | --- | --- |',
    ...rows,
    '',
    `Then inside the upstream client, to the request: ${inUpstream.join(' → ') || '(nothing more)'}.`,
  ].join('\n');
}

/** Runs the CLI with the tracer, sends one cold read, and returns what the tracer wrote. */
async function traceColdRead(root: string): Promise<ColdReadTrace> {
  const sandbox = await createSandbox({
    port: 0,
    rateLimit: false,
    users: [{ token: TOKEN, plans: [{ seed: 1, transactions: 200 }] }],
  });
  const dir = mkdtempSync(join(tmpdir(), 'bench-layout-'));
  const out = join(dir, 'trace.json');
  const tracer = fileURLToPath(new URL('./layout-trace.ts', import.meta.url));
  const child = spawn(process.execPath, ['--import', 'tsx', '--import', tracer, 'src/cli.ts'], {
    cwd: root,
    // Nothing of this shell's environment but PATH and HOME: a REDIS_URL or another setting
    // left there would change the path the read takes.
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      UPSTREAM_URL: sandbox.url,
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_FORMAT: 'json',
      LOG_LEVEL: 'info',
      LAYOUT_TRACE_OUT: out,
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  try {
    const url = await within(listeningUrl(child.stdout!), 'the gateway to listen');
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` },
      body: JSON.stringify({ query: readFileSync(join(root, 'bench/dashboard.graphql'), 'utf8') }),
      signal: AbortSignal.timeout(STEP_TIMEOUT_MS),
    });
    const answer = (await response.json()) as { data?: { plan?: unknown }; errors?: unknown };
    if (!response.ok || !answer.data?.plan) {
      throw new Error(`the cold read failed (${response.status}): ${JSON.stringify(answer)}`);
    }
    if (!existsSync(out)) {
      throw new Error('the read was answered, but the tracer saw no upstream request (not cold?)');
    }
    return JSON.parse(readFileSync(out, 'utf8')) as ColdReadTrace;
  } finally {
    child.kill('SIGTERM');
    await within(exited, 'the gateway to exit').catch(() => child.kill('SIGKILL'));
    await sandbox.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The `url` of the CLI's `listening` log line (JSON, one object a line). */
async function listeningUrl(stdout: NodeJS.ReadableStream): Promise<string> {
  for await (const line of createInterface({ input: stdout })) {
    if (!line.startsWith('{')) continue;
    const entry = JSON.parse(line) as { msg?: string; url?: string };
    if (entry.msg === 'listening' && entry.url) {
      stdout.resume(); // keep draining what it logs after
      return entry.url;
    }
  }
  throw new Error('the gateway exited before it logged "listening"');
}

function within<T>(promise: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`gave up waiting ${STEP_TIMEOUT_MS} ms for ${what}`)),
      STEP_TIMEOUT_MS,
    );
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** The file of a V8 frame (`at f (file:///a/b.ts:1:2)`, `at /a/b.ts:1:2`), or undefined. */
function fileOf(frame: string): string | undefined {
  const match = /(?:file:\/\/)?(\/[^\s()]+?):\d+:\d+\)?$/.exec(frame);
  return match?.[1];
}

function libraryOf(file: string): string | undefined {
  const match = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(file);
  return match?.[1];
}

function hopsOf(frames: readonly string[], root: string, imports: Map<string, Set<string>>): Hop[] {
  const hops: Hop[] = [];
  let libraries: string[] = [];
  for (const frame of frames) {
    const file = fileOf(frame);
    if (!file) continue;
    const library = libraryOf(file);
    if (library) {
      if (hops.length > 0 && !libraries.includes(library)) libraries.push(library);
      continue;
    }
    const module = relative(root, file);
    if (!module.startsWith('src/')) continue;
    if (hops.length === 0 && module !== FIRST_MODULE) continue;
    const last = hops.at(-1);
    if (last?.module === module) continue;
    hops.push({
      module,
      ...(last ? { via: imports.get(last.module)?.has(module) ? 'import' : 'handed in' } : {}),
      libraries,
    });
    libraries = [];
  }
  if (hops.length === 0) throw new Error(`the traced chain never passed ${FIRST_MODULE}`);
  return hops;
}

/** For each source file, the source files it imports or re-exports (relative specifiers only). */
function importsOf(files: readonly SourceFile[]): Map<string, Set<string>> {
  const graph = new Map<string, Set<string>>();
  for (const file of files) {
    const targets = new Set<string>();
    for (const node of nodesOf(file.ast)) {
      let specifier: ts.Expression | undefined;
      if (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) {
        specifier = node.moduleSpecifier;
      } else if (
        ts.isCallExpression(node) &&
        node.expression.kind === ts.SyntaxKind.ImportKeyword
      ) {
        specifier = node.arguments[0];
      }
      if (!specifier || !ts.isStringLiteral(specifier) || !specifier.text.startsWith('.')) continue;
      targets.add(normalize(join(dirname(file.path), specifier.text)).replace(/\.js$/, '.ts'));
    }
    graph.set(file.path, targets);
  }
  return graph;
}
