import { type Logger, pino } from 'pino';
import type { LogLevel } from '../config/settings.js';
import type { OperationReport, OperationReportSink } from './operation-report.js';

export type { Logger } from 'pino';

export interface LoggerOptions {
  /** @default 'info' */
  level?: LogLevel;
  /** Human-readable lines (pino-pretty, loaded only then) instead of JSON. @default false */
  pretty?: boolean;
  /** Where JSON lines go. @default stdout */
  destination?: NodeJS.WritableStream;
}

/** Fields that would hold a credential if some caller ever logged one; pino blanks them. */
const REDACTED = [
  'authorization',
  'token',
  'accessToken',
  '*.authorization',
  '*.token',
  '*.accessToken',
  'headers.authorization',
  '*.headers.authorization',
];

/** JSON lines with an ISO time and a level name, or pretty lines on a terminal. */
export async function createLogger({
  level = 'info',
  pretty = false,
  destination,
}: LoggerOptions = {}): Promise<Logger> {
  const options = {
    level,
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label: string) => ({ level: label }) },
    redact: { paths: REDACTED, censor: '[redacted]' },
  };
  if (pretty) {
    const { default: prettyStream } = await import('pino-pretty');
    return pino(
      options,
      prettyStream({
        colorize: true,
        sync: true,
        translateTime: 'SYS:HH:MM:ss.l',
        ignore: 'pid,hostname',
        ...(destination ? { destination } : {}),
      }),
    );
  }
  return destination ? pino(options, destination) : pino(options);
}

/**
 * One line per operation. Warn when the answer was degraded (served stale, or the upstream
 * failed or limited it), error when the gateway itself failed (a masked internal error).
 */
export function logOperations(logger: Logger): OperationReportSink {
  return (report) => {
    const { stale, traceId, ...rest } = report;
    const line = {
      ...rest,
      ...(traceId === null ? {} : { traceId }),
      stale: stale.length > 0,
      ...(stale.length > 0 ? { staleReasons: [...new Set(stale.map((s) => s.reason))] } : {}),
    };
    logger[levelOf(report)](line, 'operation');
  };
}

const DEGRADED = new Set(['UPSTREAM_UNAVAILABLE', 'UPSTREAM_ERROR', 'RATE_LIMITED']);

function levelOf(report: OperationReport): 'info' | 'warn' | 'error' {
  if (report.errorCodes.includes('INTERNAL_SERVER_ERROR')) return 'error';
  if (
    report.stale.length > 0 ||
    report.wouldRefuse !== undefined ||
    report.errorCodes.some((code) => DEGRADED.has(code))
  )
    return 'warn';
  return 'info';
}
