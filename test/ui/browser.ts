// Headless Chromium for the catalog browser's tests and screenshots (docs/ui.md
// "Tests"): Debian's /usr/bin/chromium driven by playwright-core, launched once
// per test file. Playwright gives it a fresh profile in a temp dir and removes
// it on close.
import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export async function launchBrowser(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) throw new Error(`Chromium not found at ${CHROMIUM} (Debian's chromium package; .ci/run installs it)`);
  return chromium.launch({ executablePath: CHROMIUM, args: ARGS, headless: true });
}
