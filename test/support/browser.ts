/**
 * Headless Chromium for the browser tests, driven by playwright-core: Debian's at
 * /usr/bin/chromium, or the one `CHROMIUM_PATH` names.
 */
import { type Browser, chromium } from 'playwright-core';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/**
 * As root (CI, containers) Chromium's own sandbox cannot start (the pages are ours, loaded from
 * loopback); and on a machine without outside network, Chromium's background connections (sync,
 * component updates, QUIC probes) only fail, many at a time: none of them.
 */
const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
}
