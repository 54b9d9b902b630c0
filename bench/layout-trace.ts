/**
 * Loaded into the gateway's CLI process by `layout-cold-read.ts` (`node --import tsx --import
 * bench/layout-trace.ts src/cli.ts`): from the first HTTP request the server receives, it notes
 * for every asynchronous resource the stack that created it and the resource it was created in
 * (`async_hooks`); at the first request the upstream client makes (undici's `undici:request:create`
 * channel), it joins those stacks from that request back to the HTTP server's, which is the whole
 * causal chain of calls even where it crosses a promise, a timer or a DataLoader batch, and
 * writes it to `LAYOUT_TRACE_OUT` as JSON (`ColdReadTrace`). It changes nothing the gateway does.
 */
import { createHook, executionAsyncId } from 'node:async_hooks';
import { subscribe } from 'node:diagnostics_channel';
import { writeFileSync } from 'node:fs';

export interface ColdReadTrace {
  /** Stack frames, oldest call first, as V8 prints them (`at name (file:line:column)`). */
  frames: string[];
  /** The upstream request the chain ends in (`GET /plans/.../export`...). */
  request: string;
}

const out = process.env.LAYOUT_TRACE_OUT;
if (!out) throw new Error('layout-trace: set LAYOUT_TRACE_OUT to the file to write the chain to');

Error.stackTraceLimit = 200;
const origins = new Map<number, { parent: number; stack: string }>();
let done = false;
const hook = createHook({
  init(asyncId) {
    origins.set(asyncId, { parent: executionAsyncId(), stack: new Error().stack ?? '' });
  },
});

subscribe('http.server.request.start', () => {
  if (!done) hook.enable();
});

subscribe('undici:request:create', (message) => {
  if (done) return;
  done = true;
  hook.disable();
  const { request } = message as { request: { method?: string; path?: string } };
  // Newest first: this call's stack, then the stack that created each resource it runs in.
  const stacks = [new Error().stack ?? ''];
  const seen = new Set<number>();
  for (let id = executionAsyncId(); origins.has(id) && !seen.has(id); ) {
    seen.add(id);
    const origin = origins.get(id)!;
    stacks.push(origin.stack);
    id = origin.parent;
  }
  const frames = stacks
    .flatMap((stack) => stack.split('\n').slice(1))
    .map((line) => line.trim())
    // `at async f` lines repeat what the resources' own stacks hold, out of order.
    .filter((line) => line.startsWith('at ') && !line.startsWith('at async '))
    .reverse();
  const trace: ColdReadTrace = {
    frames,
    request: `${request.method ?? '?'} ${request.path ?? '?'}`,
  };
  writeFileSync(out, JSON.stringify(trace));
  origins.clear();
});
