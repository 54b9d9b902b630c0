/**
 * Opt-in misbehaviour: added latency and injected faults, drawn from a seeded generator so a
 * test run is repeatable. Rules are checked in order; the first one that fires wins.
 */
import type { OperationId } from '@plans-gateway/rest-contract';
import type { FaultKind, FaultRule, LatencyOptions } from '../core/api.js';
import { createRandom, type Random } from '../core/random.js';
import { isWriteMethod } from './routes.js';

export const FAULT_KINDS: readonly FaultKind[] = [
  'status500',
  'status503',
  'hang',
  'drop',
  'malformed',
  'silent',
];

export interface FaultEngine {
  setRules(rules: readonly FaultRule[]): void;
  setLatency(latency: LatencyOptions): void;
  /** The fault this request gets, if any (counts towards the rule's `times`). */
  pick(operationId: OperationId | null, method: string): FaultKind | null;
  /** Milliseconds to wait before answering this request. */
  delayMs(): number;
}

interface ActiveRule {
  rule: FaultRule;
  used: number;
}

function checkRule(rule: FaultRule, index: number): void {
  if (!FAULT_KINDS.includes(rule.kind)) {
    throw new RangeError(
      `faults[${index}].kind must be one of ${FAULT_KINDS.join(', ')}, got ${String(rule.kind)}`,
    );
  }
  if (rule.rate !== undefined && !(rule.rate >= 0 && rule.rate <= 1)) {
    throw new RangeError(`faults[${index}].rate must be between 0 and 1, got ${rule.rate}`);
  }
  if (rule.times !== undefined && !(Number.isInteger(rule.times) && rule.times >= 0)) {
    throw new RangeError(
      `faults[${index}].times must be a non-negative integer, got ${rule.times}`,
    );
  }
}

function checkLatency(latency: LatencyOptions): void {
  for (const key of ['fixedMs', 'jitterMs'] as const) {
    const value = latency[key];
    if (value !== undefined && !(Number.isFinite(value) && value >= 0)) {
      throw new RangeError(`latency.${key} must be a non-negative number, got ${value}`);
    }
  }
}

export function createFaultEngine(
  seed: number,
  rules: readonly FaultRule[] = [],
  latency: LatencyOptions = {},
): FaultEngine {
  const random: Random = createRandom(seed, 0xfa17);
  let active: ActiveRule[] = [];
  let currentLatency: LatencyOptions = {};
  const engine: FaultEngine = {
    setRules(next) {
      next.forEach(checkRule);
      active = next.map((rule) => ({ rule: { ...rule }, used: 0 }));
    },
    setLatency(next) {
      checkLatency(next);
      currentLatency = { ...next };
    },
    pick(operationId, method) {
      for (const entry of active) {
        const { rule } = entry;
        if (rule.operationId !== undefined && rule.operationId !== operationId) continue;
        if (rule.method !== undefined && rule.method.toUpperCase() !== method) continue;
        if (rule.kind === 'silent' && !isWriteMethod(method)) continue;
        if (rule.times !== undefined && entry.used >= rule.times) continue;
        if (rule.rate !== undefined && rule.rate < 1 && !random.chance(rule.rate)) continue;
        entry.used++;
        return rule.kind;
      }
      return null;
    },
    delayMs() {
      const fixed = currentLatency.fixedMs ?? 0;
      const jitter = currentLatency.jitterMs ?? 0;
      return fixed + (jitter > 0 ? random.next() * jitter : 0);
    },
  };
  engine.setRules(rules);
  engine.setLatency(latency);
  return engine;
}
