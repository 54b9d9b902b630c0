/**
 * `writeFailure` in isolation: 403.1 (produced end to end in test/gateway/account-state.test.ts),
 * and what the sandbox cannot produce on demand (a 409 outside a single create, a refused
 * connection, an unreadable 2xx); and the date arithmetic of the rules.
 */
import type { OperationId } from '@plans-gateway/rest-contract';
import { GraphQLError } from 'graphql';
import { describe, expect, it } from 'vitest';
import {
  errorFromResponse,
  errorFromTransport,
  type FailedCall,
  malformedResponse,
} from '../../src/errors/upstream-error.js';
import {
  DuplicateImportIdError,
  NotFoundError,
  ReadOnlyScopeError,
  ValidationError,
  writeFailure,
} from '../../src/errors/write-refusals.js';
import { addYears } from '../../src/schema/input-checks.js';

function call(operationId: OperationId, method: FailedCall['method'] = 'POST'): FailedCall {
  return { operationId, method, attempt: 1, redact: (text) => text };
}

function rest(id: string, name: string, detail = 'detail text'): string {
  return JSON.stringify({ error: { id, name, detail } });
}

describe('writeFailure', () => {
  it.each([
    [400, '400', 'bad_request', ValidationError],
    [403, '403.3', 'unauthorized_scope', ReadOnlyScopeError],
    [404, '404.1', 'not_found', NotFoundError],
    [404, '404.2', 'resource_not_found', NotFoundError],
  ] as const)('%i %s becomes a typed refusal keeping the REST error', (status, id, name, type) => {
    const error = writeFailure(errorFromResponse(call('createPayee'), status, rest(id, name)));
    expect(error).toBeInstanceOf(type);
    expect((error as InstanceType<typeof type>).restError).toEqual({
      status,
      id,
      name,
      detail: 'detail text',
    });
    expect(error.message).toContain('detail text');
  });

  it('409 on a single create is a DuplicateImportIdError naming the import id', () => {
    const error = writeFailure(
      errorFromResponse(call('createTransaction'), 409, rest('409', 'conflict')),
      { importId: 'abc' },
    );
    expect(error).toBeInstanceOf(DuplicateImportIdError);
    expect((error as DuplicateImportIdError).importId).toBe('abc');
  });

  it.each([
    ['a bulk update', call('updateTransactions', 'PATCH')],
    ['a batch create', call('createTransaction')],
  ])('409 on %s stays a CONFLICT GraphQL error', (_what, failed) => {
    const error = writeFailure(errorFromResponse(failed, 409, rest('409', 'conflict')), {
      safeToRetryWithSameImportId: true,
    });
    expect(error).toBeInstanceOf(GraphQLError);
    expect((error as GraphQLError).extensions).toMatchObject({
      code: 'CONFLICT',
      upstream: { id: '409' },
    });
  });

  it.each([
    ['403.1', 'subscription_lapsed', 'SUBSCRIPTION_LAPSED'],
    ['403.2', 'trial_expired', 'TRIAL_EXPIRED'],
    ['403.4', 'data_limit_reached', 'DATA_LIMIT_REACHED'],
  ])('403 %s stays a GraphQL error with code %s', (id, name, code) => {
    const error = writeFailure(errorFromResponse(call('createPayee'), 403, rest(id, name)));
    expect(error).toBeInstanceOf(GraphQLError);
    expect((error as GraphQLError).extensions).toMatchObject({
      code,
      upstream: { status: 403, id, name },
    });
    expect((error as GraphQLError).extensions.outcomeUnknown).toBeUndefined();
  });

  it('a refused connection: certainly not applied, so no outcome warning', () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
    const error = writeFailure(errorFromTransport(call('createTransaction'), refused, null), {
      safeToRetryWithSameImportId: true,
    });
    expect((error as GraphQLError).extensions).toMatchObject({ code: 'UPSTREAM_UNAVAILABLE' });
    expect((error as GraphQLError).extensions.outcomeUnknown).toBeUndefined();
    expect((error as GraphQLError).extensions.safeToRetryWithSameImportId).toBeUndefined();
  });

  it('an unreadable 2xx answer to a write: the outcome is unknown', () => {
    const error = writeFailure(
      malformedResponse(call('updateTransaction', 'PUT'), 200, 'not JSON'),
    );
    expect((error as GraphQLError).extensions).toMatchObject({
      code: 'UPSTREAM_ERROR',
      outcomeUnknown: true,
      safeToRetryWithSameImportId: false,
    });
  });

  it('anything that is not an upstream failure passes through (and is masked later)', () => {
    const bug = new TypeError('boom');
    expect(writeFailure(bug)).toBe(bug);
  });
});

describe('addYears', () => {
  it.each([
    ['2025-06-15', 5, '2030-06-15'],
    ['2028-02-29', 5, '2033-02-28'],
    ['2028-02-29', 4, '2032-02-29'],
    ['2025-12-31', 5, '2030-12-31'],
  ])('%s + %i years = %s', (date, years, expected) => {
    expect(addYears(date, years)).toBe(expected);
  });
});
