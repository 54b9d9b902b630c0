/**
 * The error catalogue: every `extensions.code` the gateway answers with, each with its meaning in
 * one line, as data. `ErrorCode` is derived from it, so a code is added here or nowhere: the
 * table of docs/graph.md#errors is checked against this list (test/docs/links.test.ts), and
 * `test/errors/catalogue.test.ts` fails when another module lists codes of its own.
 * Codes that graphql-yoga adds on its own (`GRAPHQL_VALIDATION_FAILED`, ...) are its own and not
 * repeated here; the ones the gateway's admission path answers with itself are.
 * Nothing in this file knows GraphQL, so the upstream client's errors can name their codes.
 */

/** Where a code comes from: an upstream answer translated, or the gateway's own refusal. */
export type ErrorSource = 'upstream' | 'gateway';

interface CatalogueEntry {
  readonly source: ErrorSource;
  /** What the code means, in one line. */
  readonly meaning: string;
}

export const ERROR_CATALOGUE = {
  BAD_REQUEST: {
    source: 'upstream',
    meaning: 'The upstream refused the request as malformed (400, or a 4xx it does not list).',
  },
  UNAUTHENTICATED: {
    source: 'upstream',
    meaning: 'No usable access token, or one the upstream refused (401).',
  },
  SUBSCRIPTION_LAPSED: {
    source: 'upstream',
    meaning: "The account's subscription has lapsed (403.1).",
  },
  TRIAL_EXPIRED: { source: 'upstream', meaning: "The account's trial has expired (403.2)." },
  READ_ONLY_SCOPE: {
    source: 'upstream',
    meaning: 'The token was granted read-only access and the operation writes (403.3).',
  },
  DATA_LIMIT_REACHED: {
    source: 'upstream',
    meaning: 'The request would exceed the data limits of the upstream (403.4).',
  },
  FORBIDDEN: {
    source: 'upstream',
    meaning: 'A 403 whose REST id is none of 403.1 to 403.4 (not in the interface; kept distinct).',
  },
  NOT_FOUND: {
    source: 'upstream',
    meaning: 'The plan or the resource named does not exist (404).',
  },
  CONFLICT: { source: 'upstream', meaning: 'The write conflicts with what the plan holds (409).' },
  RATE_LIMITED: {
    source: 'upstream',
    meaning: "Over the token's request quota: the upstream's 429, or not sent by the gateway.",
  },
  UPSTREAM_ERROR: {
    source: 'upstream',
    meaning: 'The upstream failed (500, another status) or answered something unusable.',
  },
  UPSTREAM_UNAVAILABLE: {
    source: 'upstream',
    meaning: 'The upstream could not be reached or answered too late (503, network, deadline).',
  },
  GRAPHQL_PARSE_FAILED: {
    source: 'gateway',
    meaning: 'The document is not GraphQL (a syntax error); the code yoga and Apollo use.',
  },
  BAD_USER_INPUT: {
    source: 'gateway',
    meaning: 'An argument or variable refused before any upstream call; the message names it.',
  },
  OPERATION_TOO_COMPLEX: {
    source: 'gateway',
    meaning:
      'Over a limit of the admission path: bytes, tokens, nesting, aliases, directives, depth, breadth, cost.',
  },
  INTROSPECTION_DISABLED: {
    source: 'gateway',
    meaning: 'Introspection is off (`INTROSPECTION=off`, the production default).',
  },
  PERSISTED_QUERY_NOT_FOUND: {
    source: 'gateway',
    meaning:
      'A hash-only request (automatic persisted queries) names a text not registered yet: send the text with it.',
  },
  PERSISTED_QUERY_NOT_IN_LIST: {
    source: 'gateway',
    meaning: 'A trusted-documents gateway got a document it does not hold.',
  },
  PERSISTED_QUERY_ONLY: {
    source: 'gateway',
    meaning: "A trusted-documents gateway got a document's text instead of its hash.",
  },
  FORBIDDEN_ORIGIN: { source: 'gateway', meaning: 'A browser origin outside `CORS_ORIGINS`.' },
  TOO_MANY_SUBSCRIPTIONS: {
    source: 'gateway',
    meaning:
      'Over the subscriptions allowed per token, per connection, or by HTTP callback per instance.',
  },
  SUBSCRIBER_TOO_SLOW: {
    source: 'gateway',
    meaning:
      'A subscriber stopped reading while more than the gateway keeps for it waited; subscribe again with `since`.',
  },
  NOT_ACCEPTABLE: {
    source: 'gateway',
    meaning:
      'An answer in parts (`@defer`, `@stream`, a subscription) asked for with an `Accept` of one JSON body (HTTP 406).',
  },
  SHUTTING_DOWN: {
    source: 'gateway',
    meaning: 'The gateway is stopping; a subscription ends with this.',
  },
  WEBHOOKS_DISABLED: {
    source: 'gateway',
    meaning: 'Webhooks are off: no `WEBHOOK_KEY`, or one that does not open the webhook store.',
  },
  WEBHOOKS_UNAVAILABLE: {
    source: 'gateway',
    meaning:
      'The webhook store (Redis) did not answer within `REDIS_COMMAND_TIMEOUT_MS`: the call failed at once.',
  },
  SIGN_IN_UNAVAILABLE: {
    source: 'gateway',
    meaning:
      "Sign-in's store (Redis) did not answer, so a session or a gateway access token could not be checked (HTTP 503): try again.",
  },
  REQUEST_ENTITY_TOO_LARGE: {
    source: 'gateway',
    meaning:
      "A request body over `limits.bodyBytes` (HTTP 413); yoga's code, as its limiter answers.",
  },
  AMOUNT_BEYOND_JSON: {
    source: 'gateway',
    meaning:
      'An amount past ±(2^53 − 1) milliunits, which a JSON number cannot carry exactly: its `…Formatted` text shows every digit.',
  },
  INTERNAL_SERVER_ERROR: {
    source: 'gateway',
    meaning: 'A failure the gateway did not expect, masked.',
  },
} as const satisfies Readonly<Record<string, CatalogueEntry>>;

/** Every `extensions.code` the gateway answers with. */
export type ErrorCode = keyof typeof ERROR_CATALOGUE;

/** The codes from one source: `ErrorCodeFrom<'upstream'>` are those `gatewayErrorCode` gives. */
export type ErrorCodeFrom<Source extends ErrorSource> = {
  [Code in ErrorCode]: (typeof ERROR_CATALOGUE)[Code]['source'] extends Source ? Code : never;
}[ErrorCode];
