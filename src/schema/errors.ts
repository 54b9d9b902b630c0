/**
 * Typed mutation failures: the refusals a client handles in its own flow. Each implements
 * `Error` (so `... on Error { message }` always works) and keeps the REST error verbatim in
 * `restError`. Failures outside this list (401, 429, 5xx, timeouts) are GraphQL errors.
 */

import type { UpstreamRestError } from '../errors/upstream-error.js';
import {
  DuplicateImportIdError,
  NotFoundError,
  ReadOnlyScopeError,
  ValidationError,
  type WriteRefusedError,
} from '../errors/write-refusals.js';
import type { FieldBuilder } from './amounts.js';
import { builder } from './builder.js';

export const ErrorInterface = builder.interfaceRef<Error>('Error').implement({
  description: 'A failure a client is expected to handle; select the concrete type for details.',
  fields: (t) => ({
    message: t.exposeString('message', { description: 'What went wrong, for people.' }),
  }),
});

export const RestError = builder.objectRef<UpstreamRestError>('RestError').implement({
  description: 'The error the REST interface answered, unchanged.',
  fields: (t) => ({
    status: t.exposeInt('status', { description: 'The HTTP status.' }),
    id: t.exposeString('id', { description: 'The REST `error.id`, e.g. `403.3` or `404.2`.' }),
    name: t.exposeString('name', {
      description: 'The REST `error.name`, e.g. `resource_not_found`.',
    }),
    detail: t.exposeString('detail', { description: 'The REST `error.detail`.' }),
  }),
});

function refusalFields(t: FieldBuilder<WriteRefusedError>) {
  return {
    restError: t.field({
      type: RestError,
      description: 'The REST error, verbatim.',
      resolve: (error) => error.restError,
    }),
  };
}

builder.objectType(ValidationError, {
  name: 'ValidationError',
  description: 'The upstream refused the input (REST 400); `restError.detail` says why.',
  interfaces: [ErrorInterface],
  fields: (t) => refusalFields(t),
});

builder.objectType(ReadOnlyScopeError, {
  name: 'ReadOnlyScopeError',
  description: 'The token has the read-only scope (REST 403.3); nothing was changed.',
  interfaces: [ErrorInterface],
  fields: (t) => refusalFields(t),
});

builder.objectType(NotFoundError, {
  name: 'NotFoundError',
  description: 'The plan or the entity to change does not exist (REST 404.1 / 404.2).',
  interfaces: [ErrorInterface],
  fields: (t) => refusalFields(t),
});

builder.objectType(DuplicateImportIdError, {
  name: 'DuplicateImportIdError',
  description:
    'The account already has a transaction with this import id (REST 409); nothing was created.',
  interfaces: [ErrorInterface],
  fields: (t) => ({
    ...refusalFields(t),
    importId: t.exposeString('importId', {
      nullable: true,
      description: 'The import id a transaction of the account already has.',
    }),
  }),
});

/** The typed failures of every mutation. */
export const WRITE_ERRORS = [ValidationError, ReadOnlyScopeError, NotFoundError];
/** The typed failures of a single transaction create. */
export const CREATE_TRANSACTION_ERRORS = [DuplicateImportIdError, ...WRITE_ERRORS];
