/** Readers of the upstream calls the sandbox recorded, per token, for the cluster suites. */
import type { Sandbox } from '@plans-gateway/sandbox';

/** The upstream requests a token made, as `operationId` with `(delta)` for delta requests. */
export function callsOf(sandbox: Sandbox, token: string): string[] {
  return sandbox
    .calls()
    .filter((call) => call.token === token)
    .map(
      (call) =>
        `${call.operationId ?? `${call.method} ${call.path}`}${
          call.query.last_knowledge_of_server === undefined ? '' : ' (delta)'
        }`,
    );
}

/** Full plan exports of a token: `getPlanById` without `last_knowledge_of_server`. */
export function exportsOf(sandbox: Sandbox, token: string): number {
  return callsOf(sandbox, token).filter((call) => call === 'getPlanById').length;
}

/** Requests the upstream accepted for a token (429s do not count, as the gateway does not). */
export function acceptedCallsOf(sandbox: Sandbox, token: string): number {
  return sandbox.calls().filter((call) => call.token === token && call.status !== 429).length;
}
