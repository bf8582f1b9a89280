// The catalog table at 10,000 tools (docs/ui.md "Catalog"): the benchmark's
// MCP upstream (bench/upstream.ts) behind a real host, the page in headless
// Chromium. The table renders (its time printed, not asserted), keeps only
// its visible window in the DOM, scrolls to the last tool, and searches the
// whole catalog.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { benchConfig } from '../../bench/config.js';
import { startTestServer, tempDir, writeConfig, type TestServer } from '../helpers/server.js';
import { launchBrowser } from '../ui/browser.js';
import { signIn } from '../ui/page-helpers.js';

const TOOLS = 10_000;
const KEY = 'ui-scale-key';
const sha = (s: string): string => `sha256:${createHash('sha256').update(s).digest('hex')}`;

describe('catalog browser at 10,000 tools', { timeout: 180_000 }, () => {
  let server: TestServer;
  let browser: Browser;
  let toolIds: string[];

  before(async () => {
    const dir = tempDir();
    const config = benchConfig({ tools: TOOLS, pageSize: 500, controlFile: join(dir, 'control'), keyHashes: { all: sha(KEY), mid: sha('unused-mid'), small: sha('unused-small') }, audit: false });
    [server, browser] = await Promise.all([startTestServer(writeConfig(config, dir), { startDeadlineMs: 150_000 }), launchBrowser()]);
    toolIds = ((await (await fetch(`${server.url}/tools`, { headers: { authorization: `Bearer ${KEY}` } })).json()) as { toolId: string }[]).map((t) => t.toolId);
    assert.equal(toolIds.length, TOOLS);
  });
  after(async () => {
    await browser?.close();
    await server?.close();
  });

  test('renders virtualized, and every tool is reachable, by scrolling and by search', async () => {
    const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
    page.setDefaultTimeout(60_000);
    await signIn(page, server.url, KEY);
    await page.waitForSelector('table.tools td.tool-id a');
    await page.waitForFunction(() => (globalThis as any).performance.getEntriesByName('catalog-render').length > 0);
    const [render, load] = (await page.evaluate(`['catalog-render', 'catalog-load'].map((n) => performance.getEntriesByName(n)[0].duration)`)) as number[];
    console.log(`catalog of ${TOOLS} tools: rendered in ${render.toFixed(0)} ms once read; signed in (read, parsed, indexed and rendered) in ${load.toFixed(0)} ms`);
    assert.equal(await page.textContent('.count'), `${TOOLS} tools`);
    const rows = await page.locator('table.tools tbody tr:not(.spacer)').count();
    assert.ok(rows > 10 && rows < 100, `only the visible window is in the DOM (${rows} rows)`);

    // The last tool, by scrolling to the end.
    await page.evaluate(`(() => { const s = document.querySelector('.table-scroll'); s.scrollTop = s.scrollHeight; })()`);
    await page.waitForSelector(`table.tools a:text-is(${JSON.stringify(toolIds[TOOLS - 1])})`);

    // A search over the whole catalog finds a tool in the middle (its time is printed, not asserted: timing belongs in bench/).
    const target = toolIds[7_777];
    const started = Date.now();
    await page.fill('#catalog-search', target);
    await page.waitForSelector(`table.tools a:text-is(${JSON.stringify(target)})`);
    console.log(`search over ${TOOLS} tools: ${Date.now() - started} ms`);
    await page.close();
  });
});
