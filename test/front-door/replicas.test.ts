// /mcp behind a load balancer without sticky sessions (docs/mcp.md "Several
// replicas"): two replicas sharing `mcp.sessionKey` and a real redis-server,
// one upstream MCP server (the fixture over HTTP) they both watch, and one
// MCP client whose requests alternate between the replicas. The session
// works throughout (initialize, tools/list, tools/call, a second list after
// the upstream changed), list_changed reaches the client's GET stream
// wherever it is held, an approval answered at the other replica reaches the
// call waiting for it, and a session id is worth nothing to another caller,
// altered, or after DELETE.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema, ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { hashApiKey } from '../../src/auth/api-keys.js';
import { startHttpFixture, type HttpFixture } from '../mcp-source/helpers.js';
import { startRedis, type RedisServer } from '../helpers/redis.js';
import { request, startTestServer, writeConfig, type TestServer } from '../helpers/server.js';
import { patient } from '../helpers/patience.js';

const SESSION_KEY = 'replica-session-key-7c1d9e0b4a2f6e8d3c5b';

let redis: RedisServer;
let upstream: HttpFixture;
let replicas: TestServer[] = [];
let configFile: string;

before(async () => {
  [redis, upstream] = await Promise.all([startRedis(), startHttpFixture()]);
  const file = (configFile = writeConfig({
    redis: { url: { env: 'TEST_REDIS_URL' }, commandTimeoutMs: 500 },
    tenants: { a: { tools: ['*'] } },
    principals: [
      { id: 'pa', tenant: 'a', keyHash: hashApiKey('ka'), scopes: ['exec'] },
      { id: 'pb', tenant: 'a', keyHash: hashApiKey('kb') },
    ],
    mcp: { sessionKey: { env: 'TEST_SESSION_KEY' }, approvalTimeoutMs: 8000 },
    policy: { rules: [{ match: 'x-host-test-args', safetyTier: 'exec', approval: 'always', scopes: ['exec'] }] },
    sources: {
      hostExtensions: [{ vendor: 'test', name: 'args', command: [process.execPath, '-e', 'process.stdout.write(JSON.stringify(process.argv.slice(1)))'], argv: ['items'], inputSchema: { type: 'object', properties: { items: { type: 'array', items: { type: 'string' } } } } }],
      mcp: [{ id: 'fx', transport: 'http', url: upstream.url, debounceMs: 20, pingIntervalMs: 500 }],
    },
  }));
  const env = { ...process.env, TEST_REDIS_URL: redis.url, TEST_SESSION_KEY: SESSION_KEY };
  replicas = [await startTestServer(file, { env }), await startTestServer(file, { env })];
});

after(async () => {
  await Promise.all(replicas.map((r) => r.close()));
  await upstream?.kill();
  await redis?.stop();
});

interface Routed {
  client: Client;
  /** Which replica got each request: method (or "answer", "GET", "DELETE") and replica index. */
  log: { what: string; replica: number }[];
  transport: StreamableHTTPClientTransport;
}

/** A client whose every POST goes to the other replica than the one before (a round-robin balancer); GET and DELETE go where the next POST would. */
async function alternating(key: string, options: { elicit?: boolean } = {}): Promise<Routed> {
  const log: Routed['log'] = [];
  let next = 0;
  const balancer = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const replica = next;
    const method = init?.method ?? 'GET';
    let what = method;
    if (method === 'POST') {
      const body = JSON.parse(String(init?.body));
      what = body.method ?? 'answer';
      next = 1 - next;
    }
    log.push({ what, replica });
    const url = new URL(String(input instanceof Request ? input.url : input));
    const target = new URL(url.pathname + url.search, replicas[replica].url);
    return fetch(target, init);
  };
  const client = new Client({ name: 'replica-test', version: '1.0.0' }, { capabilities: options.elicit ? { elicitation: {} } : {} });
  if (options.elicit) client.setRequestHandler(ElicitRequestSchema, async () => ({ action: 'accept', content: { approve: true } }));
  const transport = new StreamableHTTPClientTransport(new URL(`${replicas[0].url}/mcp`), { fetch: balancer, requestInit: { headers: { authorization: `Bearer ${key}` } } });
  await client.connect(transport);
  return { client, log, transport };
}

