// The catalog browser's Connections page in headless Chromium (docs/ui.md
// "Connections"), against a host with a per-principal MCP server, an OAuth
// MCP server (a local authorization server issuing signed tokens) and a
// token-exchange source. Checked: the page lists the caller's connections;
// a secret typed in the password field is stored (PUT) and the next call
// carries it; the OAuth link goes through the authorization server and back,
// and the page then shows the grant's scopes and expiry; disconnecting
// (DELETE) forgets both and revokes the grant; no secret in any URL or left
// in the page; axe finds nothing serious.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import type { Browser, Page, Request } from 'playwright-core';
import { hashApiKey } from '../../src/auth/api-keys.js';
import { startAuthorizationServer, type AuthorizationServer } from '../auth/oauth-as-fixture.js';
import { freePort } from '../helpers/postgres.js';
import pino from 'pino';
import { serve, type RunningServer } from '../../src/host/serve.js';
import { tempDir, writeConfig } from '../helpers/server.js';
import { bearerTokens, startWhoamiMcp, type Upstream } from '../upstream/fixtures.js';
import { launchBrowser } from './browser.js';
import { axeViolations, signIn } from './page-helpers.js';

const SERVICE = 'svc-listing-token-71c0';
const SECRET = 'alice-personal-token-5be2d9';

