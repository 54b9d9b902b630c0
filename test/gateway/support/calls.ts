/** Readers of the calls the sandbox recorded. */
import type { SandboxCall } from '@plans-gateway/sandbox';

/** The operation ids the sandbox received, optionally only those presented with `token`. */
export function operationsOf(calls: readonly SandboxCall[], token?: string): string[] {
  return calls
    .filter((call) => token === undefined || call.token === token)
    .map((call) => call.operationId ?? `${call.method} ${call.path}`);
}

/** `last_knowledge_of_server` of each getPlanById call: a number for a delta, null for a full export. */
export function planSyncs(calls: readonly SandboxCall[]): (number | null)[] {
  return calls
    .filter((call) => call.operationId === 'getPlanById')
    .map((call) => {
      const knowledge = call.query.last_knowledge_of_server;
      return knowledge === undefined ? null : Number(knowledge);
    });
}