async function until(what: string, check: () => boolean | Promise<boolean>, ms = 10_000): Promise<void> {
  const end = Date.now() + patient(ms);
  while (!(await check())) {
    if (Date.now() > end) assert.fail(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

test('one session alternating between two replicas: initialize, list, call, list_changed on the GET stream, list again', async () => {
  const { client, log } = await alternating('ka');
  let changed = 0;
  client.setNotificationHandler(ToolListChangedNotificationSchema, async () => void changed++);
  try {
    const first = await client.listTools();
    const names = first.tools.map((t) => t.name);
    const echo = names.find((n) => n.includes('echo'));
    assert.ok(echo, `the upstream's echo is listed: ${names.join(', ')}`);
    const called = await client.callTool({ name: echo, arguments: { message: 'hi' } });
    assert.notEqual(called.isError, true, JSON.stringify(called));
    const control = names.find((n) => n.includes('fixture_control'))!;
    await client.callTool({ name: control, arguments: { action: 'add', name: 'late_tool' } });
    await until('list_changed on the client GET stream', () => changed > 0);
    // Each replica reads the upstream's change on its own: they agree once both have (docs/mcp.md "Several replicas").
    for (const r of replicas) await until('both replicas list the new tool', async () => (await request(r.url, '/tools', { token: 'ka' })).text.includes('late_tool'));
    for (const replica of [0, 1]) {
      const second = await client.listTools();
      assert.ok(second.tools.some((t) => t.name.includes('late_tool')), `the second list shows the new tool (replica ${replica})`);
    }
    // The balancer did spread the session: both replicas served its requests, each kind at least once somewhere else than initialize.
    const served = new Set(log.filter((l) => l.what !== 'GET').map((l) => l.replica));
    assert.deepEqual([...served].sort(), [0, 1], JSON.stringify(log));
    assert.equal(log.find((l) => l.what === 'initialize')?.replica, 0);
    assert.ok(log.some((l) => l.what === 'tools/list' && l.replica === 1), 'a tools/list at the replica that never saw initialize');
  } finally {
    await client.callTool({ name: (await client.listTools()).tools.find((t) => t.name.includes('fixture_control'))!.name, arguments: { action: 'remove', name: 'late_tool' } }).catch(() => undefined);
    await client.close();
  }
});

test('an approval answered at the other replica reaches the call waiting for it (through Redis)', async () => {
  const { client, log } = await alternating('ka', { elicit: true });
  try {
    const tools = (await client.listTools()).tools;
    const args = tools.find((t) => t.name.includes('args'))!.name;
    const result = await client.callTool({ name: args, arguments: { items: ['x'] } });
    assert.notEqual(result.isError, true, JSON.stringify(result));
    const call = log.findLast((l) => l.what === 'tools/call')!;
    const answer = log.findLast((l) => l.what === 'answer')!;
    assert.ok(answer, 'the client answered the approval');
    assert.notEqual(answer.replica, call.replica, 'the answer went to the other replica than the waiting call');
  } finally {
    await client.close();
  }
});

async function post(replica: number, key: string, sessionId: string, body: unknown): Promise<Response> {
  return fetch(`${replicas[replica].url}/mcp`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-06-18' },
    body: JSON.stringify(body),
  });
}

test('a session id is refused at any replica to another caller, altered, or after DELETE', async () => {
  const { client, transport } = await alternating('ka');
  const id = transport.sessionId!;
  assert.ok(id.includes('.'), 'a signed id');
  const list = { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} };
  try {
    for (const replica of [0, 1]) {
      assert.equal((await post(replica, 'kb', id, list)).status, 404, 'another principal of the same tenant');
      const [body, signature] = id.split('.');
      const altered = `${body.slice(0, -2)}${body.endsWith('A') ? 'B' : 'A'}${body.slice(-1)}.${signature}`;
      assert.equal((await post(replica, 'ka', altered, list)).status, 404, 'an altered id');
      assert.equal((await post(replica, 'ka', `${body}.${signature.slice(1)}A`, list)).status, 404, 'a wrong signature');
      assert.equal((await post(replica, 'ka', id, list)).status, 200, 'the owner');
    }
    await transport.terminateSession();
    for (const replica of [0, 1]) await until(`replica ${replica} forgets the deleted session`, async () => (await post(replica, 'ka', id, list)).status === 404, 3000);
  } finally {
    await client.close();
  }
});

test('a session key that is unset or shorter than 32 bytes stops the start, naming the variable', async () => {
  await assert.rejects(startTestServer(configFile, { env: { ...process.env, TEST_REDIS_URL: redis.url, TEST_SESSION_KEY: '' } }), /mcp\.sessionKey: environment variable TEST_SESSION_KEY is not set/);
  await assert.rejects(startTestServer(configFile, { env: { ...process.env, TEST_REDIS_URL: redis.url, TEST_SESSION_KEY: 'too-short' } }), /mcp\.sessionKey must be at least 32 bytes/);
});
