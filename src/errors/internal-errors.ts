import { GraphQLError } from 'graphql';
import type { Logger } from 'pino';
import { maskError } from './mask-error.js';

/**
 * The client sees "Unexpected error."; the log gets the error's class and stack frames, not its
 * message (a message may quote a URL or header holding a token).
 */
export function logInternalError(
  logger: Logger | undefined,
  error: unknown,
  message = 'internal error (masked as "Unexpected error.")',
): void {
  if (!logger) return;
  const original = error instanceof GraphQLError ? (error.originalError ?? error) : error;
  const frames =
    original instanceof Error ? (original.stack ?? '').split('\n').slice(1, 11).join('\n') : '';
  logger.error(
    {
      errorType: original instanceof Error ? original.name : typeof original,
      ...(error instanceof GraphQLError && error.path ? { path: error.path.join('.') } : {}),
      stack: frames,
    },
    message,
  );
}

/** yoga's `maskError`: masks as `maskError` does and logs what it masked as internal. */
export function maskAndLog(logger: Logger | undefined) {
  return (error: unknown, message: string): Error => {
    const masked = maskError(error, message);
    if (masked instanceof GraphQLError && masked.extensions.code === 'INTERNAL_SERVER_ERROR')
      logInternalError(logger, error);
    return masked;
  };
}

/**
 * What yoga's `handleError` makes of a throw while it runs an operation, with `mask` as its
 * `maskedErrors.maskError` (for a path that runs operations outside yoga's request handling).
 */
export function handledAsYoga(
  mask: (error: unknown, message: string) => Error,
  error: unknown,
): GraphQLError {
  const masked = mask(error, 'Unexpected error.');
  return masked instanceof GraphQLError
    ? masked
    : new GraphQLError(masked.message, { originalError: masked });
}
