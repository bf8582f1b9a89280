// Caps on the MCP front door (docs/mcp.md "Sessions and limits"): sessions
// per principal (the least recently used idle one makes room; all busy is
// the caps' 429 `rate_limited`), tool calls in flight per principal, the soft
// cap on all sessions (oldest idle closed first), and the idle timeout that
// shrinks under pressure.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { hashApiKey } from '../../src/auth/api-keys.js';
import { principalKey } from '../../src/auth/principal.js';
import { DEFAULT_SESSION_LIMITS, SessionRegistry, type McpSession } from '../../src/front-door/sessions.js';
import { startTestServer, tempDir, writeConfig, type TestServer } from '../helpers/server.js';
import { RawMcp, type Message } from './raw-client.js';

let server: TestServer;
const opened: RawMcp[] = [];

before(async () => {
  const dir = tempDir();
  const configFile = writeConfig(
    {
      tenants: { acme: { tools: ['*'] } },
      principals: ['k1', 'k2', 'k3'].map((k, i) => ({ id: `p${i + 1}`, tenant: 'acme', keyHash: hashApiKey(k) })),
      events: { file: join(dir, 'events.sqlite') },
      mcp: { maxSessionsPerPrincipal: 2, maxConcurrentCallsPerPrincipal: 2, sessionSoftCap: 4, sessionMinIdleMs: 0, approvalTimeoutMs: 60_000 },
      policy: { rules: [{ match: 'x-host-t-ask', approval: 'always' }] },
      sources: { hostExtensions: [{ vendor: 't', name: 'ask', command: [process.execPath, '-e', 'process.stdout.write("ran")'] }] },
    },
    dir,
  );
  server = await startTestServer(configFile);
});
after(async () => {
  await closeAll();
  await server?.close();
});

async function closeAll(): Promise<void> {
  for (const c of opened.splice(0)) await c.close().catch(() => undefined);
}

async function session(token: string): Promise<RawMcp> {
  const c = new RawMcp(server.url, token);
  await c.initialize({ elicitation: {} });
  opened.push(c);
  return c;
}

const alive = async (c: RawMcp) => (await c.request('tools/list')).status === 200;

/** Starts a call that waits for approval; resolves `asked` with the elicitation once it arrives. */
function pendingCall(c: RawMcp): { asked: Promise<Message>; done: Promise<unknown> } {
  let resolveAsked!: (m: Message) => void;
  const asked = new Promise<Message>((r) => (resolveAsked = r));
  const done = c.call('x-host-t-ask', {}, (m) => void resolveAsked(m));
  return { asked, done };
}

describe('sessions per principal', () => {
  test('at the cap the least recently used idle session makes room', async () => {
    const s1 = await session('k1');
    const s2 = await session('k1');
    const s3 = await session('k1');
    assert.equal(await alive(s1), false, 'the oldest idle session was closed');
    assert.equal(await alive(s2), true);
    assert.equal(await alive(s3), true);
    await closeAll();
  });

  test('when every session is busy a new one is refused with 429 rate_limited; calls in flight are capped too', async () => {
    const a = await session('k2');
    const b = await session('k2');
    const ca = pendingCall(a);
    const cb = pendingCall(b);
    const [ea, eb] = await Promise.all([ca.asked, cb.asked]);

    const refused = await session('k2').then(() => assert.fail('opened'), (e: { status: number; headers: Headers; body: string }) => e);
    assert.equal(refused.status, 429);
    assert.ok(Number(refused.headers.get('retry-after')) > 0);
    const body = JSON.parse(refused.body) as { error: string; message: string; details: Record<string, unknown> };
    assert.equal(body.error, 'rate_limited');
    assert.match(body.message, /already has 2 open MCP sessions/);
    assert.equal(body.details.cap, 'mcp.maxSessionsPerPrincipal');

    const third = await b.post({ jsonrpc: '2.0', id: 99, method: 'tools/call', params: { name: 'x-host-t-ask', arguments: {} } });
    assert.equal(third.status, 429);
    const thirdBody = (await third.json()) as { error: string; message: string; details: Record<string, unknown> };
    assert.equal(thirdBody.error, 'rate_limited');
    assert.match(thirdBody.message, /already has 2 tool calls in flight/);
    assert.equal(thirdBody.details.cap, 'mcp.maxConcurrentCallsPerPrincipal');

    // Answering frees both calls; the principal may open a session again.
    await (await a.post({ jsonrpc: '2.0', id: ea.id, result: { action: 'decline' } })).text();
    await (await b.post({ jsonrpc: '2.0', id: eb.id, result: { action: 'decline' } })).text();
    await Promise.all([ca.done, cb.done]);
    await session('k2');
    await closeAll();
  });
});

test('above the soft cap the oldest idle sessions are closed first', async () => {
  const all = [await session('k1'), await session('k1'), await session('k2'), await session('k2'), await session('k3')];
  assert.equal(await alive(all[0]), false, 'the oldest idle session went');
  for (const s of all.slice(1)) assert.equal(await alive(s), true, 'and only that one');
  await closeAll();
});

describe('idle timeout under pressure', () => {
  const limits = { ...DEFAULT_SESSION_LIMITS, idleMs: 1_000_000, minIdleMs: 10_000, maxSessionsPerPrincipal: 10 };
  const add = (registry: SessionRegistry, id: string, lastSeen: number): McpSession => {
    const s: McpSession = {
      id,
      identity: `i-${id}`,
      principal: { id, tenant: 't', scopes: new Set(), kind: 'api-key', key: principalKey('api-key', 't', id) },
      server: new Server({ name: 't', version: '1' }),
      transport: new StreamableHTTPServerTransport({ sessionIdGenerator: undefined }),
      compact: false,
      lastSeen,
      calls: 0,
    };
    registry.add(s, registry.admit(s.identity));
    return s;
  };

  test('the configured timeout below the soft cap; the minimum when the heap is nearly full', () => {
    const registry = new SessionRegistry({ ...limits, softCap: 1_000 });
    for (let i = 0; i < 4; i++) add(registry, `s${i}`, Date.now());
    assert.equal(registry.effectiveIdleMs(0), 1_000_000);
    assert.equal(registry.effectiveIdleMs(0.99), 10_000);
  });

  test('above the soft cap it shrinks in proportion and the sweep closes what is idle past it, never a busy session', () => {
    const now = Date.now();
    const registry = new SessionRegistry({ ...limits, softCap: 2 });
    // Seen just now: younger than minIdleMs, so the soft-cap trim on add may not close them.
    const sessions = [0, 1, 2, 3].map((i) => add(registry, `s${i}`, now));
    assert.equal(registry.size, 4);
    assert.equal(registry.effectiveIdleMs(0), 500_000, 'twice the soft cap: half the timeout');
    sessions[2].calls = 1;
    registry.sweep(now + 600_000);
    assert.deepEqual([...registry.values()].map((s) => s.id), ['s2'], 'idle ones closed, the busy one kept');
  });

  test('a session being opened is never the one the soft cap closes', () => {
    const registry = new SessionRegistry({ ...limits, softCap: 1, minIdleMs: 0 });
    const busy = add(registry, 'busy', 0);
    busy.calls = 1;
    const fresh = add(registry, 'fresh', Date.now());
    assert.equal(registry.get('fresh'), fresh, 'over the soft cap with nothing idle to close, the new session still opens');
    assert.equal(registry.get('busy'), busy);
  });
});
