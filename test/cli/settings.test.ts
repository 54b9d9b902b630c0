/** Every environment rule of the gateway, without starting a process. */
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_CLUSTER,
  DEFAULT_DOCUMENT_CACHE,
  DEFAULT_LIMITS,
  DEFAULT_LIVE,
  DEFAULT_OPERATION_DEADLINE_MS,
  DEFAULT_PORT,
  DEFAULT_REST_CACHE_BYTES,
} from '../../src/config/config.js';
import { parseSettings, type Settings } from '../../src/config/settings.js';

function settings(env: Record<string, string>, options = {}): Settings {
  const parsed = parseSettings([], env, options);
  if (parsed.kind !== 'run') throw new Error(`expected settings, got ${JSON.stringify(parsed)}`);
  return parsed.settings;
}

function error(env: Record<string, string>): string {
  const parsed = parseSettings([], env);
  if (parsed.kind !== 'error') throw new Error(`expected an error, got ${JSON.stringify(parsed)}`);
  return parsed.message;
}

describe('parseSettings', () => {
  it('turns webhooks on only with a 32-byte key, and reads their settings', () => {
    expect(settings({}).webhooks).toBeUndefined();
    const hex = 'ab'.repeat(32);
    const base64 = Buffer.alloc(32, 7).toString('base64');
    expect(settings({ WEBHOOK_KEY: hex }).webhooks).toMatchObject({
      key: Buffer.from(hex, 'hex'),
      databasePath: './data/webhooks.db',
      allowPrivateTargets: false,
      timeoutMs: 10_000,
      retryWindowMs: 86_400_000,
    });
    expect(
      settings({
        WEBHOOK_KEY: base64,
        DATA_DIR: '/var/lib/gateway/',
        WEBHOOK_ALLOW_PRIVATE_TARGETS: 'on',
        WEBHOOK_TIMEOUT_SECONDS: '5',
        WEBHOOK_CONCURRENCY: '8',
        WEBHOOK_SECRET_OVERLAP_HOURS: '2',
        WEBHOOK_RETRY_HOURS: '48',
      }).webhooks,
    ).toMatchObject({
      key: Buffer.alloc(32, 7),
      databasePath: '/var/lib/gateway/webhooks.db',
      allowPrivateTargets: true,
      timeoutMs: 5_000,
      concurrency: 8,
      secretOverlapMs: 7_200_000,
      retryWindowMs: 172_800_000,
    });
    expect(settings({ WEBHOOK_KEY: hex, WEBHOOK_DB: '/tmp/w.db' }).webhooks?.databasePath).toBe(
      '/tmp/w.db',
    );
    const short = error({ WEBHOOK_KEY: 'c2hvcnQ=' });
    expect(short).toMatch(/^WEBHOOK_KEY must be 32 random bytes/);
    expect(short).not.toContain('c2hvcnQ');
    expect(error({ WEBHOOK_KEY: hex, WEBHOOK_TIMEOUT_SECONDS: '0' })).toContain(
      'WEBHOOK_TIMEOUT_SECONDS',
    );
  });

  it('reads the operator key as SEAL_KEY, or WEBHOOK_KEY its former name, and refuses two different ones', () => {
    const hex = 'ab'.repeat(32);
    const other = 'cd'.repeat(32);
    expect(settings({ SEAL_KEY: hex }).sealKey).toEqual(Buffer.from(hex, 'hex'));
    expect(settings({ SEAL_KEY: hex }).webhooks?.key).toEqual(Buffer.from(hex, 'hex'));
    expect(settings({ WEBHOOK_KEY: hex }).sealKey).toEqual(Buffer.from(hex, 'hex'));
    expect(settings({ SEAL_KEY: hex, WEBHOOK_KEY: hex }).sealKey).toEqual(Buffer.from(hex, 'hex'));
    const both = error({ SEAL_KEY: hex, WEBHOOK_KEY: other });
    expect(both).toMatch(/^SEAL_KEY and WEBHOOK_KEY differ/);
    expect(both).not.toContain(hex);
    expect(error({ SEAL_KEY: 'c2hvcnQ=' })).toMatch(/^SEAL_KEY must be 32 random bytes/);
  });

  it('turns sign-in on with an OAuth application, its secret, the public URL and the key', () => {
    const key = 'ab'.repeat(32);
    const upstream = { UPSTREAM_URL: 'https://api.ynab.com/v1' };
    const full = {
      ...upstream,
      OAUTH_CLIENT_ID: 'app',
      OAUTH_CLIENT_SECRET: 'secret',
      PUBLIC_URL: 'https://plans.example.com/',
      SEAL_KEY: key,
    };
    expect(settings({}).signIn).toBeUndefined();
    expect(settings(full).signIn).toEqual({
      clientId: 'app',
      clientSecret: 'secret',
      publicOrigin: 'https://plans.example.com',
      oauthOrigin: undefined,
      scope: undefined,
      databasePath: './data/sign-in.db',
      sessionTtlMs: 30 * 86_400_000,
    });
    expect(
      settings({ ...full, OAUTH_SCOPE: 'read-only', SESSION_DAYS: '7', SIGN_IN_DB: '/s.db' })
        .signIn,
    ).toMatchObject({ scope: 'read-only', sessionTtlMs: 7 * 86_400_000, databasePath: '/s.db' });
    expect(error({ ...full, OAUTH_CLIENT_SECRET: '' })).toMatch(
      /^OAUTH_CLIENT_ID needs OAUTH_CLIENT_SECRET/,
    );
    expect(error({ ...full, SEAL_KEY: '' })).toMatch(/^OAUTH_CLIENT_ID needs SEAL_KEY/);
    expect(error({ ...full, PUBLIC_URL: '' })).toMatch(/^OAUTH_CLIENT_ID needs PUBLIC_URL/);
    expect(error({ OAUTH_CLIENT_SECRET: 'secret' })).toMatch(
      /^OAUTH_CLIENT_SECRET needs OAUTH_CLIENT_ID/,
    );
    expect(error({ ...full, OAUTH_SCOPE: 'all' })).toMatch(/^OAUTH_SCOPE must be read-only/);
    const secretless = error({ ...full, OAUTH_SCOPE: 'all' });
    expect(secretless).not.toContain('secret"');
  });

  it('has development defaults', () => {
    expect(settings({})).toMatchObject({
      port: DEFAULT_PORT,
      host: '127.0.0.1',
      upstreamUrl: undefined,
      graphiql: true,
      introspection: true,
      metrics: true,
      metricsPort: undefined,
      logLevel: 'info',
      prettyLogs: false,
      compressionMinBytes: 1024,
      corsOrigins: '*',
      otlpEndpoint: undefined,
    });
  });

  it('reads the REST cache budget in MiB and the operation deadline in seconds', () => {
    expect(settings({})).toMatchObject({
      restCacheMaxBytes: DEFAULT_REST_CACHE_BYTES,
      operationDeadlineMs: DEFAULT_OPERATION_DEADLINE_MS,
    });
    expect(settings({ REST_CACHE_MAX_MB: '4', OPERATION_DEADLINE_SECONDS: '5' })).toMatchObject({
      restCacheMaxBytes: 4 * 1024 * 1024,
      operationDeadlineMs: 5_000,
    });
    expect(error({ OPERATION_DEADLINE_SECONDS: '0' })).toContain('OPERATION_DEADLINE_SECONDS');
    expect(error({ REST_CACHE_MAX_MB: 'lots' })).toContain('REST_CACHE_MAX_MB');
  });

  it('reads the document bound in bytes and the document cache budget in MiB', () => {
    expect(settings({})).toMatchObject({
      maxDocumentBytes: DEFAULT_LIMITS.documentBytes,
      documentCacheMaxBytes: DEFAULT_DOCUMENT_CACHE.maxBytes,
    });
    expect(settings({ MAX_DOCUMENT_BYTES: '20000', DOCUMENT_CACHE_MAX_MB: '8' })).toMatchObject({
      maxDocumentBytes: 20_000,
      documentCacheMaxBytes: 8 * 1024 * 1024,
    });
    // A document cannot be larger than the body that carries it.
    expect(error({ MAX_DOCUMENT_BYTES: String(DEFAULT_LIMITS.bodyBytes + 1) })).toContain(
      'MAX_DOCUMENT_BYTES must be an integer from 1024 to 1048576',
    );
    expect(error({ DOCUMENT_CACHE_MAX_MB: '0' })).toContain('DOCUMENT_CACHE_MAX_MB');
  });

  it('reads the subscription settings, in seconds where they are times', () => {
    expect(settings({}).live).toEqual(DEFAULT_LIVE);
    expect(
      settings({
        SUBSCRIPTION_BUDGET_SHARE: '0.25',
        SUBSCRIPTIONS_PER_TOKEN: '10',
        SUBSCRIPTIONS_PER_CONNECTION: '3',
        WS_HEARTBEAT_SECONDS: '5',
        WS_IDLE_SECONDS: '120',
        SUBSCRIPTION_EVENT_ROWS: '100',
        SUBSCRIPTION_EVENT_KB: '64',
        SUBSCRIPTION_PENDING_KB: '512',
        RECONCILE_HOURS: '6',
        CALLBACK_SUBSCRIPTIONS: '50',
        CALLBACK_HEARTBEAT_SECONDS: '30',
        WEBHOOK_ALLOW_PRIVATE_TARGETS: 'on',
      }).live,
    ).toEqual({
      budgetShare: 0.25,
      maxSubscriptionsPerToken: 10,
      maxSubscriptionsPerConnection: 3,
      heartbeatMs: 5_000,
      idleTimeoutMs: 120_000,
      eventRows: 100,
      eventBytes: 64 * 1024,
      pendingBytesPerSubscriber: 512 * 1024,
      reconcileMs: 6 * 3_600_000,
      maxCallbackSubscriptions: 50,
      maxCallbackHeartbeatMs: 30_000,
      callbackAllowPrivateTargets: true,
    });
    expect(DEFAULT_LIVE.reconcileMs).toBe(24 * 3_600_000);
    expect(settings({ RECONCILE_HOURS: '0' }).live.reconcileMs).toBe(0);
  });

  it.each([
    ['SUBSCRIPTION_BUDGET_SHARE', '0', 'a number above 0 and at most 1'],
    ['SUBSCRIPTION_BUDGET_SHARE', '1.5', 'a number above 0 and at most 1'],
    ['SUBSCRIPTION_BUDGET_SHARE', 'half', 'a number above 0 and at most 1'],
    ['SUBSCRIPTIONS_PER_TOKEN', '0', 'an integer from 1'],
    ['WS_IDLE_SECONDS', '-1', 'an integer from 1'],
    ['SUBSCRIPTION_EVENT_ROWS', '501', 'an integer from 1 to 500'],
    ['SUBSCRIPTION_PENDING_KB', '0', 'an integer from 1'],
    ['RECONCILE_HOURS', '169', 'an integer from 0 to 168'],
    ['RECONCILE_HOURS', 'daily', 'an integer from 0 to 168'],
  ])('refuses %s=%s, naming it', (name, value, expected) => {
    const message = error({ [name]: value });
    expect(message).toContain(name);
    expect(message).toContain(expected);
  });

  it('reads the Redis settings, and names the variable of a bad one without echoing a password', () => {
    expect(settings({})).toMatchObject({ redisUrl: undefined, cluster: DEFAULT_CLUSTER });
    expect(
      settings({
        REDIS_URL: 'redis://:secret@10.0.0.5:6380/2',
        REDIS_KEY_PREFIX: 'gw-prod:',
        REDIS_SNAPSHOT_TTL_SECONDS: '3600',
        REDIS_SNAPSHOT_MAX_MB: '16',
        REDIS_COMMAND_TIMEOUT_MS: '250',
      }),
    ).toMatchObject({
      redisUrl: 'redis://:secret@10.0.0.5:6380/2',
      cluster: {
        ...DEFAULT_CLUSTER,
        keyPrefix: 'gw-prod:',
        snapshotTtlMs: 3_600_000,
        maxSnapshotBytes: 16 * 1024 * 1024,
        commandTimeoutMs: 250,
      },
    });
    const wrongScheme = error({ REDIS_URL: 'http://user:secret@cache:6379' });
    expect(wrongScheme).toMatch(/^REDIS_URL must be a redis:\/\/ or rediss:\/\/ URL/);
    expect(wrongScheme).not.toContain('secret');
    expect(error({ REDIS_KEY_PREFIX: 'has space' })).toMatch(/^REDIS_KEY_PREFIX must be/);
    expect(error({ REDIS_SNAPSHOT_TTL_SECONDS: '5' })).toMatch(
      /^REDIS_SNAPSHOT_TTL_SECONDS must be an integer from 60/,
    );
    expect(error({ REDIS_SNAPSHOT_MAX_MB: '0' })).toMatch(/^REDIS_SNAPSHOT_MAX_MB must be/);
    expect(error({ REDIS_COMMAND_TIMEOUT_MS: '10' })).toMatch(
      /^REDIS_COMMAND_TIMEOUT_MS must be an integer from 50/,
    );
  });

  it('listens on loopback unless HOST says otherwise, before a real upstream too', () => {
    expect(settings({}).host).toBe('127.0.0.1');
    expect(settings({ UPSTREAM_URL: 'https://api.ynab.com/v1' }).host).toBe('127.0.0.1');
    expect(settings({ NODE_ENV: 'production', UPSTREAM_URL: 'https://api.ynab.com/v1' }).host).toBe(
      '127.0.0.1',
    );
    expect(settings({ HOST: '0.0.0.0' }).host).toBe('0.0.0.0');
  });

  it('turns GraphiQL and introspection off in production before a real upstream unless asked for', () => {
    const real = { NODE_ENV: 'production', UPSTREAM_URL: 'https://api.ynab.com/v1' };
    expect(settings(real)).toMatchObject({
      production: true,
      graphiql: false,
      introspection: false,
    });
    expect(settings({ ...real, GRAPHIQL: 'on', INTROSPECTION: 'true' })).toMatchObject({
      graphiql: true,
      introspection: true,
    });
  });

  it('keeps GraphiQL and introspection on for the embedded demo sandbox, in production too', () => {
    expect(settings({ NODE_ENV: 'production' })).toMatchObject({
      production: true,
      upstreamUrl: undefined,
      graphiql: true,
      introspection: true,
    });
    expect(settings({ NODE_ENV: 'production', GRAPHIQL: 'off' }).graphiql).toBe(false);
  });

  it('serves the subgraph endpoint unless SUBGRAPH is off, in production too', () => {
    expect(settings({}).subgraph).toBe(true);
    expect(settings({ NODE_ENV: 'production' }).subgraph).toBe(true);
    expect(settings({ SUBGRAPH: 'off' }).subgraph).toBe(false);
  });

  it('runs queries compiled unless COMPILED_QUERIES is off', () => {
    expect(settings({}).compiledQueries).toBe(true);
    expect(settings({ NODE_ENV: 'production' }).compiledQueries).toBe(true);
    expect(settings({ COMPILED_QUERIES: 'off' }).compiledQueries).toBe(false);
  });

  it('runs misses directly only when DIRECT_MISSES is on', () => {
    expect(settings({}).directMisses).toBe(true);
    expect(settings({ DIRECT_MISSES: 'off' }).directMisses).toBe(false);
  });

  it.each([
    ['on', true],
    ['true', true],
    ['1', true],
    ['ON', true],
    ['off', false],
    ['false', false],
    ['0', false],
    ['False', false],
  ])('reads the boolean %s as %s', (value, expected) => {
    expect(settings({ GRAPHIQL: value }).graphiql).toBe(expected);
    expect(settings({ INTROSPECTION: value }).introspection).toBe(expected);
    expect(settings({ SUBGRAPH: value }).subgraph).toBe(expected);
    expect(settings({ METRICS: value }).metrics).toBe(expected);
  });

  it('logs pretty on a terminal and JSON elsewhere, unless LOG_FORMAT says', () => {
    expect(settings({}, { stdoutIsTTY: true }).prettyLogs).toBe(true);
    expect(settings({ LOG_FORMAT: 'json' }, { stdoutIsTTY: true }).prettyLogs).toBe(false);
    expect(settings({ LOG_FORMAT: 'pretty' }).prettyLogs).toBe(true);
  });

  it('reads numbers, URLs and lists', () => {
    expect(
      settings({
        PORT: '0',
        MAX_AGE_SECONDS: '5',
        REPLICA_MAX_MB: '2',
        METRICS_PORT: '9464',
        SHUTDOWN_GRACE_MS: '2500',
        COMPRESSION_MIN_BYTES: 'off',
        UPSTREAM_URL: 'https://api.ynab.com/v1/',
        CORS_ORIGINS: 'https://a.example, http://localhost:5173',
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318',
        LOG_LEVEL: 'DEBUG',
      }),
    ).toMatchObject({
      port: 0,
      maxAgeMs: 5_000,
      replicaMaxBytes: 2 * 1024 * 1024,
      metricsPort: 9464,
      shutdownGraceMs: 2500,
      compressionMinBytes: false,
      upstreamUrl: 'https://api.ynab.com/v1',
      corsOrigins: ['https://a.example', 'http://localhost:5173'],
      otlpEndpoint: 'http://collector:4318',
      logLevel: 'debug',
    });
  });

  it('treats an empty variable as unset', () => {
    expect(settings({ PORT: '', GRAPHIQL: ' ' })).toMatchObject({
      port: DEFAULT_PORT,
      graphiql: true,
    });
  });

  it.each([
    [{ PORT: '99999' }, 'PORT must be an integer from 0 to 65535; got "99999"'],
    [{ PORT: 'eighty' }, 'PORT must be an integer from 0 to 65535; got "eighty"'],
    [{ PORT: '-1' }, 'PORT must be an integer'],
    [{ MAX_AGE_SECONDS: '1.5' }, 'MAX_AGE_SECONDS must be an integer'],
    [{ REPLICA_MAX_MB: '0' }, 'REPLICA_MAX_MB must be an integer from 1'],
    [{ METRICS_PORT: '65536' }, 'METRICS_PORT must be an integer from 0 to 65535'],
    [{ SHUTDOWN_GRACE_MS: 'soon' }, 'SHUTDOWN_GRACE_MS must be an integer'],
    [{ COMPRESSION_MIN_BYTES: 'maybe' }, 'COMPRESSION_MIN_BYTES must be an integer'],
    [{ GRAPHIQL: 'yes please' }, 'GRAPHIQL must be on or off'],
    [{ INTROSPECTION: '2' }, 'INTROSPECTION must be on or off'],
    [{ SUBGRAPH: 'federated' }, 'SUBGRAPH must be on or off'],
    [{ COMPILED_QUERIES: 'jit' }, 'COMPILED_QUERIES must be on or off'],
    [{ METRICS: 'enabled' }, 'METRICS must be on or off'],
    [
      { LOG_LEVEL: 'loud' },
      'LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent',
    ],
    [{ LOG_FORMAT: 'xml' }, 'LOG_FORMAT must be json or pretty'],
    [{ UPSTREAM_URL: 'api.ynab.com' }, 'UPSTREAM_URL must be an absolute http(s) URL'],
    [{ UPSTREAM_URL: 'ftp://api.ynab.com/v1' }, 'UPSTREAM_URL must use http or https'],
    [
      { UPSTREAM_URL: 'https://api.ynab.com' },
      'UPSTREAM_URL must end with the /v1 version segment',
    ],
    [{ CORS_ORIGINS: 'null' }, 'CORS_ORIGINS must list origins'],
    [{ CORS_ORIGINS: 'https://a.example/path' }, 'CORS_ORIGINS must list origins'],
    [
      { OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318' },
      'OTEL_EXPORTER_OTLP_ENDPOINT must use http or https',
    ],
  ])('refuses %j naming the variable', (env, message) => {
    expect(error(env)).toContain(message);
  });

  it('cuts a long bad value short in the message', () => {
    expect(error({ PORT: '9'.repeat(500) }).length).toBeLessThan(200);
  });

  it('answers --help and --version, and refuses other arguments', () => {
    expect(parseSettings(['--help'], {}).kind).toBe('help');
    expect(parseSettings(['-h'], {}).kind).toBe('help');
    expect(parseSettings(['--version'], {}).kind).toBe('version');
    expect(parseSettings(['--port', '1'], {})).toEqual({
      kind: 'error',
      message: "unknown argument '--port': settings are environment variables (see --help)",
    });
  });

  it('reads the client settings: extra CORS headers, persisted queries, trusted documents, HTTP caching', () => {
    expect(settings({})).toMatchObject({
      corsExtraHeaders: [],
      persistedQueries: true,
      trustedDocuments: undefined,
      httpCaching: true,
      answerCacheMaxBytes: 32 * 1024 * 1024,
    });
    expect(settings({ ANSWER_CACHE_MAX_MB: '0' })).toMatchObject({ answerCacheMaxBytes: 0 });
    expect(error({ ANSWER_CACHE_MAX_MB: '-1' })).toContain('ANSWER_CACHE_MAX_MB');
    expect(
      settings({
        CORS_ALLOWED_HEADERS: 'X-Team-Id, x-build',
        PERSISTED_QUERIES: 'off',
        TRUSTED_DOCUMENTS: 'dist/persisted-documents.json',
        TRUSTED_DOCUMENTS_ONLY: 'on',
        HTTP_CACHING: 'off',
      }),
    ).toMatchObject({
      corsExtraHeaders: ['x-team-id', 'x-build'],
      persistedQueries: false,
      trustedDocuments: { manifestPath: 'dist/persisted-documents.json', only: true },
      httpCaching: false,
    });
    expect(parseSettings([], { TRUSTED_DOCUMENTS_ONLY: 'on' })).toEqual({
      kind: 'error',
      message: 'TRUSTED_DOCUMENTS_ONLY needs TRUSTED_DOCUMENTS (the manifest path)',
    });
    expect(parseSettings([], { CORS_ALLOWED_HEADERS: 'x ok' })).toMatchObject({
      kind: 'error',
      message: expect.stringContaining('CORS_ALLOWED_HEADERS must list header names'),
    });
  });
});
