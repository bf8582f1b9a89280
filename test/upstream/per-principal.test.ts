// Each caller's own credential reaches the upstream, never anyone else's
// (docs/auth.md "Upstream credentials"): two principals store their own
// secrets through /connections and call the same MCP tool and the same
// connector operation concurrently; each upstream reports which subject
// called. A caller without a credential gets the link where it connects, by
// a URL-mode elicitation (the call then completes) or an error result. The
// secrets never come back in a result, the event log, a log line, and the
// database files hold only ciphertext. Identity headers, signed, reach an
// upstream that verifies them.
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import Database from 'better-sqlite3';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { jwtVerify } from 'jose';
import { hashApiKey } from '../../src/auth/api-keys.js';
import { request, startTestServer, tempDir, writeConfig, type TestServer } from '../helpers/server.js';
import { bearerTokens, startWhoamiApi, startWhoamiMcp, type Upstream } from './fixtures.js';

const SERVICE = 'svc-listing-token-4d1e';
const ALICE = 'alice-upstream-secret-9c27e1';
const BOB = 'bob-upstream-secret-51f0aa';
const CAROL = 'carol-upstream-secret-77ab02';
const SIGNING_KEY = 'identity-signing-key-of-32-bytes-or-more!';
const SEALING_KEY = Buffer.alloc(32, 7).toString('base64');
const SECRETS = [ALICE, BOB, CAROL];

let host: TestServer;
let dir: string;
let mcp: Upstream;
let api: Upstream & { document: string };
let idp: Upstream;
const clients: Client[] = [];

before(async () => {
  dir = tempDir();
  const subjects = { [SERVICE]: 'service', [ALICE]: 'alice', [BOB]: 'bob', [CAROL]: 'carol' };
  mcp = await startWhoamiMcp(bearerTokens(subjects));
  api = await startWhoamiApi(bearerTokens(subjects), dir);
  const key = new TextEncoder().encode(SIGNING_KEY);
  idp = await startWhoamiMcp(async (req) => {
    const statement = req.headers['x-toolhost-identity'];
    if (typeof statement !== 'string') return bearerTokens(subjects)(req);
    try {
      const { payload } = await jwtVerify(statement, key, { audience: 'mcp:idp', issuer: 'toolhost' });
      // The plain headers must say what the signed statement says.
      if (req.headers['x-toolhost-principal'] !== payload.sub || req.headers['x-toolhost-tenant'] !== payload.tenant) return undefined;
      return `${payload.sub}@${String(payload.tenant)}`;
    } catch {
      return undefined;
    }
  });
  const config = writeConfig(
    {
      tenants: { acme: { tools: ['*'] } },
      principals: ['alice', 'bob', 'carol'].map((id) => ({ id, tenant: 'acme', keyHash: hashApiKey(`${id}-key`) })),
      events: { file: join(dir, 'events.sqlite') },
      upstreamCredentials: { keys: [{ id: 'k1', secret: { env: 'SEALING_KEY' } }], publicUrl: 'https://toolhost.example' },
      sources: {
        mcp: [
          { id: 'who', transport: 'http', url: mcp.url, headers: { Authorization: 'Bearer ${SERVICE_TOKEN}' }, credentials: { mode: 'per-principal', label: 'Who' }, pingIntervalMs: 0, refreshIntervalMs: 0 },
          { id: 'idp', transport: 'http', url: idp.url, headers: { Authorization: 'Bearer ${SERVICE_TOKEN}' }, credentials: { mode: 'identity-headers', sign: { key: { env: 'SIGNING_KEY' }, audience: 'mcp:idp' } }, pingIntervalMs: 0, refreshIntervalMs: 0 },
        ],
        connectors: [{ id: 'api', document: api.document, credentials: { mode: 'per-principal' }, watch: false }],
      },
    },
    dir,
  );
  host = await startTestServer(config, { env: { ...process.env, SERVICE_TOKEN: SERVICE, SEALING_KEY: SEALING_KEY, SIGNING_KEY } });
});

