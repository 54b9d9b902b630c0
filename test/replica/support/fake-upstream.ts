/**
 * A counting stand-in for the REST client's getPlanById, over FakePlans per token, with plan
 * aliases, held responses (to interleave flights) and injected failures.
 */
import type { FetchPlanRequest, FetchPlanResult } from '../../../src/replica/store.js';
import type { StaleReason } from '../../../src/replica/types.js';
import type { FakePlan } from './fake-plan.js';

export class FakeUpstreamError extends Error {
  constructor(readonly status: number | 'network') {
    super(status === 'network' ? 'socket hang up' : `upstream answered ${status}`);
  }
}

/** The classification the gateway would use: 429, 5xx and network failures may go stale. */
export function classifyFailure(error: unknown): StaleReason | null {
  if (!(error instanceof FakeUpstreamError)) return null;
  if (error.status === 'network') return 'UPSTREAM_UNAVAILABLE';
  if (error.status === 429) return 'RATE_LIMITED';
  if (error.status >= 500) return 'UPSTREAM_ERROR';
  return null;
}

export interface RecordedCall {
  token: string;
  tokenKey: string;
  planId: string;
  lastKnowledgeOfServer: number | undefined;
}

interface Account {
  plans: Map<string, FakePlan>;
  aliases: Map<string, string>;
}

export function createFakeUpstream() {
  const accounts = new Map<string, Account>();
  const calls: RecordedCall[] = [];
  const failures: unknown[] = [];
  let held:
    | {
        promise: Promise<void>;
        applies: (request: FetchPlanRequest) => boolean;
        answerLate: boolean;
      }
    | undefined;
  /** Set to rewrite an answer before it is returned (malformed bodies). */
  let tamper: ((data: FetchPlanResult['data']) => unknown) | undefined;

  async function fetchPlan(request: FetchPlanRequest): Promise<FetchPlanResult> {
    calls.push({
      token: request.token,
      tokenKey: request.tokenKey,
      planId: request.planId,
      lastKnowledgeOfServer: request.lastKnowledgeOfServer,
    });
    const failure = failures.shift();
    const gate = held?.applies(request) ? held : undefined;
    // By default the answer is computed when the request arrives, then held; `answerLate`
    // holds the request first, as if the server took its time before reading its state.
    if (gate?.answerLate) await gate.promise;
    const answer = (() => {
      if (failure !== undefined) return { failure };
      const account = accounts.get(request.token);
      if (!account) return { failure: new FakeUpstreamError(401) };
      const planId = account.aliases.get(request.planId) ?? request.planId;
      const plan = account.plans.get(planId);
      if (!plan) return { failure: new FakeUpstreamError(404) };
      const data = plan.exportPlan(request.lastKnowledgeOfServer);
      return { data: (tamper ? tamper(data) : data) as FetchPlanResult['data'] };
    })();
    if (gate && !gate.answerLate) await gate.promise;
    if ('failure' in answer) throw answer.failure;
    return { data: answer.data, bytes: JSON.stringify(answer.data).length };
  }

  return {
    fetchPlan,
    calls,
    addToken(token: string, plans: FakePlan[], aliases: Record<string, string> = {}) {
      accounts.set(token, {
        plans: new Map(plans.map((plan) => [plan.id, plan])),
        aliases: new Map(Object.entries(aliases)),
      });
    },
    setAlias(token: string, alias: string, planId: string) {
      accounts.get(token)!.aliases.set(alias, planId);
    },
    /** The next calls fail with these errors, in order. */
    failNext(...errors: unknown[]) {
      failures.push(...errors);
    },
    /** Holds answers to calls made from now on (all, or those `applies` picks) until released. */
    hold(
      applies: (request: FetchPlanRequest) => boolean = () => true,
      { answerLate = false } = {},
    ) {
      let release!: () => void;
      const promise = new Promise<void>((resolve) => (release = resolve));
      held = { promise, applies, answerLate };
      return () => {
        held = undefined;
        release();
      };
    },
    setTamper(fn: typeof tamper) {
      tamper = fn;
    },
  };
}

export function createManualClock(start: number) {
  let time = start;
  return {
    now: () => time,
    advance(ms: number) {
      time += ms;
    },
  };
}

/** Lets queued promise callbacks run (several turns, for chained awaits). */
export async function settle(): Promise<void> {
  for (let i = 0; i < 20; i += 1) await Promise.resolve();
  await new Promise((resolve) => setImmediate(resolve));
}
