/**
 * GraphiQL as a person meets it: Debian's Chromium, headless, driven by playwright-core against a
 * real gateway and sandbox. A subscription with no event yet says that it waits for changes (not a
 * bare spinner); the note goes with the first event, and Stop ends the stream.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SUBSCRIPTION_WAITING_MESSAGE } from '../../src/server/plugins/graphiql/use-graphiql.js';
import { launchChromium } from '../support/browser.js';
import { type ServedGateway, type Stack, startStack } from '../support/stack.js';
import { until } from '../support/wait.js';

const SUBSCRIPTION =
  'subscription Payees { planChanged(planId: "last-used") { origin serverKnowledge payees { id name } } }';
const PAYEES = '{ plan(id: "last-used") { payees { id name } } }';
const RENAME = `mutation Rename($id: UUID!, $name: String!) {
  updatePayee(planId: "last-used", payeeId: $id, input: { name: $name }) { __typename }
}`;
/**
 * How long a page step (a navigation, a selector, a click) may take before it fails, naming the
 * step: liveness, not speed. Playwright's own default (30 s) is not enough for Chromium to start
 * and parse GraphiQL's bundle while two full runs of the suite share two cores; each step still
 * fails, named, within the test's limit below.
 */
const PAGE_STEP_MS = 90_000;
const TEST_MS = 180_000;

describe('GraphiQL in Chromium', () => {
  let stack: Stack;
  let browser: Browser;
  let page: Page;
  let served: ServedGateway;

  beforeAll(async () => {
    stack = await startStack();
    // GraphiQL opens with the token header filled in, as `npm start` serves it.
    served = await stack.addGateway({
      config: {
        graphiql: true,
        graphiqlDefaultHeaders: { Authorization: `Bearer ${stack.token}` },
      },
    });
    browser = await launchChromium();
    page = await browser.newPage();
    page.setDefaultTimeout(PAGE_STEP_MS);
    page.setDefaultNavigationTimeout(PAGE_STEP_MS);
    // The document is enough: what the test waits for is GraphiQL drawn (its Run button), not the
    // page's load event.
    await page.goto(served.url, { waitUntil: 'domcontentloaded' });
    await page.waitForSelector('.graphiql-execute-button');
  }, TEST_MS);

  afterAll(async () => {
    await browser?.close();
    await stack?.close();
  });

  /**
   * Replaces the editor's text (Monaco), waits until GraphiQL has taken it in (the tab is named
   * after the operation), then presses Run.
   */
  async function run(name: string, document: string): Promise<void> {
    await page.locator('.graphiql-query-editor .monaco-editor').click();
    await page.keyboard.press('ControlOrMeta+A');
    await page.keyboard.press('Delete');
    await page.keyboard.insertText(document);
    await page.locator('.graphiql-tab', { hasText: name }).waitFor();
    await page.click('.graphiql-execute-button');
  }

  const subscribers = () => served.gateway.live.stats().subscribers;
  const note = () => page.locator('.plans-subscription-waiting');

  it(
    'says a subscription waits for changes until its first event comes',
    async () => {
      await run('Payees', SUBSCRIPTION);
      await note().waitFor();
      expect(await note().getAttribute('role')).toBe('status');
      expect(await note().textContent()).toBe(SUBSCRIPTION_WAITING_MESSAGE);
      await until(() => subscribers() === 1, 'the subscription');

      const { body } = await stack.gql<{ plan: { payees: { id: string; name: string }[] } }>(
        PAYEES,
      );
      const payee = body.data!.plan.payees.find((each) => !each.name.startsWith('Transfer'))!;
      const renamed = await served.gql(RENAME, { id: payee.id, name: 'Renamed in GraphiQL' });
      expect(renamed.body.errors).toBeUndefined();

      await note().waitFor({ state: 'detached' });
      await page.locator('.graphiql-response', { hasText: 'Renamed in GraphiQL' }).waitFor();

      // Stop: the stream ends and the gateway lets the subscription go.
      await page.click('.graphiql-execute-button');
      await until(() => subscribers() === 0, 'the subscription to end');
      expect(await note().count()).toBe(0);
    },
    TEST_MS,
  );

  it(
    'shows no note for a query',
    async () => {
      await run('Name', 'query Name { plan(id: "last-used") { id name } }');
      await page.locator('.graphiql-response', { hasText: '"plan": {' }).waitFor();
      expect(await note().count()).toBe(0);
    },
    TEST_MS,
  );
});