after(async () => {
  for (const c of clients) await c.close().catch(() => {});
  await host?.close();
  await Promise.all([mcp?.close(), api?.close(), idp?.close()]);
});

async function connect(who: string, onConnectLink?: (url: string) => Promise<void>): Promise<Client> {
  const client = new Client({ name: 't', version: '1' }, { capabilities: onConnectLink ? { elicitation: { url: {} } } : {} });
  if (onConnectLink) {
    client.setRequestHandler(ElicitRequestSchema, async (req) => {
      assert.equal(req.params.mode, 'url');
      await onConnectLink((req.params as { url: string }).url);
      return { action: 'accept' };
    });
  }
  await client.connect(new StreamableHTTPClientTransport(new URL(`${host.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${who}-key` } } }));
  clients.push(client);
  return client;
}

async function putSecret(who: string, source: string, secret: string): Promise<number> {
  const res = await fetch(`${host.url}/connections/${encodeURIComponent(source)}`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${who}-key`, 'content-type': 'application/json' },
    body: JSON.stringify({ secret }),
  });
  return res.status;
}

const call = (c: Client, name: string) => c.callTool({ name, arguments: {} }) as Promise<CallToolResult>;
const subjectOf = (r: CallToolResult) => (r.structuredContent as { subject?: string } | undefined)?.subject ?? JSON.parse((r.content[0] as { text: string }).text).body?.subject;

describe('per-principal credentials', () => {
  let names: { mcp: string; connector: string; idp: string };

  test('a caller without a credential gets the link where it connects, as an error result', async () => {
    const alice = await connect('alice');
    const { tools } = await alice.listTools();
    const find = (prefix: string) => tools.find((t) => t.name.startsWith(prefix))?.name ?? assert.fail(`no ${prefix} tool in ${tools.map((t) => t.name).join(', ')}`);
    names = { mcp: find('mcp__who'), connector: find('connector__api'), idp: find('mcp__idp') };
    const r = await call(alice, names.mcp);
    assert.equal(r.isError, true);
    assert.match((r.content[0] as { text: string }).text, /https:\/\/toolhost\.example\/connections\/mcp%3Awho/);
    assert.deepEqual(r._meta?.['toolhost/connect'], { source: 'mcp:who', url: 'https://toolhost.example/connections/mcp%3Awho' });
    assert.deepEqual(mcp.calls, [], 'nothing reached the upstream');
    // The catalog says the tool uses a credential resolved per call.
    const descriptor = await request(host.url, `/tools/${encodeURIComponent('mcp:who.whoami')}`, { token: 'alice-key' });
    assert.equal(descriptor.json().auth?.credentialRef, true);
  });

  test('two principals calling the same tools concurrently: each upstream sees only the caller\'s own subject', async () => {
    for (const [who, secret] of [['alice', ALICE], ['bob', BOB]] as const) {
      assert.equal(await putSecret(who, 'mcp:who', secret), 204);
      assert.equal(await putSecret(who, 'connector:api', secret), 204);
    }
    const [alice, bob] = [await connect('alice'), await connect('bob')];
    const runs = Array.from({ length: 12 }, (_, i) => {
      const [who, client] = i % 2 === 0 ? ['alice', alice] : ['bob', bob];
      return Promise.all([call(client, names.mcp), call(client, names.connector)]).then((rs) => ({ who, rs }));
    });
    for (const { who, rs } of await Promise.all(runs)) {
      for (const r of rs) {
        assert.equal(r.isError, undefined, JSON.stringify(r));
        assert.equal(subjectOf(r), who);
        // The upstream echoed the Authorization header it got: the host scrubbed it.
        const text = JSON.stringify(r);
        for (const s of SECRETS) assert.ok(!text.includes(s), 'a secret came back in a result');
        assert.match(text, /\[redacted\]/);
      }
    }
    assert.equal(mcp.calls.filter((s) => s === 'alice').length, 6);
    assert.equal(mcp.calls.filter((s) => s === 'bob').length, 6);
    assert.ok(!mcp.calls.includes('service'), 'the listing credential never made a call');
  });

  test('GET /connections lists state and time, never a secret; a refused secret asks again', async () => {
    assert.equal(await putSecret('bob', 'mcp:who', 'not-a-valid-token'), 204);
    const bob = await connect('bob');
    const r = await call(bob, names.mcp);
    assert.equal(r.isError, true);
    assert.ok(r._meta?.['toolhost/connect']);
    const list = await request(host.url, '/connections', { token: 'bob-key' });
    assert.equal(list.status, 200);
    const states = Object.fromEntries(list.json().connections.map((c: { source: string; state: string }) => [c.source, c.state]));
    assert.deepEqual(states, { 'mcp:who': 'refused', 'mcp:idp': 'connected', 'connector:api': 'connected' });
    for (const s of [...SECRETS, 'not-a-valid-token']) assert.ok(!list.text.includes(s));
    const bad = await fetch(`${host.url}/connections/mcp%3Awho`, { method: 'PUT', headers: { authorization: 'Bearer bob-key', 'content-type': 'application/json' }, body: '{"secret":""}' });
    assert.equal(bad.status, 400);
    assert.equal(await putSecret('bob', 'mcp:nope', BOB), 404);
  });

  test('a URL-mode elicitation: the person connects, and the same call completes', async () => {
    let linked = '';
    const carol = await connect('carol', async (url) => {
      linked = url;
      assert.equal(await putSecret('carol', 'mcp:who', CAROL), 204);
    });
    const r = await call(carol, names.mcp);
    assert.equal(linked, 'https://toolhost.example/connections/mcp%3Awho');
    assert.equal(r.isError, undefined, JSON.stringify(r));
    assert.equal(subjectOf(r), 'carol');
  });

  test('identity headers, signed: the upstream verifies who calls', async () => {
    const [alice, bob] = [await connect('alice'), await connect('bob')];
    const [a, b] = await Promise.all([call(alice, names.idp), call(bob, names.idp)]);
    assert.equal(subjectOf(a), 'alice@acme');
    assert.equal(subjectOf(b), 'bob@acme');
  });

  test('no secret in the event log, the host\'s log lines, or the database files (ciphertext only)', async () => {
    const events = await request(host.url, '/events?limit=1000', { token: 'alice-key' });
    assert.equal(events.status, 200);
    assert.ok(events.json().events.length > 0);
    const logs = host.logs.join('\n');
    for (const s of SECRETS) {
      assert.ok(!events.text.includes(s), 'a secret in the event log');
      assert.ok(!logs.includes(s), 'a secret in a log line');
    }
    const db = new Database(join(dir, 'events.sqlite'), { readonly: true });
    try {
      const rows = db.prepare('SELECT tenant, principal, source, key_id, sealed, meta FROM upstream_grants ORDER BY principal, source').all() as Record<string, string>[];
      assert.deepEqual(rows.map((r) => `${r.principal} ${r.source} ${r.key_id}`), ['api-key:alice connector:api k1', 'api-key:alice mcp:who k1', 'api-key:bob connector:api k1', 'api-key:bob mcp:who k1', 'api-key:carol mcp:who k1']);
      for (const r of rows) for (const s of SECRETS) assert.ok(!JSON.stringify(r).includes(s) && !r.sealed.includes(Buffer.from(s).toString('base64url')));
    } finally {
      db.close();
    }
    for (const f of readdirSync(dir).filter((n) => n.startsWith('events.sqlite'))) {
      const bytes = readFileSync(join(dir, f));
      for (const s of SECRETS) assert.equal(bytes.indexOf(s), -1, `${f} holds a secret in plain text`);
    }
  });
});
