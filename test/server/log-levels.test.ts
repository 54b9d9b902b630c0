/** Which level an operation is logged at, and what its line holds. */
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger, logOperations } from '../../src/telemetry/logger.js';
import type { OperationReport } from '../../src/telemetry/operation-report.js';

const REPORT: OperationReport = {
  requestId: 'r-1',
  traceId: null,
  operationName: 'Dashboard',
  operationType: 'query',
  outcome: 'ok',
  verified: true,
  durationMs: 3.5,
  upstreamCalls: 1,
  upstreamOperations: { getPlanById: 1 },
  cacheHits: 2,
  stale: [],
  errorCodes: [],
};

async function logged(report: Partial<OperationReport>): Promise<Record<string, unknown>> {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(chunk.toString('utf8'));
      done();
    },
  });
  logOperations(await createLogger({ destination }))({ ...REPORT, ...report });
  expect(lines).toHaveLength(1);
  return JSON.parse(lines[0] as string) as Record<string, unknown>;
}

describe('operation log lines', () => {
  it('are info for a plain answer, with time, request id and cost, and no null trace id', async () => {
    const line = await logged({});
    expect(line).toMatchObject({
      level: 'info',
      msg: 'operation',
      requestId: 'r-1',
      operationName: 'Dashboard',
      upstreamOperations: { getPlanById: 1 },
      cacheHits: 2,
      stale: false,
    });
    expect(line).not.toHaveProperty('traceId');
    expect(typeof line.time).toBe('string');
  });

  it.each([
    [{ stale: [{ source: 'p', reason: 'RATE_LIMITED' as const, ageMs: 5 }] }, 'warn'],
    [{ errorCodes: ['UPSTREAM_UNAVAILABLE'], outcome: 'error' as const }, 'warn'],
    [{ errorCodes: ['RATE_LIMITED'], outcome: 'partial' as const }, 'warn'],
    [{ errorCodes: ['BAD_USER_INPUT'], outcome: 'error' as const }, 'info'],
    [{ errorCodes: ['INTERNAL_SERVER_ERROR'], outcome: 'partial' as const }, 'error'],
  ])('%j is logged at %s', async (report, level) => {
    expect((await logged(report)).level).toBe(level);
  });

  it('blank any token-named field a caller might log', async () => {
    const lines: string[] = [];
    const destination = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(chunk.toString('utf8'));
        done();
      },
    });
    const logger = await createLogger({ destination });
    logger.info(
      { token: 'secret-token-1', headers: { authorization: 'Bearer secret-token-2' } },
      'x',
    );
    expect(lines.join('')).not.toMatch(/secret-token/);
  });
});
