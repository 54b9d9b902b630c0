import { describe, expect, it } from 'vitest';
import {
  type CliParse,
  DEFAULT_CLI_PORT,
  parseCliOptions,
  sandboxOptionsOf,
} from '../../src/cli-options.js';

function settingsOf(parse: CliParse) {
  if (parse.kind !== 'run') throw new Error(`expected settings, got ${JSON.stringify(parse)}`);
  return parse.settings;
}

function errorOf(parse: CliParse): string {
  if (parse.kind !== 'error') throw new Error(`expected an error, got ${JSON.stringify(parse)}`);
  return parse.message;
}

describe('sandbox CLI options', () => {
  it('has defaults for everything', () => {
    const settings = settingsOf(parseCliOptions([], {}));
    expect(settings).toMatchObject({
      port: DEFAULT_CLI_PORT,
      host: '127.0.0.1',
      transactions: 1200,
      seed: 1,
      latencyMs: 0,
      faults: [],
      rateLimit: 200,
    });
    expect(settings.token).not.toBe(settings.readOnlyToken);
  });

  it('reads flags in both forms, and flags win over environment variables', () => {
    const settings = settingsOf(
      parseCliOptions(
        [
          '--port',
          '4100',
          '--token=abc',
          '--read-only-token',
          'ro',
          '--transactions',
          '100000',
          '--seed',
          '7',
          '--latency',
          '25',
        ],
        {
          SANDBOX_PORT: '5000',
          SANDBOX_SEED: '3',
          SANDBOX_JITTER_MS: '10',
        },
      ),
    );
    expect(settings).toMatchObject({
      port: 4100,
      token: 'abc',
      readOnlyToken: 'ro',
      transactions: 100_000,
      seed: 7,
      latencyMs: 25,
      jitterMs: 10,
    });
  });

  it('reads every setting from the environment', () => {
    const settings = settingsOf(
      parseCliOptions([], {
        SANDBOX_PORT: '0',
        SANDBOX_TOKEN: 'env-token',
        SANDBOX_READ_ONLY_TOKEN: 'env-ro',
        SANDBOX_TRANSACTIONS: '50',
        SANDBOX_SEED: '9',
        SANDBOX_LATENCY_MS: '5',
        SANDBOX_RATE_LIMIT: 'off',
        SANDBOX_FAULTS: 'status503,rate=0.5;hang,op=getPlanById,times=1',
      }),
    );
    expect(settings).toMatchObject({
      port: 0,
      token: 'env-token',
      readOnlyToken: 'env-ro',
      transactions: 50,
      seed: 9,
      latencyMs: 5,
      rateLimit: false,
    });
    expect(settings.faults).toEqual([
      { kind: 'status503', rate: 0.5 },
      { kind: 'hang', operationId: 'getPlanById', times: 1 },
    ]);
  });

  it('takes repeated --fault flags, replacing the environment rules', () => {
    const settings = settingsOf(
      parseCliOptions(['--fault', 'drop,method=post', '--fault', 'malformed,times=2'], {
        SANDBOX_FAULTS: 'status500',
      }),
    );
    expect(settings.faults).toEqual([
      { kind: 'drop', method: 'POST' },
      { kind: 'malformed', times: 2 },
    ]);
  });

  it('names the flag or variable that is wrong', () => {
    expect(errorOf(parseCliOptions(['--port', 'abc'], {}))).toMatch(/^--port must be an integer/);
    expect(errorOf(parseCliOptions(['--port', '70000'], {}))).toMatch(
      /^--port must be an integer from 0 to 65535/,
    );
    expect(errorOf(parseCliOptions([], { SANDBOX_TRANSACTIONS: '-1' }))).toMatch(
      /^SANDBOX_TRANSACTIONS must be/,
    );
    expect(errorOf(parseCliOptions(['--transactions'], {}))).toBe('--transactions needs a value');
    expect(errorOf(parseCliOptions(['--seed', '--port'], {}))).toBe('--seed needs a value');
    expect(errorOf(parseCliOptions(['--verbose'], {}))).toMatch(/unknown option '--verbose'/);
    expect(errorOf(parseCliOptions(['--fault', 'explode'], {}))).toMatch(
      /^--fault: fault kind must be one of/,
    );
    expect(errorOf(parseCliOptions(['--fault', 'hang,op=getNothing'], {}))).toMatch(
      /'getNothing' is not an operationId/,
    );
    expect(errorOf(parseCliOptions(['--fault', 'hang,rate=2'], {}))).toMatch(
      /rate must be a number from 0 to 1/,
    );
    expect(errorOf(parseCliOptions(['--token', 'same', '--read-only-token', 'same'], {}))).toMatch(
      /must differ/,
    );
  });

  it('puts the user in an account state the product refuses', () => {
    expect(settingsOf(parseCliOptions([], {})).accountState).toBe('active');
    const settings = settingsOf(
      parseCliOptions(['--account-state', 'trial_expired'], {
        SANDBOX_ACCOUNT_STATE: 'subscription_lapsed',
      }),
    );
    expect(settings.accountState).toBe('trial_expired');
    expect(sandboxOptionsOf(settings).users?.[0]?.accountState).toBe('trial_expired');
    expect(
      settingsOf(parseCliOptions([], { SANDBOX_ACCOUNT_STATE: 'data_limit_reached' })).accountState,
    ).toBe('data_limit_reached');
    expect(errorOf(parseCliOptions(['--account-state=closed'], {}))).toBe(
      "--account-state must be one of active, subscription_lapsed, trial_expired, data_limit_reached, got 'closed'",
    );
  });

  it('takes values that start with a single dash, and refuses stray arguments', () => {
    expect(settingsOf(parseCliOptions(['--seed', '-5'], {})).seed).toBe(-5);
    expect(errorOf(parseCliOptions(['--port', '1', 'extra'], {}))).toBe(
      "unexpected argument 'extra' (see --help)",
    );
    expect(errorOf(parseCliOptions(['-x'], {}))).toMatch(/unknown option '-x'/);
  });

  it('asks for help', () => {
    expect(parseCliOptions(['--port', '1', '--help'], {}).kind).toBe('help');
  });

  it('maps settings to sandbox options with one user whose demo plan is the default', () => {
    const options = sandboxOptionsOf(
      settingsOf(parseCliOptions(['--transactions', '10', '--rate-limit', '50'], {})),
    );
    expect(options.users?.[0]).toMatchObject({
      plans: [{ seed: 1, transactions: 10 }],
      defaultPlan: 0,
    });
    expect(options.rateLimit).toEqual({ limit: 50 });
  });

  describe('OAuth', () => {
    it('keeps the demo application as it is, with the consent page, by default', () => {
      const options = sandboxOptionsOf(settingsOf(parseCliOptions([], {})));
      expect(options.oauthClients).toEqual([
        expect.objectContaining({
          clientId: 'sandbox-demo-client',
          clientSecret: 'sandbox-demo-secret',
          redirectUris: expect.arrayContaining([
            'http://localhost:8080/oauth/callback',
            'http://127.0.0.1/auth/callback',
          ]),
          defaultPlanSelection: true,
        }),
      ]);
      expect(options.oauthConsent).toEqual({ mode: 'page' });
    });

    it("replaces the demo application's redirect URIs, flags over the environment", () => {
      const fromEnv = settingsOf(
        parseCliOptions([], {
          SANDBOX_OAUTH_REDIRECT_URIS: ' https://gw.example/auth/callback  http://127.0.0.1/cb ',
        }),
      );
      expect(sandboxOptionsOf(fromEnv).oauthClients?.[0]?.redirectUris).toEqual([
        'https://gw.example/auth/callback',
        'http://127.0.0.1/cb',
      ]);
      const fromFlags = settingsOf(
        parseCliOptions(
          [
            '--oauth-redirect-uri',
            'https://a.example/cb',
            '--oauth-redirect-uri=https://b.example/cb',
          ],
          { SANDBOX_OAUTH_REDIRECT_URIS: 'https://env.example/cb' },
        ),
      );
      expect(fromFlags.oauthRedirectUris).toEqual(['https://a.example/cb', 'https://b.example/cb']);
    });

    it('registers more applications and sets the consent mode', () => {
      const settings = settingsOf(
        parseCliOptions(
          [
            '--oauth-client',
            'id=mobile,secret=s1,redirect-uri=https://m.example/cb,redirect-uri=http://127.0.0.1/cb,name=Mobile App,default-plan-selection',
            '--oauth-consent',
            'approve',
          ],
          {
            SANDBOX_OAUTH_CLIENTS: 'id=replaced,secret=x,redirect-uri=https://r.example/cb',
            SANDBOX_OAUTH_CONSENT: 'deny',
          },
        ),
      );
      const options = sandboxOptionsOf(settings);
      expect(options.oauthClients?.slice(1)).toEqual([
        {
          clientId: 'mobile',
          clientSecret: 's1',
          redirectUris: ['https://m.example/cb', 'http://127.0.0.1/cb'],
          name: 'Mobile App',
          defaultPlanSelection: true,
        },
      ]);
      expect(options.oauthConsent).toEqual({ mode: 'approve' });
      const fromEnv = settingsOf(
        parseCliOptions([], {
          SANDBOX_OAUTH_CLIENTS:
            'id=a,secret=x,redirect-uri=https://a.example/cb; id=b,secret=y,redirect-uri=https://b.example/cb',
        }),
      );
      expect(fromEnv.oauthClients.map((client) => client.clientId)).toEqual(['a', 'b']);
    });

    it('names what is wrong with an OAuth option', () => {
      expect(errorOf(parseCliOptions(['--oauth-redirect-uri', 'not a uri'], {}))).toBe(
        "--oauth-redirect-uri: redirect URI 'not' is not an absolute URI",
      );
      expect(
        errorOf(parseCliOptions(['--oauth-redirect-uri', 'https://x.example/cb#top'], {})),
      ).toMatch(/must not have a fragment/);
      expect(errorOf(parseCliOptions(['--oauth-client', 'id=a,secret=b'], {}))).toBe(
        '--oauth-client: an application needs id=, secret= and redirect-uri=',
      );
      expect(
        errorOf(
          parseCliOptions(
            ['--oauth-client', 'id=a,secret=b,redirect-uri=https://a.example,public'],
            {},
          ),
        ),
      ).toMatch(/unknown application setting 'public'/);
      expect(
        errorOf(
          parseCliOptions(
            ['--oauth-client', 'id=sandbox-demo-client,secret=b,redirect-uri=https://a.example'],
            {},
          ),
        ),
      ).toBe("--oauth-client: the client id 'sandbox-demo-client' is registered twice");
      expect(errorOf(parseCliOptions([], { SANDBOX_OAUTH_CONSENT: 'maybe' }))).toBe(
        "SANDBOX_OAUTH_CONSENT must be one of page, approve, deny, got 'maybe'",
      );
    });
  });
});
