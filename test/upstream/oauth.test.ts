// `oauth`: the host is an OAuth 2.1 client of a remote MCP server's
// authorization server on each person's behalf. Real local servers: an
// authorization server issuing signed JWTs (discovery, dynamic registration,
// PKCE, resource indicators, rotating refresh tokens, revocation, `iss`), and
// an MCP server that accepts only its tokens for its own audience and reports
// the subject. The browser leg is followed with fetch: the connect link, the
// redirect to the authorization server (the person is named by a header),
// the callback with the cookie. Checked: a call before connecting gets the
// link; after connecting the same call reaches the upstream as that person;
// CSRF (no or another browser's cookie) and mix-up (another issuer) are
// refused; concurrent calls needing a refresh make one; a refused refresh
// asks again; disconnecting revokes; no token in results, logs or the table.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import Database from 'better-sqlite3';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import pino from 'pino';
import { hashApiKey } from '../../src/auth/api-keys.js';
import { principalKey, type Principal } from '../../src/auth/principal.js';
import { serve, type RunningServer } from '../../src/host/serve.js';
import { startAuthorizationServer, type AuthorizationServer } from '../auth/oauth-as-fixture.js';
import { freePort } from '../helpers/postgres.js';
import { tempDir, writeConfig } from '../helpers/server.js';
import { bearerTokens, startWhoamiMcp, type Upstream } from './fixtures.js';

const SERVICE = 'svc-listing-token-8a2c';
let as: AuthorizationServer;
let mcp: Upstream;
let host: RunningServer;
let dir: string;
const logs: string[] = [];
const clients: Client[] = [];
const issued: string[] = [];

before(async () => {
  dir = tempDir();
  as = await startAuthorizationServer({});
  const jwks = createRemoteJWKSet(new URL(as.jwksUrl));
  let resource = '';
  mcp = await startWhoamiMcp(async (req) => {
    const m = /^Bearer (.+)$/.exec(req.headers.authorization ?? '');
    if (!m) return undefined;
    if (m[1] === SERVICE) return bearerTokens({ [SERVICE]: 'service' })(req);
    try {
      const { payload } = await jwtVerify(m[1], jwks, { issuer: as.issuer, audience: resource });
      issued.push(m[1]);
      return payload.sub;
    } catch {
      return undefined;
    }
  }, as.issuer);
  resource = mcp.url;
  const port = await freePort();
  const config = writeConfig(
    {
      tenants: { acme: { tools: ['*'] } },
      principals: ['alice', 'bob'].map((id) => ({ id, tenant: 'acme', keyHash: hashApiKey(`${id}-key`) })),
      events: { file: join(dir, 'events.sqlite') },
      upstreamCredentials: { keys: [{ id: 'k1', secret: { env: 'SEALING_KEY' } }], publicUrl: `http://127.0.0.1:${port}` },
      sources: { mcp: [{ id: 'remote', transport: 'http', url: mcp.url, headers: { Authorization: `Bearer ${SERVICE}` }, credentials: { mode: 'oauth' }, pingIntervalMs: 0, refreshIntervalMs: 0 }] },
    },
    dir,
  );
  const logger = pino({ level: 'debug' }, { write: (line: string) => void logs.push(line) });
  host = await serve(config, { host: '127.0.0.1', port, logger, env: { ...process.env, SEALING_KEY: Buffer.alloc(32, 3).toString('hex') } });
});

after(async () => {
  for (const c of clients) await c.close().catch(() => {});
  await host?.close();
  await Promise.all([mcp?.close(), as?.close()]);
});

async function client(who: string): Promise<Client> {
  const c = new Client({ name: 't', version: '1' });
  await c.connect(new StreamableHTTPClientTransport(new URL(`${host.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${who}-key` } } }));
  clients.push(c);
  return c;
}

let toolName = '';
async function whoami(c: Client): Promise<CallToolResult> {
  toolName ||= (await c.listTools()).tools.find((t) => t.name.startsWith('mcp__remote'))?.name ?? assert.fail('no tool');
  return c.callTool({ name: toolName, arguments: {} }) as Promise<CallToolResult>;
}
const linkOf = (r: CallToolResult) => (r._meta?.['toolhost/connect'] as { url: string } | undefined)?.url ?? assert.fail(JSON.stringify(r));

