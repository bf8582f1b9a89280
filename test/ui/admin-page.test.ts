// The catalog browser's admin page (docs/ui.md "Admin") in headless Chromium
// against one real host: an admin adds an MCP server (the published
// everything server), sees the host's dry-run diff before anything changes,
// applies it, finds its tools in the catalog, meets a 412 when the server was
// changed meanwhile, removes it and reads both changes in the audit trail; an
// admin key without a tenant lands on the admin page; a non-admin is shown
// no admin page, because the admin API answers it as an unknown route.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { hashApiKey } from '../../src/auth/api-keys.js';
import { startTestServer, writeConfig, type TestServer } from '../helpers/server.js';
import { launchBrowser } from './browser.js';
import { axeViolations, signIn, tableToolIds } from './page-helpers.js';

const root = new URL('../../', import.meta.url).pathname;
const EVERYTHING = join(root, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');
const TICKETS = join(root, 'examples/demo/openapi/tickets.yaml');
const TENANT_ADMIN = 'tenant-admin-key';
const ADMIN_ONLY = 'ops-admin-key';
const MEMBER = 'member-key';

const configFile = writeConfig({
  tenants: { acme: { tools: ['*'] } },
  principals: [
    { id: 'alice-admin', tenant: 'acme', keyHash: hashApiKey(TENANT_ADMIN), scopes: ['toolhost:admin'] },
    { id: 'bob', tenant: 'acme', keyHash: hashApiKey(MEMBER) },
  ],
  admin: { keys: [{ id: 'ops', keyHash: hashApiKey(ADMIN_ONLY) }] },
});

describe('admin page (/ui/#/admin)', { timeout: 120_000 }, () => {
  let server: TestServer;
  let browser: Browser;
  const contexts: BrowserContext[] = [];

  before(async () => {
    [server, browser] = await Promise.all([startTestServer(configFile), launchBrowser()]);
  });
  after(async () => {
    await browser?.close();
    await server?.close();
  });

  async function tab(): Promise<{ page: Page; errors: string[] }> {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    contexts.push(context);
    const page = await context.newPage();
    page.setDefaultTimeout(20_000);
    const errors: string[] = [];
    page.on('console', (m) => {
      if (/Content Security Policy/i.test(m.text())) errors.push(m.text());
    });
    page.on('pageerror', (e) => errors.push(`page error: ${e.message}`));
    return { page, errors };
  }

  const api = async (path: string, init: { method?: string; body?: unknown; headers?: Record<string, string> } = {}) =>
    fetch(server.url + path, {
      method: init.method ?? 'GET',
      headers: { authorization: `Bearer ${ADMIN_ONLY}`, ...(init.body === undefined ? {} : { 'content-type': 'application/json' }), ...init.headers },
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
    });
  const served = async () => ((await (await fetch(`${server.url}/tools`, { headers: { authorization: `Bearer ${MEMBER}` } })).json()) as { toolId: string }[]).map((t) => t.toolId);

  test('an admin adds an MCP server after its dry run, sees its tools, meets a 412, removes it and reads the audit trail', async () => {
    const { page, errors } = await tab();
    await signIn(page, server.url, TENANT_ADMIN);
    await page.waitForSelector('nav a[href="#/admin"]:not([hidden])');
    await page.click('nav a[href="#/admin"]');
    await page.waitForSelector('#admin-add-mcp');
    assert.equal(await page.textContent('#admin-audit-empty'), 'No changes yet.');

    await page.click('#admin-add-mcp');
    await page.fill('#src-id', 'everything');
    await page.fill('#src-command', process.execPath);
    await page.fill('#src-args', `${EVERYTHING}\nstdio`);
    await page.click('#source-form button[type=submit]');
    await page.waitForSelector('#admin-diff');
    const added = await page.$$eval('#admin-diff section[aria-label="Tenant acme"] li', (items) => items.map((li) => li.textContent));
    assert.ok(added.includes('mcp:everything.echo'), `the dry run lists the new tools: ${added.join(', ')}`);
    assert.ok(!(await served()).includes('mcp:everything.echo'), 'a dry run changes nothing');
    assert.deepEqual(await axeViolations(page, server.url), [], 'the preview is accessible');

    await page.click('#admin-apply');
    await page.waitForSelector('#admin-status:text("Applied: add MCP server everything.")');
    assert.ok((await served()).includes('mcp:everything.echo'));
    assert.match((await page.textContent('#admin-mcp tr[data-id="everything"]')) ?? '', /stdio/);
    assert.deepEqual(await page.$$eval('#admin-audit tbody tr td:nth-child(4)', (cells) => cells.map((c) => c.textContent)), ['create']);
    assert.deepEqual(await axeViolations(page, server.url), [], 'the admin page is accessible');

    await page.click('nav a[href="#/catalog"]');
    const ids = await tableToolIds(page);
    assert.ok(ids.includes('mcp:everything.echo'), 'its tools are in the catalog');

    // Someone else changes the server while this page holds its ETag.
    await page.click('nav a[href="#/admin"]');
    await page.click('button[aria-label="Edit MCP server everything"]');
    await page.waitForSelector('#source-form');
    const read = await api('/admin/v1/sources/mcp/everything');
    const current = (await read.json()) as Record<string, unknown>;
    const put = await api('/admin/v1/sources/mcp/everything', { method: 'PUT', body: { ...current, args: [EVERYTHING, 'stdio', '--'] }, headers: { 'if-match': read.headers.get('etag')! } });
    assert.equal(put.status, 200);
    await page.click('#source-form button[type=submit]');
    await page.waitForSelector('#admin-conflict');
    assert.match((await page.textContent('#admin-conflict')) ?? '', /^Changed meanwhile/);
    await page.click('#admin-reload');
    await page.waitForSelector('#admin-status:text("Reloaded")');

    await page.click('button[aria-label="Remove MCP server everything"]');
    await page.waitForSelector('#admin-diff');
    const removed = await page.$$eval('#admin-diff section[aria-label="Tenant acme"] li', (items) => items.map((li) => li.textContent));
    assert.ok(removed.includes('mcp:everything.echo'), `the dry run lists the tools removed: ${removed.join(', ')}`);
    await page.click('#admin-apply');
    await page.waitForSelector('#admin-status:text("Applied: remove MCP server everything.")');
    assert.equal(await page.$('#admin-mcp tr[data-id="everything"]'), null);
    assert.ok(!(await served()).includes('mcp:everything.echo'));
    const audit = await page.$$eval('#admin-audit tbody tr', (rows) => rows.map((r) => [...r.querySelectorAll('td')].slice(2, 5).map((c) => c.textContent)));
    assert.deepEqual(audit, [
      ['alice-admin', 'delete', '/admin/v1/sources/mcp/everything'],
      ['ops', 'replace', '/admin/v1/sources/mcp/everything'],
      ['alice-admin', 'create', '/admin/v1/sources/mcp'],
    ]);
    assert.deepEqual(errors, []);
  });

  test('an admin key without a tenant lands on the admin page, adds a connector by document, and is shown a refused change\'s problems', async () => {
    const { page, errors } = await tab();
    await signIn(page, server.url, ADMIN_ONLY);
    await page.waitForSelector('#admin-add-mcp');
    assert.equal(await page.isVisible('nav a[href="#/admin"]'), true);
    assert.equal(await page.isVisible('nav a[href="#/catalog"]'), false, 'no tenant, so no catalog');

    await page.click('#admin-add-connectors');
    await page.fill('#src-id', 'tickets');
    await page.fill('#src-document', TICKETS);
    assert.deepEqual(await axeViolations(page, server.url), [], 'the form is accessible');
    await page.click('#source-form button[type=submit]');
    await page.waitForSelector('#admin-diff');
    const added = await page.$$eval('#admin-diff section[aria-label="Tenant acme"] li', (items) => items.map((li) => li.textContent));
    assert.ok(added.includes('connector:tickets.listTickets'), added.join(', '));
    await page.click('#admin-apply');
    await page.waitForSelector('#admin-status:text("Applied: add connector tickets.")');
    assert.equal(await page.textContent('#admin-connectors tr[data-id="tickets"] td:nth-child(3)'), TICKETS);
    assert.ok((await served()).includes('connector:tickets.listTickets'));

    await page.click('#admin-add-mcp');
    await page.fill('#src-id', 'Not An Id');
    await page.fill('#src-command', process.execPath);
    await page.click('#source-form button[type=submit]');
    await page.waitForSelector('#admin-problems');
    assert.match((await page.textContent('#admin-problems')) ?? '', /body \/id: /);
    assert.deepEqual(errors, []);
  });

  test('a non-admin sees no admin page: the admin API answers it as an unknown route', async () => {
    const { page, errors } = await tab();
    const probes: number[] = [];
    page.on('response', (r) => {
      if (new URL(r.url()).pathname.startsWith('/admin/')) probes.push(r.status());
    });
    await signIn(page, server.url, MEMBER);
    await page.waitForSelector('.count');
    assert.ok(probes.length > 0 && probes.every((s) => s === 404), `the page asked the API: ${probes.join(', ')}`);
    assert.equal(await page.isVisible('nav a[href="#/admin"]'), false);
    await page.goto(`${server.url}/ui/#/admin`);
    await page.waitForSelector('h1:text("Not found")');
    assert.equal(await page.$('#admin-mcp, #admin-add-mcp, #admin-audit'), null);
    assert.deepEqual(errors, []);
  });
});
