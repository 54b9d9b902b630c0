/** What `miss-path.ts` and its server processes (`miss-path-server.ts`) share. */
import { readFileSync } from 'node:fs';

export const MISS_PATH_TOKEN = 'bench-miss-path-token';
export const DASHBOARD = readFileSync(new URL('../dashboard.graphql', import.meta.url), 'utf8');

/** What the parent sends a server: the floor's answer first, CPU questions, then exit. */
export type ServerMessage =
  | { readonly answer: Record<string, unknown> }
  | { readonly cpu: true }
  | { readonly exit: true };

/** What a server side answers. */
export type ServerReply =
  | { readonly ports: Readonly<Record<string, number>> }
  | { readonly cpuMicros: number };
