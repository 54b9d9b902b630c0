/**
 * Signing in through GraphiQL, as a person does it on a gateway with sign-in on: Debian's Chromium,
 * headless, driven by playwright-core against a real gateway and the sandbox's OAuth (its demo
 * application and its consent page). Signed out, a query is UNAUTHENTICATED; "Sign in" goes
 * through the consent page and back to GraphiQL, whose queries then read the person's plans with
 * the session cookie (HttpOnly: the page never holds a token); "Sign out" ends the session and
 * its grant, the next query is UNAUTHENTICATED again; signing in again works.
 *
 * `GRAPHIQL_SCREENSHOT=/tmp/graphiql.png npx vitest run test/sign-in/graphiql-browser.test.ts`
 * keeps a screenshot of GraphiQL signed in, for a person to look at.
 */
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SESSION_COOKIE } from '../../src/sign-in/cookies.js';
import { launchChromium } from '../support/browser.js';
import { type Stack, startStack } from '../support/stack.js';

/** Long enough for a loaded machine: nothing here waits for time, only for what it names. */
const WAIT = { timeout: 60_000 };
const PLANS = 'query MyPlans { plans { id name } }';

let stack: Stack;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let planName = '';

beforeAll(async () => {
  stack = await startStack({ signIn: true, config: { graphiql: true } });
  const plans = await stack.rest<{ data: { plans: { id: string; name: string }[] } }>('/plans');
  planName = plans.body.data.plans[0]?.name ?? '';
  expect(planName).not.toBe('');
  browser = await launchChromium();
  context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  page = await context.newPage();
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await stack?.close();
});

const signedIn = (state: 'yes' | 'no') =>
  page.locator(`body[data-signed-in=${state}]`).waitFor(WAIT);

const counts = () => {
  const part = stack.gateway.signIn;
  if (!part) throw new Error('sign-in is off');
  return part.counts();
};

/**
 * Replaces the editor's text (Monaco), waits until GraphiQL has taken it in (the tab is named
 * after the operation), presses Run, and waits for an answer that contains `expected`.
 */
async function run(document: string, expected: string): Promise<string> {
  await page.locator('.graphiql-query-editor .monaco-editor').click(WAIT);
  await page.keyboard.press('ControlOrMeta+A');
  await page.keyboard.press('Delete');
  await page.keyboard.insertText(document);
  await page.locator('.graphiql-tab', { hasText: 'MyPlans' }).first().waitFor(WAIT);
  // This operation's own answer (GraphiQL also posts its introspection to the same URL).
  const answered = page.waitForResponse(
    (response) => (response.request().postData() ?? '').includes('MyPlans'),
    WAIT,
  );
  await page.click('.graphiql-execute-button', WAIT);
  await answered;
  const pane = page.locator('.graphiql-response', { hasText: expected });
  await pane.waitFor(WAIT);
  return (await pane.textContent()) ?? '';
}

/** "Sign in": the gateway, the sandbox's consent page (Authorize), back to GraphiQL. */
async function signIn(): Promise<void> {
  await page.getByRole('link', { name: 'Sign in' }).click(WAIT);
  await page.waitForURL((url) => url.origin === stack.sandbox.origin, WAIT);
  await expect
    .poll(() => page.title(), WAIT)
    .toBe('Authorize Plans Sandbox Demo App · Plans sandbox');
  await page.getByRole('button', { name: 'Authorize' }).click(WAIT);
  await page.waitForURL(stack.url, WAIT);
  await page.waitForSelector('.graphiql-execute-button', WAIT);
  await signedIn('yes');
}

describe('GraphiQL with sign-in, in Chromium', () => {
  it('signed out: shows "Sign in", and a query is UNAUTHENTICATED with where to sign in', async () => {
    await page.goto(stack.url, WAIT);
    await page.waitForSelector('.graphiql-execute-button', WAIT);
    await signedIn('no');
    const href = new URL(
      (await page.getByRole('link', { name: 'Sign in' }).getAttribute('href')) ?? '',
    );
    expect(href.pathname).toBe('/auth/login');
    expect(href.searchParams.get('return_to')).toBe(stack.url);
    const answer = await run(PLANS, 'UNAUTHENTICATED');
    expect(answer).toContain('/auth/login');
  }, 180_000);

  it('signs in through the consent page and reads the plans with the session cookie', async () => {
    await signIn();
    // Back at GraphiQL's own address: no code, state or token in it.
    expect(page.url()).toBe(stack.url);
    const answer = await run(PLANS, planName);
    expect(answer).toContain(stack.planId);
    expect(answer).not.toContain('UNAUTHENTICATED');
    const [session] = (await context.cookies(stack.url)).filter((c) => c.name === SESSION_COOKIE);
    expect(session).toMatchObject({ httpOnly: true, sameSite: 'Lax', path: '/' });
    expect(await page.evaluate(() => document.cookie)).toBe('');
    expect(await counts()).toMatchObject({ session: 1, grant: 1 });
    await page.locator('#sign-out').waitFor({ state: 'visible', ...WAIT });
    // A PNG of the page signed in; `GRAPHIQL_SCREENSHOT=path` keeps it for a person to look at.
    const shot = await page.screenshot(
      process.env.GRAPHIQL_SCREENSHOT ? { path: process.env.GRAPHIQL_SCREENSHOT } : {},
    );
    expect(shot.subarray(1, 4).toString('latin1')).toBe('PNG');
  }, 180_000);

  it('signs out: the session and its grant end, and the next query is UNAUTHENTICATED', async () => {
    await page.getByRole('button', { name: 'Sign out' }).click(WAIT);
    await signedIn('no');
    await page.getByRole('link', { name: 'Sign in' }).waitFor({ state: 'visible', ...WAIT });
    expect(await counts()).toMatchObject({ session: 0, grant: 0 });
    expect((await context.cookies(stack.url)).map((c) => c.name)).not.toContain(SESSION_COOKIE);
    const answer = await run(PLANS, 'UNAUTHENTICATED');
    expect(answer).not.toContain(planName);
  }, 180_000);

  it('signs in again', async () => {
    await signIn();
    expect(await run(PLANS, planName)).toContain(stack.planId);
    expect(await counts()).toMatchObject({ session: 1, grant: 1 });
  }, 180_000);
});