/** The person's browser: opens the link, approves at the authorization server as `person`, follows the redirect back. */
async function browse(link: string, person: string, tamper?: (callback: URL) => void, cookieOverride?: string): Promise<Response> {
  const start = await fetch(link, { redirect: 'manual' });
  assert.equal(start.status, 302, await start.text());
  const cookie = (start.headers.get('set-cookie') ?? '').split(';')[0];
  const authorize = new URL(start.headers.get('location')!);
  assert.equal(authorize.searchParams.get('resource'), mcp.url, 'the RFC 8707 resource');
  assert.equal(authorize.searchParams.get('code_challenge_method'), 'S256');
  assert.equal(authorize.searchParams.get('redirect_uri'), `${host.url}/oauth/callback`);
  const approved = await fetch(authorize, { redirect: 'manual', headers: { 'x-test-user': person } });
  assert.equal(approved.status, 302);
  const callback = new URL(approved.headers.get('location')!);
  tamper?.(callback);
  return fetch(callback, { headers: { cookie: cookieOverride ?? cookie } });
}

describe('oauth', () => {
  test('a call before connecting gets the link; after connecting in the browser the same call runs as that person', async () => {
    const alice = await client('alice');
    const first = await whoami(alice);
    assert.equal(first.isError, true);
    const link = linkOf(first);
    assert.ok(link.startsWith(`${host.url}/connections/mcp%3Aremote/authorize?ticket=`));
    const done = await browse(link, 'alice@upstream');
    assert.equal(done.status, 200, await done.text());
    const second = await whoami(alice);
    assert.equal(second.isError, undefined, JSON.stringify(second));
    assert.equal((second.structuredContent as { subject: string }).subject, 'alice@upstream');
    assert.ok(!JSON.stringify(second).includes(issued[issued.length - 1]), 'the token echoed back is scrubbed');
    const list = (await fetch(`${host.url}/connections`, { headers: { authorization: 'Bearer alice-key' } }).then((r) => r.json())) as { connections: { source: string; state: string; expiresAt?: string }[] };
    const remote = list.connections.find((c) => c.source === 'mcp:remote')!;
    assert.equal(remote.state, 'connected');
    assert.ok(remote.expiresAt);
  });

  test('CSRF and mix-up: a callback without this browser\'s cookie, with another state or another issuer, is refused', async () => {
    const bob = await client('bob');
    const link = linkOf(await whoami(bob));
    const noCookie = await browse(link, 'mallory', undefined, 'toolhost_oauth=');
    assert.equal(noCookie.status, 400);
    const otherState = await browse(link, 'mallory', (u) => u.searchParams.set('state', 'forged'));
    assert.equal(otherState.status, 400);
    assert.match(await otherState.text(), /state mismatch/);
    const otherIssuer = await browse(link, 'mallory', (u) => u.searchParams.set('iss', 'https://evil.example/'));
    assert.equal(otherIssuer.status, 400);
    assert.match(await otherIssuer.text(), /issuer mismatch/);
    assert.equal((await whoami(bob)).isError, true, 'still not connected');
  });

  test('concurrent calls needing a refresh make one refresh; a refused refresh asks again', async () => {
    const bob = await client('bob');
    as.accessTtlSec = 5; // inside the host's refresh-early window: the next use refreshes
    assert.equal((await browse(linkOf(await whoami(bob)), 'bob@upstream')).status, 200);
    const credentials = host.host.credentials!;
    const principal: Principal = { id: 'bob', tenant: 'acme', scopes: new Set(), kind: 'api-key', key: principalKey('api-key', 'acme', 'bob') };
    const before = as.refreshes;
    const release = as.holdRefreshes();
    const pending = Array.from({ length: 6 }, () => credentials.forCall('mcp:remote', principal));
    while (as.refreshes === before) await new Promise((r) => setImmediate(r));
    release();
    const results = await Promise.all(pending);
    assert.equal(as.refreshes - before, 1, 'one refresh for six calls');
    const headers = new Set(results.map((r) => (r && 'credential' in r ? r.credential.headers.Authorization : 'none')));
    assert.equal(headers.size, 1);
    assert.equal((((await whoami(bob)).structuredContent) as { subject: string }).subject, 'bob@upstream');
    as.forgetRefreshTokens();
    const refused = await whoami(bob);
    assert.equal(refused.isError, true);
    assert.ok(linkOf(refused));
    as.accessTtlSec = 300;
  });

  test('disconnecting revokes at the authorization server; no token in logs or the table', async () => {
    const res = await fetch(`${host.url}/connections/mcp%3Aremote`, { method: 'DELETE', headers: { authorization: 'Bearer alice-key' } });
    assert.equal(res.status, 204);
    assert.equal(as.revoked.length, 1);
    assert.equal((await whoami(await client('alice'))).isError, true);
    const text = logs.join('\n');
    const db = new Database(join(dir, 'events.sqlite'), { readonly: true });
    const rows = JSON.stringify(db.prepare('SELECT * FROM upstream_grants').all());
    db.close();
    for (const t of [...issued, ...as.revoked]) {
      assert.ok(!text.includes(t), 'a token in a log line');
      assert.ok(!rows.includes(t), 'a token in the table');
    }
  });
});