describe('catalog browser: Connections', { timeout: 120_000 }, () => {
  let as: AuthorizationServer;
  let who: Upstream;
  let remote: Upstream;
  let host: RunningServer;
  let browser: Browser;
  let page: Page;
  const requests: Request[] = [];
  const pageErrors: string[] = [];

  before(async () => {
    const dir = tempDir();
    as = await startAuthorizationServer({});
    const jwks = createRemoteJWKSet(new URL(as.jwksUrl));
    let resource = '';
    who = await startWhoamiMcp(bearerTokens({ [SERVICE]: 'service', [SECRET]: 'alice' }));
    remote = await startWhoamiMcp(async (req) => {
      const m = /^Bearer (.+)$/.exec(req.headers.authorization ?? '');
      if (m?.[1] === SERVICE) return 'service';
      if (!m) return undefined;
      return jwtVerify(m[1], jwks, { issuer: as.issuer, audience: resource }).then(({ payload }) => payload.sub, () => undefined);
    }, as.issuer);
    resource = remote.url;
    const port = await freePort();
    const shared = { transport: 'http', headers: { Authorization: `Bearer ${SERVICE}` }, pingIntervalMs: 0, refreshIntervalMs: 0 };
    const config = writeConfig(
      {
        tenants: { acme: { tools: ['*'] } },
        principals: [{ id: 'alice', tenant: 'acme', keyHash: hashApiKey('alice-key') }],
        events: { file: `${dir}/events.sqlite` },
        upstreamCredentials: { keys: [{ id: 'k1', secret: { env: 'SEALING_KEY' } }], publicUrl: `http://127.0.0.1:${port}` },
        sources: {
          mcp: [
            { id: 'who', url: who.url, ...shared, credentials: { mode: 'per-principal', label: 'Who' } },
            { id: 'remote', url: remote.url, ...shared, credentials: { mode: 'oauth', label: 'Remote', oauth: { scopes: ['files.read', 'files.write'] } } },
            { id: 'exchanged', url: who.url, ...shared, credentials: { mode: 'token-exchange', label: 'Exchanged', tokenExchange: { forward: true } } },
          ],
        },
      },
      dir,
    );
    [host, browser] = await Promise.all([serve(config, { host: '127.0.0.1', port, logger: pino({ level: 'silent' }), env: { ...process.env, SEALING_KEY: Buffer.alloc(32, 5).toString('hex') } }), launchBrowser()]);
    // The authorization server approves at once, for the person this header names.
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, extraHTTPHeaders: { 'x-test-user': 'alice@remote' } });
    page = await context.newPage();
    page.setDefaultTimeout(15_000);
    context.on('request', (r) => requests.push(r));
    page.on('pageerror', (e) => pageErrors.push(e.message));
    page.on('console', (m) => /Content Security Policy/i.test(m.text()) && pageErrors.push(m.text()));
  });

  after(async () => {
    await browser?.close();
    await host?.close();
    await Promise.all([who?.close(), remote?.close(), as?.close()]);
  });

  const card = (source: string) => page.locator(`section.connection[data-source="${source}"]`);
  const state = (source: string) => card(source).locator('.status').textContent();
  const apiStates = async () => {
    const res = await fetch(`${host.url}/connections`, { headers: { authorization: 'Bearer alice-key' } });
    return Object.fromEntries(((await res.json()) as { connections: { source: string; state: string }[] }).connections.map((c) => [c.source, c.state]));
  };

  test('lists the caller\'s connections, and passes axe', async () => {
    await signIn(page, host.url, 'alice-key');
    await page.click('nav a[href="#/connections"]');
    await page.waitForSelector('#connections');
    assert.deepEqual(await page.locator('section.connection h2').allTextContents(), ['Who', 'Remote', 'Exchanged']);
    assert.equal(await state('mcp:who'), 'not connected');
    assert.equal(await state('mcp:remote'), 'not connected');
    assert.match((await card('mcp:exchanged').textContent()) ?? '', /Nothing to connect/);
    assert.equal(await page.title(), 'Connections · toolhost');
    assert.deepEqual(await axeViolations(page, host.url), []);
  });

  test('a secret typed in the password field is stored, and the next call carries it', async () => {
    await card('mcp:who').locator('input[type=password]').fill(SECRET);
    await card('mcp:who').locator('button[type=submit]').click();
    await page.waitForFunction(() => (globalThis as any).document.querySelector('#connections-status')?.textContent === 'Who connected.');
    assert.equal(await state('mcp:who'), 'connected');
    assert.equal((await apiStates())['mcp:who'], 'connected');
    assert.equal(await card('mcp:who').locator('input[type=password]').inputValue(), '', 'the secret is not left in the page');
    const client = new Client({ name: 't', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${host.url}/mcp`), { requestInit: { headers: { authorization: 'Bearer alice-key' } } }));
    const { tools } = await client.listTools();
    const r = (await client.callTool({ name: tools.find((t) => t.name.startsWith('mcp__who'))!.name, arguments: {} })) as CallToolResult;
    await client.close();
    assert.equal((r.structuredContent as { subject: string }).subject, 'alice');
  });

  test('the OAuth link connects through the authorization server; the page shows scopes and expiry', async () => {
    const [popup] = await Promise.all([page.waitForEvent('popup'), card('mcp:remote').locator('a.connect').click()]);
    await popup.waitForURL(/\/oauth\/callback/);
    assert.match((await popup.textContent('body')) ?? '', /Connected mcp:remote/);
    await popup.close();
    await page.reload();
    await page.waitForSelector('#connections');
    assert.equal(await state('mcp:remote'), 'connected');
    assert.equal(await card('mcp:remote').locator('.scopes').textContent(), 'files.read files.write');
    assert.match((await card('mcp:remote').locator('.expires').textContent()) ?? '', /renewed before use/);
    assert.match((await card('mcp:remote').locator('a.connect').textContent()) ?? '', /^Reconnect Remote$/);
    assert.deepEqual(await axeViolations(page, host.url), []);
  });

  test('disconnect forgets the secret and revokes the grant', async () => {
    await card('mcp:who').getByRole('button', { name: 'Disconnect Who' }).click();
    await page.waitForFunction(() => (globalThis as any).document.querySelector('#connections-status')?.textContent === 'Who disconnected.');
    await card('mcp:remote').getByRole('button', { name: 'Disconnect Remote' }).click();
    await page.waitForFunction(() => (globalThis as any).document.querySelector('#connections-status')?.textContent === 'Remote disconnected.');
    assert.equal(await state('mcp:who'), 'not connected');
    assert.equal(await state('mcp:remote'), 'not connected');
    assert.deepEqual(await apiStates(), { 'mcp:who': 'not_connected', 'mcp:remote': 'not_connected', 'mcp:exchanged': 'connected' });
    assert.equal(as.revoked.length, 1);
  });

  test('no secret in any URL, and no page error or CSP complaint', () => {
    assert.ok(requests.length > 10);
    for (const r of requests) assert.ok(!r.url().includes(SECRET) && !r.url().includes('alice-key'), r.url());
    const puts = requests.filter((r) => r.method() === 'PUT');
    assert.equal(puts.length, 1);
    assert.equal(puts[0].headers().authorization, 'Bearer alice-key');
    assert.deepEqual(pageErrors, []);
  });
});
