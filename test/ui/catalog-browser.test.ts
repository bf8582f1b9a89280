// The catalog browser at /ui/ in headless Chromium against the running demo
// host (docs/ui.md "Tests"): served without a credential under a strict CSP;
// each demo tenant's table is exactly its GET /tools; search and filters; the
// tool page; "Try it" on a pure tool and on an approval tool (accept and
// decline); a call showing up in Activity without a reload; a wrong key; axe;
// the bearer header on every API request and the credential in no URL.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Browser, BrowserContext, Page, Request } from 'playwright-core';
import { copyFileSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { parse } from 'yaml';
import { ACME_KEY, demoConfig, GLOBEX_KEY, startTestServer, writeConfig, type TestServer } from '../helpers/server.js';
import { launchBrowser } from './browser.js';
import { axeViolations, signIn, tableToolIds } from './page-helpers.js';

interface Tool {
  toolId: string;
  title?: string;
  description?: string;
  source: string;
  safetyTier: string;
}

// waitForFunction predicates are functions run in the page (written against
// globalThis: the type check has no DOM library), never strings: a string
// predicate is evaluated with eval, which the page's own CSP forbids.
describe('catalog browser (/ui/)', { timeout: 120_000 }, () => {
  let server: TestServer;
  let browser: Browser;
  const contexts: BrowserContext[] = [];
  const catalogs = new Map<string, Tool[]>();
  /** The tickets connector's token, a copy the Sources test takes away and puts back. */
  let ticketsToken: string;

  before(async () => {
    const file = demoConfig();
    const config = parse(readFileSync(file, 'utf8'));
    ticketsToken = join(dirname(file), 'tickets-token');
    copyFileSync(config.sources.connectors[0].auth.secret.file, ticketsToken);
    config.sources.connectors[0].auth.secret.file = ticketsToken;
    [server, browser] = await Promise.all([startTestServer(writeConfig(config, dirname(file))), launchBrowser()]);
    for (const key of [ACME_KEY, GLOBEX_KEY]) {
      const res = await fetch(`${server.url}/tools`, { headers: { authorization: `Bearer ${key}` } });
      catalogs.set(key, (await res.json()) as Tool[]);
    }
  });
  after(async () => {
    await browser?.close();
    await server?.close();
  });

  /** A fresh tab (its own sessionStorage) that records every request it makes and every CSP complaint. */
  async function tab(viewport = { width: 1440, height: 900 }): Promise<{ page: Page; requests: Request[]; cspErrors: string[] }> {
    const context = await browser.newContext({ viewport });
    contexts.push(context);
    const page = await context.newPage();
    page.setDefaultTimeout(15_000);
    const requests: Request[] = [];
    const cspErrors: string[] = [];
    page.on('request', (r) => requests.push(r));
    page.on('console', (m) => {
      if (/Content Security Policy/i.test(m.text())) cspErrors.push(m.text());
    });
    page.on('pageerror', (e) => cspErrors.push(`page error: ${e.message}`));
    return { page, requests, cspErrors };
  }

  test('the shell and its assets answer without a credential, with the CSP and caching headers', async () => {
    const index = await fetch(`${server.url}/ui/`);
    assert.equal(index.status, 200);
    assert.match(index.headers.get('content-type') ?? '', /^text\/html/);
    const csp = index.headers.get('content-security-policy') ?? '';
    for (const directive of ["default-src 'none'", "script-src 'self'", "style-src 'self'", "connect-src 'self'", "base-uri 'none'", "form-action 'none'", "frame-ancestors 'none'"]) {
      assert.ok(csp.includes(directive), `CSP has ${directive}: ${csp}`);
    }
    assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval|https?:/);
    assert.equal(index.headers.get('x-content-type-options'), 'nosniff');
    assert.equal(index.headers.get('referrer-policy'), 'no-referrer');
    assert.equal(index.headers.get('cache-control'), 'no-cache');
    const html = await index.text();
    assert.doesNotMatch(html, /<script(?![^>]*\bsrc=)/, 'no inline script');
    assert.doesNotMatch(html, /\sstyle=|<style/, 'no inline style');
    const script = /src="(\/ui\/[0-9a-f]{16}\/main\.js)"/.exec(html)?.[1];
    assert.ok(script, 'the shell names its scripts under a content-hashed path');
    const js = await fetch(`${server.url}${script}`);
    assert.equal(js.status, 200);
    assert.match(js.headers.get('content-type') ?? '', /^text\/javascript/);
    assert.equal(js.headers.get('cache-control'), 'public, max-age=31536000, immutable');
    assert.equal(js.headers.get('content-security-policy'), csp);
    const etag = js.headers.get('etag');
    assert.ok(etag);
    assert.equal((await fetch(`${server.url}${script}`, { headers: { 'if-none-match': etag } })).status, 304);
    assert.equal((await fetch(`${server.url}/ui/0000000000000000/main.js`)).status, 404, 'another build is not served');
    assert.equal((await fetch(`${server.url}${script.replace('main.js', '../../tools')}`)).status, 401, 'no way out of /ui/ to the API without a credential');
    const redirect = await fetch(`${server.url}/ui`, { redirect: 'manual' });
    assert.equal(redirect.status, 308);
    assert.equal(redirect.headers.get('location'), '/ui/');
  });

  test('server.ui: false serves no page', async () => {
    const off = await startTestServer(writeConfig({ server: { ui: false }, tenants: { t: { tools: ['*'] } } }));
    try {
      const res = await fetch(`${off.url}/ui/`);
      assert.equal(res.status, 404, 'an unknown path, like any other');
      assert.equal(res.headers.get('content-security-policy'), null);
    } finally {
      await off.close();
    }
  });

  test('each demo tenant sees exactly its GET /tools; every API request carries the bearer header and no URL the credential', async () => {
    const tables = new Map<string, string[]>();
    for (const key of [ACME_KEY, GLOBEX_KEY]) {
      const { page, requests, cspErrors } = await tab();
      await signIn(page, server.url, key);
      await page.waitForSelector('table.tools td.tool-id a');
      const ids = await tableToolIds(page);
      assert.deepEqual([...ids].sort(), catalogs.get(key)!.map((t) => t.toolId).sort());
      assert.equal(await page.textContent('.count'), `${ids.length} tools`);
      tables.set(key, ids);
      // Visit every page so that every kind of API request is made.
      const first = catalogs.get(key)![0].toolId;
      await page.goto(`${server.url}/ui/#/tool/${encodeURIComponent(first)}`);
      await page.waitForSelector('#snippet-mcp');
      await page.goto(`${server.url}/ui/#/activity`);
      await page.waitForSelector('#live-state.state-live');
      await page.goto(`${server.url}/ui/#/sources`);
      await page.waitForSelector('#sources');
      const api = requests.filter((r) => !new URL(r.url()).pathname.startsWith('/ui/') && new URL(r.url()).origin === server.url);
      const paths = new Set(api.map((r) => new URL(r.url()).pathname));
      for (const p of ['/tools', '/mcp', '/events', '/events/stream', '/health/sources']) assert.ok(paths.has(p), `the page called ${p}: ${[...paths].join(', ')}`);
      for (const r of api) assert.equal((await r.allHeaders()).authorization, `Bearer ${key}`, `${r.method()} ${r.url()}`);
      for (const r of requests) assert.ok(!r.url().includes(key), `no credential in ${r.url()}`);
      assert.deepEqual(cspErrors, []);
    }
    assert.notDeepEqual(tables.get(ACME_KEY)!.sort(), tables.get(GLOBEX_KEY)!.sort());
  });

  test('search and filters narrow the table as the data says they should', async () => {
    const { page } = await tab();
    await signIn(page, server.url, ACME_KEY);
    await page.waitForSelector('table.tools td.tool-id a');
    const tools = catalogs.get(ACME_KEY)!;
    const expectIds = async (predicate: (t: Tool) => boolean, what: string): Promise<void> => {
      const want = tools.filter(predicate).map((t) => t.toolId).sort();
      assert.ok(want.length > 0 && want.length < tools.length, `${what} is a real narrowing`);
      await page.waitForFunction((n) => (globalThis as any).document.querySelector('.count').textContent.startsWith(`${n} of`), want.length);
      assert.deepEqual((await tableToolIds(page)).sort(), want, what);
    };
    const text = (t: Tool): string => `${t.toolId}\n${t.title ?? ''}\n${t.description ?? ''}`.toLowerCase();
    await page.fill('#catalog-search', 'ticket');
    await expectIds((t) => text(t).includes('ticket'), 'search "ticket"');
    // A word only a description holds.
    await page.fill('#catalog-search', 'argv');
    await expectIds((t) => text(t).includes('argv'), 'search in descriptions');
    await page.fill('#catalog-search', '');
    await page.selectOption('#catalog-tier', 'pure');
    await expectIds((t) => t.safetyTier === 'pure', 'tier pure');
    assert.equal(await page.textContent('table.tools tr:has(a:text-is("mcp:everything.echo")) .badge'), 'pure');
    await page.selectOption('#catalog-source', 'mcp');
    await expectIds((t) => t.safetyTier === 'pure' && t.source === 'mcp', 'tier pure and source mcp');
    await page.selectOption('#catalog-tier', '');
    await page.fill('#catalog-search', 'get');
    await expectIds((t) => t.source === 'mcp' && text(t).includes('get'), 'source mcp and search');
  });

  test('the tool page: MCP name from tools/list, the compact view\'s loosenings highlighted, snippets without the credential', async () => {
    const client = new Client({ name: 'ui-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${ACME_KEY}` } } }));
    const listed = await client.listTools();
    await client.close();
    const ids = catalogs.get(ACME_KEY)!.map((t) => t.toolId);
    const { page } = await tab();
    await signIn(page, server.url, ACME_KEY);
    await page.waitForSelector('table.tools td.tool-id a');
    // Through the table's link, as a person would.
    await page.click('a:text-is("x-host-acme-run-command")');
    await page.waitForSelector('#snippet-mcp');
    const name = listed.tools[ids.indexOf('x-host-acme-run-command')].name;
    assert.equal(await page.textContent('#mcp-name'), name);
    // A tool in the middle of the list: the one-page cursor lookup, not the first page.
    await page.goto(`${server.url}/ui/#/tool/${encodeURIComponent(ids[17])}`);
    await page.waitForFunction((n) => (globalThis as any).document.querySelector('#mcp-name')?.textContent === n, listed.tools[17].name);
    await page.goto(`${server.url}/ui/#/tool/x-host-acme-run-command`);
    await page.waitForSelector('#snippet-mcp');
    assert.equal(await page.textContent('h1 .badge'), 'exec');
    const loosened = (await page.textContent('#loosened-list')) ?? '';
    assert.match(loosened, /\/ drops required/, 'the compact view drops the top-level required list');
    const marked = await page.$$eval('pre.json .line.loosened', (lines) => lines.map((l) => l.textContent));
    assert.ok(marked.some((l) => l?.includes('"required": [')), `highlighted: ${marked.join(' | ')}`);
    const mcp = (await page.textContent('#snippet-mcp')) ?? '';
    assert.ok(mcp.includes(JSON.stringify(name)) && mcp.includes(`${server.url}/mcp`) && mcp.includes('"flag":"-a"'));
    const curl = (await page.textContent('#snippet-curl')) ?? '';
    assert.ok(curl.includes(`${server.url}/tools/x-host-acme-run-command`));
    assert.ok(!mcp.includes(ACME_KEY) && !curl.includes(ACME_KEY), 'snippets name $TOOLHOST_TOKEN, never the credential');
  });

  test('a hostile tool id stays one segment under /tools/: `..` and `/` never send the credential to another endpoint', async () => {
    const { page, requests } = await tab();
    await signIn(page, server.url, ACME_KEY);
    await page.waitForSelector('table.tools td.tool-id a');
    const hostile = ['../../events', 'z/../../tools/x-host-acme-run-command', '..'];
    for (const id of hostile) {
      const from = requests.length;
      await page.goto(`${server.url}/ui/#/tool/${encodeURIComponent(id)}`);
      await page.waitForSelector('p.problem[role=alert]');
      const api = requests.slice(from).map((r) => new URL(r.url())).filter((u) => u.origin === server.url && !u.pathname.startsWith('/ui/'));
      for (const u of api) {
        assert.ok(u.pathname.startsWith('/tools/') || u.pathname === '/mcp' || (u.pathname === '/events' && u.searchParams.has('after')) || u.pathname === '/events/stream', `${id}: ${u.href}`);
        if (u.pathname.startsWith('/tools/')) assert.equal(decodeURIComponent(u.pathname.slice('/tools/'.length)), id);
      }
      // Off the page and back, so the next id's problem is a fresh one.
      await page.goto(`${server.url}/ui/#/sources`);
      await page.waitForSelector('#sources');
    }
  });

  test('resources and prompts: acme lists the everything server\'s, reads text inline and a blob as a download, renders a prompt; globex sees none', async () => {
    const { page } = await tab();
    await signIn(page, server.url, ACME_KEY);
    await page.waitForSelector('table.tools td.tool-id a');
    await page.click('nav a[href="#/resources"]');
    await page.waitForSelector('#resources');
    const uris = await page.$$eval('#resources td.tool-id a', (as) => as.map((a) => a.textContent));
    assert.ok(uris.includes('toolhost-mcp://everything/demo://resource/static/document/instructions.md'), uris.join(', '));
    assert.ok(((await page.textContent('#templates')) ?? '').includes('toolhost-mcp://everything/demo://resource/dynamic/blob/{resourceId}'));
    await page.click('a:text-is("toolhost-mcp://everything/demo://resource/static/document/instructions.md")');
    await page.waitForSelector('#content-0');
    assert.ok(((await page.textContent('#content-0')) ?? '').length > 100);
    await page.goto(`${server.url}/ui/#/resource/${encodeURIComponent('toolhost-mcp://everything/demo://resource/dynamic/blob/5')}`);
    const download = await Promise.all([page.waitForEvent('download'), page.click('#download-0')]).then(([d]) => d);
    const { readFile } = await import('node:fs/promises');
    assert.match(await readFile((await download.path())!, 'utf8'), /^Resource 5: This is a base64 blob/);
    await page.goto(`${server.url}/ui/#/prompt/${encodeURIComponent('everything.args-prompt')}`);
    await page.fill('#arg-city', 'Lisbon');
    await page.click('#prompt-form button[type=submit]');
    await page.waitForSelector('#prompt-messages .message');
    assert.match((await page.textContent('#prompt-messages')) ?? '', /What's weather in Lisbon\?/);
    // The get is an event of the tenant's log, shown in Activity with its item id and size.
    await page.goto(`${server.url}/ui/#/activity`);
    await page.waitForSelector('#sessions td.tool-id:text-is("mcp:everything.args-prompt")');

    const other = await tab();
    await signIn(other.page, server.url, GLOBEX_KEY);
    await other.page.waitForSelector('table.tools td.tool-id a');
    await other.page.goto(`${server.url}/ui/#/resources`);
    await other.page.waitForSelector('#resources-none');
    assert.equal(await other.page.locator('#prompts-none').count(), 1);
  });

  test('try it: a pure tool answers, and its tool session\'s events are shown; a reload keeps the MCP session', async () => {
    const { page, requests } = await tab();
    await signIn(page, server.url, GLOBEX_KEY);
    await page.waitForSelector('table.tools td.tool-id a');
    await page.goto(`${server.url}/ui/#/tool/${encodeURIComponent('openwop:text.uppercase')}`);
    await page.locator('.try-form .field').filter({ hasText: 'text' }).locator('input, textarea').fill('héllo <b>world</b>');
    await page.click('#call-tool');
    await page.waitForSelector('#call-events');
    assert.match((await page.textContent('#call-result')) ?? '', /HÉLLO <B>WORLD<\/B>/, 'the answer, as text: markup from a tool is never markup');
    assert.equal(await page.locator('#call-result b').count(), 0);
    const rows = await page.$$eval('#call-events tbody tr', (trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent)));
    assert.deepEqual(rows.map((r) => r[1]), ['tool.session.opened', 'agent.toolCalled', 'agent.toolReturned', 'tool.session.closed']);
    assert.equal(rows[2][2], 'ok');
    assert.equal(rows[3][4], 'completed');

    await page.reload();
    await page.locator('.try-form .field').filter({ hasText: 'text' }).locator('input, textarea').fill('again');
    await page.click('#call-tool');
    await page.waitForSelector('#call-events');
    assert.match((await page.textContent('#call-result')) ?? '', /AGAIN/);
    const mcpPosts = requests.filter((r) => r.method() === 'POST' && new URL(r.url()).pathname === '/mcp');
    assert.equal(mcpPosts.filter((r) => (r.postData() ?? '').includes('"method":"initialize"')).length, 1, 'one MCP session for the tab, reused after the reload');
  });

  test('try it: an approval tool asks with a confirm dialog showing the arguments; accept runs it, decline refuses it', async () => {
    const { page } = await tab();
    await signIn(page, server.url, ACME_KEY);
    await page.waitForSelector('table.tools td.tool-id a');
    await page.goto(`${server.url}/ui/#/tool/x-host-acme-run-command`);
    await page.selectOption('.try-form select', { label: '"-s"' });

    await page.click('#call-tool');
    await page.waitForSelector('dialog.confirm[open]');
    assert.match((await page.textContent('dialog.confirm')) ?? '', /x-host-acme-run-command[\s\S]*"flag": "-s"/);
    await page.click('#approve-call');
    await page.waitForSelector('#call-events');
    assert.match((await page.textContent('#call-result')) ?? '', /The tool answered[\s\S]*Linux/);
    assert.equal(await page.textContent('#call-events tbody tr:last-child td:nth-child(5)'), 'completed');

    await page.click('#call-tool');
    await page.waitForSelector('dialog.confirm[open]');
    await page.click('#decline-call');
    await page.waitForSelector('#call-events');
    assert.match((await page.textContent('#call-result')) ?? '', /The host refused the call: .*declined/i);
    assert.equal(await page.textContent('#call-events tbody tr:last-child td:nth-child(5)'), 'failed');
    assert.equal(await page.locator('dialog').count(), 0, 'the dialog is gone');
  });

  test('a call an agent makes appears in Activity without a reload, and opens to its events', async () => {
    const { page } = await tab();
    await signIn(page, server.url, GLOBEX_KEY);
    await page.waitForSelector('table.tools td.tool-id a');
    await page.goto(`${server.url}/ui/#/activity`);
    await page.waitForSelector('#live-state.state-live');
    await page.evaluate('window.__notReloaded = true');
    const before = await page.locator('#sessions tr[data-session]').count();

    const agent = new Client({ name: 'ui-test-agent', version: '1.0.0' });
    await agent.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${GLOBEX_KEY}` } } }));
    await agent.callTool({ name: 'mcp:everything.get-sum', arguments: { a: 2, b: 3 } });
    await agent.close();

    await page.waitForFunction((n) => (globalThis as any).document.querySelectorAll('#sessions tr[data-session]').length === n, before + 1);
    const row = page.locator('#sessions tr[data-session]').first();
    assert.equal(await row.locator('td.tool-id').textContent(), 'mcp:everything.get-sum');
    assert.equal(await row.locator('td:nth-child(3)').textContent(), 'globex-agent');
    await page.waitForFunction(() => (globalThis as any).document.querySelector('#sessions tr[data-session] td:nth-child(6)').textContent === 'completed');
    assert.equal(await page.evaluate('window.__notReloaded'), true);
    await row.locator('a:text-is("Events")').click();
    await page.waitForSelector('#session-events');
    assert.equal(await page.locator('#session-events tbody tr').count(), 4);
  });

  test('a wrong key gets a clear message and is not kept', async () => {
    const { page, requests } = await tab();
    await signIn(page, server.url, 'not-a-real-key');
    await page.waitForFunction(() => (globalThis as any).document.querySelector('#sign-in-problem').textContent !== '');
    assert.match((await page.textContent('#sign-in-problem')) ?? '', /did not accept this credential/);
    assert.equal(await page.evaluate('sessionStorage.length'), 0);
    assert.ok(requests.every((r) => !r.url().includes('not-a-real-key')));
  });

  const activeText = (page: Page): Promise<string> => page.evaluate('document.activeElement.textContent') as Promise<string>;
  const frames = (page: Page): Promise<unknown> => page.evaluate('new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))');

  test('keyboard: Tab walks every row of the virtual table as it scrolls; each navigation focuses the new page\'s heading', async () => {
    // A short window: the table holds fewer rows than the catalog, so Tab makes it scroll and repaint.
    const { page } = await tab({ width: 1440, height: 400 });
    await signIn(page, server.url, ACME_KEY);
    await page.waitForSelector('table.tools td.tool-id a');
    assert.equal(await page.evaluate('document.activeElement.tagName'), 'H1', 'the catalog\'s heading has focus after sign-in');
    const ids = catalogs.get(ACME_KEY)!.map((t) => t.toolId);
    const windowRows = await page.locator('table.tools tbody tr:not(.spacer)').count();
    assert.ok(windowRows < ids.length, `the window (${windowRows} rows) is smaller than the catalog (${ids.length})`);
    await page.focus('table.tools td.tool-id a');
    for (let i = 1; i < ids.length; i++) {
      await page.keyboard.press('Tab');
      await frames(page);
      assert.equal(await activeText(page), ids[i], `Tab ${i} reaches row ${i + 1}`);
    }
    await page.keyboard.press('Enter');
    await page.waitForSelector('#snippet-mcp');
    assert.equal(await page.evaluate('document.activeElement.tagName'), 'H1');
    assert.equal(await page.evaluate('location.hash'), `#/tool/${encodeURIComponent(ids.at(-1)!)}`, 'Enter opened the last row\'s tool');
    await page.click('nav a[href="#/sources"]');
    await page.waitForSelector('#sources');
    assert.equal(await activeText(page), 'Sources');
  });

  test('sign-in reads /tools once; back at the catalog the list and its scroll position are kept; the top bar names who is signed in', async () => {
    const { page, requests } = await tab();
    await signIn(page, server.url, ACME_KEY);
    await page.waitForSelector('table.tools td.tool-id a');
    assert.equal(await page.textContent('#who'), 'Signed in as acme-agent · tenant acme');
    await page.evaluate(`document.querySelector('.table-scroll').scrollTop = 240`);
    await frames(page);
    await page.click('nav a[href="#/sources"]');
    await page.waitForSelector('#sources');
    await page.click('nav a[href="#/catalog"]');
    await page.waitForSelector('table.tools td.tool-id a');
    assert.equal(await page.evaluate(`document.querySelector('.table-scroll').scrollTop`), 240);
    const reads = requests.filter((r) => new URL(r.url()).pathname === '/tools');
    assert.equal(reads.length, 1, 'one GET /tools for the sign-in and both visits of the catalog');
    // Cut cells carry their whole text for hover.
    const cells = (await page.$$eval('table.tools td.tool-id, table.tools td.title', (tds) => tds.map((td) => [td.getAttribute('title'), td.textContent]))) as [string | null, string][];
    assert.ok(cells.length > 0 && cells.every(([title, text]) => text === '' || title === text), JSON.stringify(cells.slice(0, 4)));
  });

  test('an empty search result says so and offers to clear the search and filters', async () => {
    const { page } = await tab();
    await signIn(page, server.url, GLOBEX_KEY);
    await page.waitForSelector('table.tools td.tool-id a');
    const total = catalogs.get(GLOBEX_KEY)!.length;
    await page.selectOption('#catalog-tier', 'pure');
    await page.fill('#catalog-search', 'no-tool-has-this-word');
    await page.waitForSelector('#catalog-empty:visible');
    assert.equal(await page.textContent('.count'), `0 of ${total} tools`);
    assert.match((await page.textContent('#catalog-empty')) ?? '', /No tool matches/);
    await page.click('#clear-filters');
    await page.waitForFunction((n) => (globalThis as any).document.querySelector('.count').textContent === `${n} tools`, total);
    assert.equal(await page.inputValue('#catalog-search'), '');
    assert.equal(await page.inputValue('#catalog-tier'), '');
    assert.equal(await page.locator('#catalog-empty:visible').count(), 0);
    assert.equal(await page.evaluate('document.activeElement.id'), 'catalog-search');
  });

  test('the top bar fits a 420 px window', async () => {
    const { page } = await tab({ width: 420, height: 800 });
    await signIn(page, server.url, GLOBEX_KEY);
    await page.waitForSelector('table.tools td.tool-id a');
    const overflow = (await page.evaluate(`[...document.querySelectorAll('header.topbar, header.topbar *')]
      .filter((e) => e.getClientRects().length > 0 && !e.closest('.sr-only'))
      .map((e) => { const r = e.getBoundingClientRect(); return { what: e.id || e.className || e.tagName, left: r.left, right: r.right }; })
      .filter((r) => r.left < 0 || r.right > 420)`)) as unknown[];
    assert.deepEqual(overflow, []);
    assert.ok(await page.isVisible('#sign-out'));
    assert.ok(await page.isVisible('nav a[href="#/sources"]'));
  });

  test('Sources says when a connector cannot call: its secret taken away, then put back', async () => {
    const { page } = await tab();
    await signIn(page, server.url, ACME_KEY);
    const row = 'table#sources tr:has(td:text-is("connector:tickets")) td.can-call';
    await page.click('nav a[href="#/sources"]');
    await page.waitForSelector('#sources');
    assert.equal(await page.textContent(row), 'yes');
    const saved = readFileSync(ticketsToken);
    rmSync(ticketsToken);
    try {
      await page.reload();
      await page.waitForSelector('#sources');
      assert.match((await page.textContent(row)) ?? '', /^no .*secret.*not configured/);
    } finally {
      writeFileSync(ticketsToken, saved);
    }
  });

  test('axe-core finds no violation of any impact on any page (an empty header and a heading-order jump included)', async () => {
    const { page } = await tab();
    await page.goto(`${server.url}/ui/`);
    await page.waitForSelector('#credential');
    const found: Record<string, unknown> = { signIn: await axeViolations(page, server.url) };
    await page.fill('#credential', ACME_KEY);
    await page.click('form.sign-in button[type=submit]');
    await page.waitForSelector('table.tools td.tool-id a');
    found.catalog = await axeViolations(page, server.url);
    for (const [name, hash, ready] of [
      ['tool', '#/tool/connector%3Atickets.createTicket', '#snippet-mcp'],
      ['activity', '#/activity', '#live-state.state-live'],
      ['sources', '#/sources', '#sources'],
      ['resources', '#/resources', '#resources'],
      ['connections', '#/connections', '#no-connections'],
    ]) {
      await page.goto(`${server.url}/ui/${hash}`);
      await page.waitForSelector(ready);
      found[name] = await axeViolations(page, server.url);
    }
    await page.goto(`${server.url}/ui/#/tool/x-host-acme-run-command`);
    await page.waitForSelector('#snippet-mcp');
    await page.selectOption('.try-form select', { index: 1 });
    await page.click('#call-tool');
    await page.waitForSelector('dialog.confirm[open]');
    found.confirm = await axeViolations(page, server.url);
    await page.click('#decline-call');
    await page.waitForSelector('#call-events');
    found.result = await axeViolations(page, server.url);
    assert.deepEqual(found, { signIn: [], catalog: [], tool: [], activity: [], sources: [], resources: [], connections: [], confirm: [], result: [] });
  });
});
