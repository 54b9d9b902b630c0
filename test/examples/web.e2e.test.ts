/**
 * The example web app (examples/web) end to end: built with Vite, served as static files, run in
 * headless Chromium (Debian's, driven by playwright-core) against the sandbox and a gateway. It
 * shows the accounts and this month's chart, adds a transaction through its form and sees the
 * account balance and the category's bar change (from the mutation's `changes`, no refetch),
 * then sees a change made elsewhere arrive through its subscription.
 *
 * The screenshot in docs/images/example-app.png comes from this test:
 * `UPDATE_SCREENSHOTS=1 npx vitest run test/examples/web.e2e.test.ts`.
 */
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_POLL_INTERVAL_MS } from '../live/support/live.js';
import { launchChromium } from '../support/browser.js';
import { runCommand } from '../support/run-command.js';
import { startStack, type TimedStack } from '../support/stack.js';
import { type StaticServer, serveStatic } from '../support/static-server.js';

const root = new URL('../../', import.meta.url).pathname;
const out = mkdtempSync(join(tmpdir(), 'example-web-'));

let stack: TimedStack;
let site: StaticServer;
let browser: Browser;
let page: Page;

beforeAll(async () => {
  const build = await runCommand(
    process.execPath,
    [
      join(root, 'node_modules/vite/bin/vite.js'),
      'build',
      'examples/web',
      '--outDir',
      join(out, 'site'),
    ],
    { cwd: root },
  );
  expect(build.code, build.output).toBe(0);
  // The stack's clock starts now, so the browser's today is the plan's; polls run as the test says.
  stack = await startStack({
    serve: 'websocket',
    clock: 'ticking',
    start: Date.now(),
    timers: 'manual',
    sandbox: { rateLimit: false },
  });
  site = await serveStatic(join(out, 'site'));
  browser = await launchChromium();
  page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
  const address = new URL(site.url);
  address.searchParams.set('gateway', stack.url);
  address.searchParams.set('token', stack.token);
  await page.goto(address.href);
});

afterAll(async () => {
  await browser?.close();
  await site?.close();
  await stack?.close();
  rmSync(out, { recursive: true, force: true });
});

/** The balance the page shows for an account, in milliunits. */
const balanceOf = (accountId: string) =>
  page
    .locator(`[data-testid=account][data-id="${accountId}"] [data-testid=account-balance]`)
    .getAttribute('data-milliunits')
    .then(Number);

/** What the chart shows as spent for a category, in milliunits. */
const spentOf = (categoryId: string) =>
  page
    .locator(`[data-testid=chart-row][data-category-id="${categoryId}"]`)
    .getAttribute('data-spent')
    .then(Number);

/** Waits until `read` gives `expected` (the page updates on its own). */
async function until(read: () => Promise<number>, expected: number): Promise<void> {
  await expect.poll(read, { timeout: 15_000 }).toBe(expected);
}

describe('the example web app', () => {
  it('shows the accounts, the chart of this month and the recent transactions', async () => {
    // The three parts render as their data arrives, not together: wait for each.
    const count = (testId: string) => () => page.locator(`[data-testid=${testId}]`).count();
    await expect.poll(count('account'), { timeout: 15_000 }).toBeGreaterThan(3);
    await expect.poll(count('chart-row'), { timeout: 15_000 }).toBeGreaterThan(3);
    await expect.poll(count('transaction'), { timeout: 15_000 }).toBe(10);
    await expect.poll(() => page.locator('[data-testid=live]').textContent()).toContain('Live');
  });

  it('pages through the transactions', async () => {
    await page.getByRole('button', { name: 'Show more' }).click();
    await expect.poll(() => page.locator('[data-testid=transaction]').count()).toBe(20);
  });

  it('adds a transaction and shows the new balance and the bar of its category', async () => {
    // A category on the chart; a bakery goes to Dining Out when the plan has it.
    const rows = page.locator('[data-testid=chart-row]');
    const dining = rows.filter({ hasText: 'Dining Out' });
    const row = (await dining.count()) > 0 ? dining : rows.first();
    const categoryId = (await row.getAttribute('data-category-id'))!;
    const accountId = await page.locator('select[name=account]').inputValue();
    await page.locator('select[name=category]').selectOption(categoryId);
    const balance = await balanceOf(accountId);
    const spent = await spentOf(categoryId);

    await page.locator('input[name=payee]').fill('Corner Bakery');
    await page.locator('input[name=amount]').fill('23.45');
    await page.locator('input[name=memo]').fill('added in the example app');
    await page.getByRole('button', { name: 'Add' }).click();

    await until(() => balanceOf(accountId), balance - 23_450);
    await until(() => spentOf(categoryId), spent + 23_450);
    // The list is read again: the new row is among today's, at the top.
    await expect
      .poll(() => page.locator('[data-testid=transaction]', { hasText: 'Corner Bakery' }).count())
      .toBe(1);
    expect(await page.locator('[data-testid=form-message]').textContent()).toBe('Added.');
  });

  it('shows a change made elsewhere as it arrives through the subscription', async () => {
    const accountId = (await page.locator('[data-testid=account]').nth(1).getAttribute('data-id'))!;
    const balance = await balanceOf(accountId);
    const events = () =>
      page.locator('[data-testid=live]').getAttribute('data-events').then(Number);
    const before = await events();
    const today = new Date().toISOString().slice(0, 10);
    await stack.writer.createTransaction(
      { token: stack.token },
      {
        planId: stack.planId,
        body: {
          transaction: {
            account_id: accountId,
            date: today,
            amount: -5_000,
            payee_name: 'Farmers Market',
            memo: 'from another device',
          },
        },
      },
    );
    await stack.scheduler.advance(DEFAULT_POLL_INTERVAL_MS);
    await until(() => balanceOf(accountId), balance - 5_000);
    expect(await events()).toBeGreaterThan(before);
    await expect
      .poll(() => page.locator('[data-testid=transaction]', { hasText: 'Farmers Market' }).count())
      .toBe(1);

    const shot = join(out, 'example-app.png');
    await page.screenshot({ path: shot, fullPage: true });
    if (process.env.UPDATE_SCREENSHOTS === '1')
      copyFileSync(shot, join(root, 'docs/images/example-app.png'));
  });
});
