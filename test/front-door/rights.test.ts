// An MCP session has no rights of its own (docs/mcp.md "Credentials"): each
// /mcp request is judged by the credential it carries. A key narrowed by a
// keys-file reload, or a token of the same subject with fewer scopes, changes
// what the open session lists and calls on its next request, with
// notifications/tools/list_changed; a session answers only the identity
// (credential kind, tenant, id) that opened it. Also: ?view=compact.
import assert from 'node:assert/strict';
import { renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { stringify } from 'yaml';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpError, ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { hashApiKey } from '../../src/auth/api-keys.js';
import { AUDIENCE, eventually, ISSUER, jwksOf, makeKey, signToken, type SigningKey } from '../auth/jwt-fixture.js';
import { request, startTestServer, tempDir, writeConfig, type TestServer } from '../helpers/server.js';
import { RawMcp } from './raw-client.js';

const GUARDED = 'x-host-t-guarded';
const run = [process.execPath, '-e', 'process.stdout.write("ran")'];
let server: TestServer;
let key: SigningKey;
let dir: string;
let writes = 0;

/** p1 (key k1) with `scopes`; p2 (key k2) unless `withP2` is false. */
const keysEntry = (scopes: string[], withP2 = true) => ({
  principals: [{ id: 'p1', tenant: 'acme', keyHash: hashApiKey('k1'), scopes }, ...(withP2 ? [{ id: 'p2', tenant: 'acme', keyHash: hashApiKey('k2'), scopes: ['exec'] }] : [])],
});
function writeKeys(scopes: string[], withP2 = true): void {
  const tmp = join(dir, `.keys.${++writes}.tmp`);
  writeFileSync(tmp, stringify(keysEntry(scopes, withP2)));
  renameSync(tmp, join(dir, 'keys.yaml'));
}

before(async () => {
  dir = tempDir();
  key = await makeKey('k1');
  writeFileSync(join(dir, 'jwks.json'), JSON.stringify(jwksOf(key)));
  writeFileSync(join(dir, 'keys.yaml'), stringify(keysEntry(['exec'])));
  const configFile = writeConfig(
    {
      auth: { keysFile: 'keys.yaml', jwt: { issuer: ISSUER, audience: AUDIENCE, jwksFile: 'jwks.json' }, defaultRateLimit: false },
      // Signed, restorable session ids (as on several replicas): a closed session could be rebuilt from its id alone.
      mcp: { sessionKey: { env: 'TEST_SESSION_KEY' } },
      tenants: { acme: { tools: ['*'] }, globex: { tools: ['*'] } },
      policy: { rules: [{ match: GUARDED, scopes: ['exec'], approval: 'never' }, { match: 'x-host-t-*', approval: 'never' }] },
      sources: {
        hostExtensions: [
          { vendor: 't', name: 'open', command: run, inputSchema: { type: 'object', properties: { v: { anyOf: [{ type: 'string' }, { type: 'integer' }] } } } },
          { vendor: 't', name: 'guarded', command: run },
        ],
      },
    },
    dir,
  );
  server = await startTestServer(configFile, { env: { ...process.env, TEST_SESSION_KEY: 'rights-test-session-key-0123456789abcdef' } });
});
after(async () => {
  await server?.close();
});

/** An SDK client whose bearer credential the test can change between requests. */
async function connectAs(initial: string, path = '/mcp'): Promise<{ client: Client; use(token: string): void; listChanged(): number }> {
  let token = initial;
  let changed = 0;
  const client = new Client({ name: 'rights-test', version: '1' });
  client.setNotificationHandler(ToolListChangedNotificationSchema, async () => void changed++);
  const transport = new StreamableHTTPClientTransport(new URL(`${server.url}${path}`), {
    fetch: (url, init) => {
      const headers = new Headers(init?.headers);
      headers.set('authorization', `Bearer ${token}`);
      return fetch(url, { ...init, headers });
    },
  });
  await client.connect(transport);
  return { client, use: (t) => void (token = t), listChanged: () => changed };
}

const names = async (c: Client) => (await c.listTools()).tools.map((t) => t.name).sort();
const until = (probe: () => boolean) => eventually(async () => probe(), 15_000, 20);

describe('rights follow the credential of each request', () => {
  test('a key narrowed in the keys file loses the tool in its open session at once, announced by list_changed', async () => {
    const s = await connectAs('k1');
    try {
      assert.deepEqual(await names(s.client), [GUARDED, 'x-host-t-open']);
      writeKeys([]);
      // Announced by the reload itself, before the session sends anything.
      assert.ok(await until(() => s.listChanged() > 0), 'list_changed after the narrowing');
      assert.ok(!(await request(server.url, '/tools', { token: 'k1' })).text.includes(GUARDED), 'GET /tools follows the reload');
      assert.deepEqual(await names(s.client), ['x-host-t-open']);
      const err = await s.client.callTool({ name: GUARDED, arguments: {} }).then(() => assert.fail('called'), (e: McpError) => e);
      assert.equal(err.code, -32602);
      assert.match(err.message, /Unknown tool/);

      const seen = s.listChanged();
      writeKeys(['exec']);
      assert.ok(await until(() => s.listChanged() > seen), 'list_changed after the widening');
      assert.deepEqual(await names(s.client), [GUARDED, 'x-host-t-open']);
      const r = await s.client.callTool({ name: GUARDED, arguments: {} });
      assert.equal((r.content as { text: string }[])[0].text, 'ran');
    } finally {
      writeKeys(['exec']);
      await s.client.close();
    }
  });

  test('a token of the same subject with fewer scopes narrows the session on its next request', async () => {
    const wide = await signToken(key, { sub: 'agent-1', tenant: 'acme', scope: 'exec' });
    const narrow = await signToken(key, { sub: 'agent-1', tenant: 'acme', scope: '' });
    const s = await connectAs(wide);
    try {
      assert.deepEqual(await names(s.client), [GUARDED, 'x-host-t-open']);
      s.use(narrow);
      assert.deepEqual(await names(s.client), ['x-host-t-open']);
      await assert.rejects(s.client.callTool({ name: GUARDED, arguments: {} }), (e: McpError) => e.code === -32602);
      assert.ok(await until(() => s.listChanged() > 0), 'list_changed after the narrower token');
      s.use(wide);
      const r = await s.client.callTool({ name: GUARDED, arguments: {} });
      assert.equal((r.content as { text: string }[])[0].text, 'ran');
    } finally {
      await s.client.close();
    }
  });
  test('a key removed from the keys file: its open session is closed, ending its GET stream', async () => {
    const c = new RawMcp(server.url, 'k2');
    await c.initialize();
    const stream = await fetch(`${server.url}/mcp`, { headers: { authorization: 'Bearer k2', accept: 'text/event-stream', 'mcp-session-id': c.sessionId! } });
    assert.equal(stream.status, 200);
    const ended = stream.text().then(() => 'ended', () => 'ended');
    let timer: NodeJS.Timeout | undefined;
    try {
      writeKeys(['exec'], false);
      const guard = new Promise<string>((r) => (timer = setTimeout(r, 15_000, 'still open')));
      assert.equal(await Promise.race([ended, guard]), 'ended');
    } finally {
      clearTimeout(timer);
      writeKeys(['exec']);
      assert.ok(await eventually(async () => (await request(server.url, '/tools', { token: 'k2' })).status === 200, 15_000), 'k2 is back');
    }
  });
});

describe('a session whose key was taken away stays dead', () => {
  test('key removed (401), then restored: the old Mcp-Session-Id is refused as after a DELETE; a new session works', async () => {
    const old = new RawMcp(server.url, 'k2');
    await old.initialize();
    assert.equal((await old.request('tools/list')).status, 200);
    try {
      writeKeys(['exec'], false);
      assert.ok(await eventually(async () => (await request(server.url, '/tools', { token: 'k2' })).status === 401, 15_000), 'k2 refused');
      assert.equal((await old.request('tools/list')).status, 401);
    } finally {
      writeKeys(['exec']);
      assert.ok(await eventually(async () => (await request(server.url, '/tools', { token: 'k2' })).status === 200, 15_000), 'k2 is back');
    }
    const { status, answer } = await old.request('tools/list');
    assert.equal(status, 404, JSON.stringify(answer));
    assert.equal(answer?.error?.code, -32001);
    const fresh = new RawMcp(server.url, 'k2');
    await fresh.initialize();
    assert.equal((await fresh.request('tools/list')).status, 200);
    await fresh.close();
  });
});

test('DELETE /mcp with Content-Type: application/json and no body closes the session', async () => {
  const c = new RawMcp(server.url, 'k1');
  await c.initialize();
  const res = await fetch(`${server.url}/mcp`, { method: 'DELETE', headers: { authorization: 'Bearer k1', 'mcp-session-id': c.sessionId!, 'content-type': 'application/json' } });
  assert.equal(res.status, 200, await res.text());
  assert.equal((await c.request('tools/list')).status, 404);
});

describe('a session answers only the identity that opened it', () => {
  const refused = async (session: RawMcp, token: string) => {
    session.token = token;
    const { status, answer } = await session.request('tools/list');
    assert.equal(status, 404, token.slice(0, 12));
    assert.equal(answer?.error?.code, -32001);
  };

  test('a JWT whose sub is the API key principal\'s id, another key, or another tenant: 404 like an unknown session', async () => {
    const opened = new RawMcp(server.url, 'k1');
    await opened.initialize();
    try {
      await refused(opened, await signToken(key, { sub: 'p1', tenant: 'acme', scope: 'exec' }));
      await refused(opened, 'k2');
      opened.token = 'k1';
      assert.equal((await opened.request('tools/list')).status, 200, 'the opener itself still gets through');
    } finally {
      opened.token = 'k1';
      await opened.close();
    }
    const jwtOpened = new RawMcp(server.url, await signToken(key, { sub: 'agent-1', tenant: 'acme', scope: 'exec' }));
    await jwtOpened.initialize();
    const own = jwtOpened.token;
    try {
      await refused(jwtOpened, await signToken(key, { sub: 'agent-1', tenant: 'globex', scope: 'exec' }));
      await refused(jwtOpened, await signToken(key, { sub: 'agent-2', tenant: 'acme', scope: 'exec' }));
    } finally {
      jwtOpened.token = own;
      await jwtOpened.close();
    }
  });
});

describe('?view=compact', () => {
  test('a session opened with /mcp?view=compact lists compact schemas, one without lists standard ones', async () => {
    const standard = (await request(server.url, '/tools/x-host-t-open', { token: 'k1' })).json().inputSchema;
    const compact = ((await request(server.url, '/tools?view=compact', { token: 'k1' })).json().tools as { toolId: string; inputSchema: unknown }[]).find((t) => t.toolId === 'x-host-t-open')!.inputSchema;
    assert.notDeepEqual(standard, compact, 'the fixture tool has a schema the compact view rewrites');
    for (const [path, expected] of [['/mcp', standard], ['/mcp?view=compact', compact]] as const) {
      const s = await connectAs('k1', path);
      try {
        const tool = (await s.client.listTools()).tools.find((t) => t.name === 'x-host-t-open')!;
        assert.deepEqual(tool.inputSchema, expected, path);
      } finally {
        await s.client.close();
      }
    }
  });
});
