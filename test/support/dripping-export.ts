/**
 * A plan export (`getPlanById` without `last_knowledge_of_server`) the hostile upstream sends in
 * `pieces` parts, each when the test calls `release()`: a cold load as slow as the test says.
 */
import type { HostileRule } from './hostile-upstream.js';
import { until } from './wait.js';

export interface DrippingExport {
  /** For the hostile upstream's rules. */
  readonly rule: HostileRule;
  /** Sends the next part and waits until it is on the socket and the gateway's loop turned. */
  release(): Promise<void>;
}

/** Every export drips; with `token`, only that token's first one (the others pass). */
export function drippingExport(pieces: number, { token }: { token?: string } = {}): DrippingExport {
  const gates: (() => void)[] = [];
  let dripping = false;
  let sent = 0;
  let asked = 0;
  const rule: HostileRule = (request) => {
    const isExport =
      request.operationId === 'getPlanById' && !request.query.has('last_knowledge_of_server');
    if (!isExport || (token !== undefined && (dripping || request.token !== token)))
      return { kind: 'pass' };
    dripping = true;
    return {
      kind: 'drip',
      pieces,
      next: () => new Promise<void>((resolve) => gates.push(resolve)),
      sent: () => {
        sent += 1;
      },
    };
  };
  return {
    rule,
    async release() {
      asked += 1;
      await until(() => gates.length > 0, 'the next part to be asked for');
      gates.shift()!();
      await until(() => sent >= asked, 'the part to be sent');
      let turns = 0;
      await until(() => ++turns > 2, 'two turns of the event loop');
    },
  };
}
