import { afterAll, describe, expect, it } from 'vitest';
import type { OAuthClientOptions } from '../../src/core/api.js';
import { matchesRedirectUri, type RegisteredClient } from '../../src/http/oauth-clients.js';
import { createManualClock, createSandbox, type Sandbox } from '../../src/index.js';
import { NOW } from '../support/seeded-store.js';

const client = (...redirectUris: string[]): RegisteredClient => ({
  clientId: 'c',
  clientSecret: 's',
  redirectUris,
  name: 'c',
  defaultPlanSelection: false,
  restricted: false,
  ownerUserId: 'u',
});

describe('redirect URI matching', () => {
  it('takes a registered URI character for character', () => {
    const app = client('https://app.example/cb?x=1');
    expect(matchesRedirectUri(app, 'https://app.example/cb?x=1')).toBe(true);
    for (const other of [
      'https://app.example/cb',
      'https://app.example/cb?x=1&y=2',
      'https://app.example:444/cb?x=1',
      'http://app.example/cb?x=1',
      'https://app.example/cb?x=1#f',
      'not a uri',
    ])
      expect(matchesRedirectUri(app, other), other).toBe(false);
  });

  it('lets an http URI on a loopback host take any port (RFC 8252, 7.3), and nothing else', () => {
    const app = client(
      'http://127.0.0.1/cb',
      'http://[::1]/cb',
      'http://localhost:8080/oauth/callback',
    );
    for (const accepted of [
      'http://127.0.0.1:4000/cb',
      'http://127.0.0.1/cb',
      'http://[::1]:61000/cb',
      'http://localhost:9999/oauth/callback',
    ])
      expect(matchesRedirectUri(app, accepted), accepted).toBe(true);
    for (const refused of [
      'http://127.0.0.1:4000/cb/',
      'http://127.0.0.1:4000/cb?next=x',
      'http://127.0.0.1:4000/cb#x',
      'https://127.0.0.1:4000/cb',
      'http://localhost:4000/cb',
      'http://127.0.0.1@evil.example/cb',
      'http://evil.example:4000/cb',
      'http://127.0.0.1.evil.example/cb',
    ])
      expect(matchesRedirectUri(app, refused), refused).toBe(false);
  });
});

describe('registering applications', () => {
  let sandbox: Sandbox | undefined;
  afterAll(() => sandbox?.close());

  const start = (oauthClients: OAuthClientOptions[]) =>
    createSandbox({
      clock: createManualClock(NOW),
      users: [{ token: 't', plans: [{ transactions: 10 }] }],
      oauthClients,
    });
  const app: OAuthClientOptions = {
    clientId: 'a',
    clientSecret: 's',
    redirectUris: ['https://a.example/cb'],
  };

  it('names what is wrong with a registration', async () => {
    await expect(start([{ ...app, clientSecret: '' }])).rejects.toThrow(
      'oauthClients[0].clientSecret is required',
    );
    await expect(start([{ ...app, redirectUris: [] }])).rejects.toThrow(
      'oauthClients[0].redirectUris must list at least one URI',
    );
    await expect(start([{ ...app, redirectUris: ['/cb'] }])).rejects.toThrow(
      "oauthClients[0].redirectUris[0] '/cb' is not an absolute URI",
    );
    await expect(start([{ ...app, redirectUris: ['https://a.example/cb#x'] }])).rejects.toThrow(
      /must not have a fragment/,
    );
    await expect(start([app, app])).rejects.toThrow("oauthClients[1].clientId 'a' is used twice");
    await expect(start([{ ...app, owner: 3 }])).rejects.toThrow(
      "oauthClients[0].owner '3' is neither a user id nor an index into users",
    );
    sandbox = await start([app]);
    expect(sandbox.origin).toMatch(/^http:/);
  });
});
