/**
 * The authorization pages as a person meets them: Debian's Chromium, headless, driven by
 * playwright-core, signs in through a real server-side application on loopback (it sends the
 * browser to `/oauth/authorize`, checks `state` on the way back and exchanges the code with its
 * secret). Sign in as a chosen user, pick the default plan, Authorize; and Deny.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Sandbox } from '../src/core/api.js';
import { createManualClock, createSandbox } from '../src/index.js';
import { TEST_NOW } from './support/dates.js';
import { ALICE_AND_BOB, requestToken } from './support/oauth.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
/** As root Chromium's own sandbox cannot start; and with no outside network, no background traffic. */
const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
const CLIENT_ID = 'browser-client';
const CLIENT_SECRET = 'browser-secret';

let sandbox: Sandbox;
let app: Server;
let appOrigin: string;
let browser: Browser;
let page: Page;

/**
 * A server-side application, as small as one can be: `/login` starts the code grant with a fresh
 * `state`; `/callback` checks it, exchanges the code and shows whose plans it reached.
 */
function startApp(): Promise<void> {
  const states = new Set<string>();
  const html = (body: string) => `<!doctype html><title>App</title><main>${body}</main>`;
  app = createServer((req, res) => {
    const url = new URL(req.url ?? '/', appOrigin);
    const answer = (status: number, body: string) => {
      res.writeHead(status, { 'content-type': 'text/html; charset=utf-8' });
      res.end(html(body));
    };
    if (url.pathname === '/login') {
      const state = randomBytes(12).toString('hex');
      states.add(state);
      const authorize = new URL('/oauth/authorize', sandbox.origin);
      authorize.search = new URLSearchParams({
        client_id: CLIENT_ID,
        redirect_uri: `${appOrigin}/callback`,
        response_type: 'code',
        state,
      }).toString();
      res.writeHead(302, { location: authorize.href });
      res.end();
      return;
    }
    if (url.pathname !== '/callback') return answer(404, 'not here');
    const state = url.searchParams.get('state') ?? '';
    if (!states.delete(state)) return answer(400, '<p id="result">state mismatch</p>');
    const error = url.searchParams.get('error');
    if (error !== null) return answer(200, `<p id="result">refused: ${error}</p>`);
    void (async () => {
      const token = await requestToken(sandbox.origin, {
        client_id: CLIENT_ID,
        client_secret: CLIENT_SECRET,
        redirect_uri: `${appOrigin}/callback`,
        grant_type: 'authorization_code',
        code: url.searchParams.get('code') ?? '',
      });
      const headers = { authorization: `Bearer ${String(token.body.access_token)}` };
      const user = (await (await fetch(`${sandbox.url}/user`, { headers })).json()) as {
        data: { user: { id: string } };
      };
      const plan = (await (await fetch(`${sandbox.url}/plans/default`, { headers })).json()) as {
        data: { plan: { id: string } };
      };
      answer(200, `<p id="result">user ${user.data.user.id} default plan ${plan.data.plan.id}</p>`);
    })().catch((failure: unknown) => answer(500, `<p id="result">failed: ${String(failure)}</p>`));
  });
  return new Promise((resolve) => {
    app.listen(0, '127.0.0.1', () => {
      appOrigin = `http://127.0.0.1:${(app.address() as AddressInfo).port}`;
      resolve();
    });
  });
}

beforeAll(async () => {
  sandbox = await createSandbox({
    clock: createManualClock(TEST_NOW),
    rateLimit: false,
    users: ALICE_AND_BOB,
    oauthClients: [
      {
        clientId: CLIENT_ID,
        clientSecret: CLIENT_SECRET,
        name: 'Chromium Client',
        // Registered without a port: the application listens wherever it could.
        redirectUris: ['http://127.0.0.1/callback'],
        defaultPlanSelection: true,
      },
    ],
  });
  await startApp();
  browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await new Promise((resolve) => app?.close(resolve));
  await sandbox?.close();
});

beforeEach(async () => {
  await page?.context().close();
  page = await (await browser.newContext()).newPage();
});

describe('the consent page in Chromium', () => {
  it('signs in as the user picked, takes the plan picked as default, and authorizes', async () => {
    const bob = sandbox.users[1];
    await page.goto(`${appOrigin}/login`);
    await expect.poll(() => page.title()).toBe('Sign in · Plans sandbox');
    await page.getByRole('button', { name: /^Bob/ }).click();

    await expect.poll(() => page.title()).toBe('Authorize Chromium Client · Plans sandbox');
    await expect.poll(() => page.locator('.user').textContent()).toBe('Bob');
    expect(await page.getByLabel('Side business').isChecked()).toBe(true);
    await page.getByLabel('Household').check();
    await page.getByRole('button', { name: 'Authorize' }).click();

    await page.waitForURL(`${appOrigin}/callback?**`);
    expect(await page.locator('#result').textContent()).toBe(
      `user ${bob?.userId} default plan ${bob?.planIds[0]}`,
    );
    // The code went back in the query, to the application only: it was exchanged once.
    expect(sandbox.callCounts()['oauth.token.authorization_code']).toBe(1);
  });

  it('sends a denial back to the application with its state', async () => {
    await page.goto(`${appOrigin}/login`);
    await page.getByRole('button', { name: /^Alice/ }).click();
    await page.getByRole('button', { name: 'Deny' }).click();
    await page.waitForURL(`${appOrigin}/callback?**`);
    expect(await page.locator('#result').textContent()).toBe('refused: access_denied');
  });

  it('shows a bad redirect URI on its own page and stays there', async () => {
    const authorize = new URL('/oauth/authorize', sandbox.origin);
    authorize.search = new URLSearchParams({
      client_id: CLIENT_ID,
      redirect_uri: 'http://127.0.0.1/elsewhere',
      response_type: 'code',
    }).toString();
    const response = await page.goto(authorize.href);
    expect(response?.status()).toBe(400);
    expect(page.url()).toBe(authorize.href);
    expect(await page.getByRole('alert').textContent()).toContain('is not registered');
  });
});
