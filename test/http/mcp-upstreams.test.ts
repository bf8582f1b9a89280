// MCP servers as catalog sources, through the whole host: real
// published servers and the project's fixture over stdio and Streamable HTTP,
// classified by the host only, refreshed live (content changes too), failures
// isolated, secrets kept. No timed assertions: waits poll for the outcome under
// generous deadlines, and failures are read from a counter, not a short window.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { after, before, describe, test } from 'node:test';
import { hashApiKey } from '../../src/auth/api-keys.js';
import type { McpToolSource } from '../../src/sources/mcp/index.js';
import { request, startTestServer, tempDir, writeConfig, type TestServer } from '../helpers/server.js';
import { errorsOf, validateV2 } from '../helpers/schemas.js';
import { patient } from '../helpers/patience.js';
import { programArgs } from '../helpers/fixture-command.js';

const root = new URL('../../', import.meta.url).pathname;
const FIXTURE = `${root}test/fixtures/mcp-fixture/server.ts`;
const EVERYTHING = `${root}node_modules/@modelcontextprotocol/server-everything/dist/index.js`;
const FILESYSTEM = `${root}node_modules/@modelcontextprotocol/server-filesystem/dist/index.js`;
const ENV_SECRET = 'env-secret-6f1c0e9a2b7d';
const HEADER_SECRET = 'header-secret-93ab41c7d2e0';
const FAST = { connectTimeoutMs: patient(8000), pageTimeoutMs: patient(1500), debounceMs: 20, backoff: { initialMs: 100, maxMs: 400 }, pingIntervalMs: 500 };

async function startHttpFixture(): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, [...programArgs(FIXTURE), '--transport', 'http', '--port', '0', '--auth-token', HEADER_SECRET], { stdio: ['ignore', 'pipe', 'ignore'] });
  const [chunk] = (await once(child.stdout!, 'data')) as [Buffer];
  return { child, url: chunk.toString().trim().split('\n')[0] };
}

async function until<T>(what: string, probe: () => Promise<T | undefined>, ms = 8000): Promise<T> {
  const end = Date.now() + patient(ms);
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > end) assert.fail(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

let server: TestServer;
let httpFixture: { child: ChildProcess; url: string };
const ids = async () => (await request(server.url, '/tools', { token: 'k' })).json().map((d: { toolId: string }) => d.toolId) as string[];
/** toolhost_source_failures_total for one source, from /metrics. */
const failures = async (id: string): Promise<number> => {
  const text = (await request(server.url, '/metrics')).text;
  const line = text.split('\n').find((l) => l.startsWith(`toolhost_source_failures_total{source="${id}"}`));
  return line ? Number(line.split(' ').pop()) : 0;
};
/** The host's source for the stdio fixture, to steer it (add, remove, hang) through its own tools. */
const fixtureSource = () => server.running.host.sources.get('mcp:fx') as McpToolSource;
const health = async (id: string) => (await request(server.url, '/readyz')).json().sources.find((s: { id: string }) => s.id === id);

before(async () => {
  httpFixture = await startHttpFixture();
  const fsDir = tempDir();
  const file = writeConfig({
    tenants: { t: { tools: ['*'] }, narrow: { tools: ['mcp:everything.*'] } },
    principals: [
      { id: 'p', tenant: 't', keyHash: hashApiKey('k') },
      { id: 'q', tenant: 'narrow', keyHash: hashApiKey('n') },
    ],
    policy: {
      rules: [
        { match: 'mcp:everything.echo', safetyTier: 'read', replayPolicy: 'deterministic', egress: 'none' },
        { match: ['mcp:fs.read_*', 'mcp:fs.list_*'], safetyTier: 'read', replayPolicy: 'idempotent', egress: 'none' },
      ],
    },
    sources: {
      mcp: [
        { id: 'everything', transport: 'stdio', command: process.execPath, args: [EVERYTHING, 'stdio'], ...FAST },
        { id: 'fs', transport: 'stdio', command: process.execPath, args: [FILESYSTEM, fsDir], ...FAST },
        { id: 'fx', transport: 'stdio', command: process.execPath, args: [...programArgs(FIXTURE), '--transport', 'stdio', '--stderr-env', 'FX_SECRET'], cwd: root, env: { FX_SECRET: '${FX_SECRET}' }, ...FAST },
        { id: 'fxh', transport: 'http', url: httpFixture.url, headers: { authorization: 'Bearer ${FXH_TOKEN}' }, ...FAST },
      ],
    },
  });
  server = await startTestServer(file, { env: { ...process.env, FX_SECRET: ENV_SECRET, FXH_TOKEN: HEADER_SECRET }, startDeadlineMs: patient(15_000) });
});

after(async () => {
  await server?.close();
  httpFixture?.child.kill('SIGKILL');
  const everything = [...server.logs, ''].join('\n');
  // The upstream secrets never appear in a log line of the whole run.
  assert.ok(!everything.includes(ENV_SECRET), 'env secret in logs');
  assert.ok(!everything.includes(HEADER_SECRET), 'header secret in logs');
});

describe('MCP upstreams through the host', () => {
  test('published servers and the fixture appear with their ids, sorted, valid, host-classified', async () => {
    const list = (await request(server.url, '/tools', { token: 'k' })).json();
    const got = list.map((d: { toolId: string }) => d.toolId);
    assert.deepEqual(got, [...got].sort((a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)));
    for (const want of ['mcp:everything.echo', 'mcp:fs.read_text_file', 'mcp:fs.write_file', 'mcp:fx.echo', 'mcp:fx.delete_everything', 'mcp:fxh.echo']) {
      assert.ok(got.includes(want), `${want} missing from ${got.join(', ')}`);
    }
    for (const d of list) assert.ok(validateV2(d), `${d.toolId}: ${errorsOf(validateV2)}`);
    const byId = new Map(list.map((d: { toolId: string }) => [d.toolId, d]));
    const echo = byId.get('mcp:everything.echo') as Record<string, any>;
    assert.equal(echo.safetyTier, 'read');
    assert.deepEqual(echo.annotations, { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false });
    assert.equal((byId.get('mcp:fs.read_text_file') as Record<string, any>).safetyTier, 'read');
    // Unclassified MCP tools are write, whatever they say about themselves.
    for (const d of list as Record<string, any>[]) {
      if (d.source !== 'mcp' || d.toolId === 'mcp:everything.echo' || /^mcp:fs\.(read_|list_)/.test(d.toolId)) continue;
      assert.equal(d.safetyTier, 'write', d.toolId);
      assert.equal(d.annotations.destructiveHint, true, d.toolId);
    }
  });

  test('the tool that claims readOnlyHint: true while deleting things is write', async () => {
    const d = (await request(server.url, '/tools/mcp%3Afx.delete_everything', { token: 'k' })).json();
    assert.equal(d.safetyTier, 'write');
    assert.equal(d.annotations.readOnlyHint, false);
    assert.equal(d.annotations.destructiveHint, true);
    assert.equal(d.annotations.openWorldHint, true);
  });

  test('discovery lists mcp among the sources; the narrow tenant sees only its server', async () => {
    const doc = (await request(server.url, '/.well-known/openwop')).json();
    assert.ok(doc.toolCatalog.sources.includes('mcp'));
    const narrow = (await request(server.url, '/tools', { token: 'n' })).json();
    assert.ok(narrow.length > 0);
    assert.ok(narrow.every((d: { toolId: string }) => d.toolId.startsWith('mcp:everything.')));
  });

  test('list_changed: an added tool is served, a removed one disappears, the ETag changes', async () => {
    const before = await request(server.url, '/tools', { token: 'k' });
    const fx = fixtureSource();
    await fx.callTool('fixture_control', { action: 'add', name: 'brand_new' });
    await until('brand_new served', async () => ((await ids()).includes('mcp:fx.brand_new') ? true : undefined), 20_000);
    const afterAdd = await request(server.url, '/tools', { token: 'k' });
    assert.notEqual(afterAdd.headers.get('etag'), before.headers.get('etag'));
    await fx.callTool('fixture_control', { action: 'remove', name: 'brand_new' });
    await until('brand_new gone', async () => (!(await ids()).includes('mcp:fx.brand_new') ? true : undefined), 20_000);
  });

  test('a tool whose description and schema change under the same name: the served descriptor follows', async () => {
    const fx = fixtureSource();
    const descriptor = async () => {
      const res = await request(server.url, '/tools/mcp%3Afx.morph', { token: 'k' });
      return res.status === 200 ? (res.json() as { description?: string; inputSchema: Record<string, unknown> }) : undefined;
    };
    const compactEntry = async () => (await request(server.url, '/tools?view=compact', { token: 'k' })).json().tools.find((t: { toolId: string }) => t.toolId === 'mcp:fx.morph');
    await fx.callTool('fixture_control', { action: 'add', name: 'morph', description: 'Morph, first form.', schema: { type: 'object', properties: { a: { type: 'string' } } } });
    await until('morph served', async () => ((await descriptor())?.description === 'Morph, first form.' ? true : undefined), 20_000);

    await fx.callTool('fixture_control', { action: 'add', name: 'morph', description: 'Morph, second form.', schema: { type: 'object', properties: { a: { type: 'string' } } } });
    await until('the new description served', async () => ((await descriptor())?.description === 'Morph, second form.' ? true : undefined), 20_000);
    assert.match(JSON.stringify(await compactEntry()), /second form/);

    const schema = { type: 'object', properties: { n: { type: 'integer', minimum: 3 } }, required: ['n'] };
    await fx.callTool('fixture_control', { action: 'add', name: 'morph', description: 'Morph, second form.', schema });
    const served = await until('the new schema served', async () => {
      const d = await descriptor();
      return d && JSON.stringify(d.inputSchema).includes('"minimum":3') ? d : undefined;
    }, 20_000);
    assert.deepEqual((served.inputSchema.properties as Record<string, unknown>).n, { type: 'integer', minimum: 3 });
    assert.deepEqual(served.inputSchema.required, ['n']);
    assert.match(JSON.stringify(await compactEntry()), /"minimum":3/);
    await fx.callTool('fixture_control', { action: 'remove', name: 'morph' });
    await until('morph gone', async () => ((await descriptor()) === undefined ? true : undefined), 20_000);
  });

  test('a killed stdio child: last good tools stay, health shows it, tools come back fresh', async () => {
    const fx = fixtureSource();
    const pid = Number(((await fx.callTool('pid', {})).content as { text: string }[])[0].text);
    const failuresBefore = await failures('mcp:fx');
    process.kill(pid, 'SIGKILL');
    // One /readyz answer while fx is down: its overall status and fx's entry, seen together.
    const ready = await until('fx not connected', async () => {
      const r = (await request(server.url, '/readyz')).json();
      const h = r.sources.find((x: { id: string }) => x.id === 'mcp:fx');
      return h.state !== 'connected' ? { status: r.status as string, h } : undefined;
    }, 20_000);
    assert.equal(ready.h.state, 'stale');
    assert.ok(ready.h.lastError, 'health says why');
    assert.equal(ready.status, 'degraded');
    assert.ok((await failures('mcp:fx')) > failuresBefore, 'the failure is counted');
    assert.ok((await ids()).includes('mcp:fx.echo'), 'last good tools still served');
    await until('fx reconnected', async () => ((await health('mcp:fx')).state === 'connected' ? true : undefined), 20_000);
    assert.ok((await ids()).includes('mcp:fx.echo'));
  });

  test('a hung server: the read times out, the catalog keeps answering, then recovers', async () => {
    const fx = fixtureSource();
    const failuresBefore = await failures('mcp:fx');
    // tools/list stops answering (until the child is replaced), and a list_changed asks for it.
    await fx.callTool('fixture_control', { action: 'hang' });
    // The failed read is counted, whenever we look: no window to catch.
    await until('the timed-out read counted', async () => ((await failures('mcp:fx')) > failuresBefore ? true : undefined), 20_000);
    const during = await request(server.url, '/tools', { token: 'k' });
    assert.equal(during.status, 200);
    assert.ok(during.json().some((d: { toolId: string }) => d.toolId === 'mcp:fx.echo'));
    await until('fx recovered', async () => ((await health('mcp:fx')).state === 'connected' ? true : undefined), 20_000);
  });

  test('a stopped HTTP server: last good tools stay; when it is back on its port, fresh again', async () => {
    httpFixture.child.kill('SIGKILL');
    await until('fxh not connected', async () => ((await health('mcp:fxh')).state !== 'connected' ? true : undefined), 20_000);
    assert.ok((await ids()).includes('mcp:fxh.echo'));
    const port = new URL(httpFixture.url).port;
    const child = spawn(process.execPath, [...programArgs(FIXTURE), '--transport', 'http', '--port', port, '--auth-token', HEADER_SECRET], { stdio: ['ignore', 'pipe', 'ignore'] });
    httpFixture = { child, url: httpFixture.url };
    await until('fxh reconnected', async () => ((await health('mcp:fxh')).state === 'connected' ? true : undefined), 20_000);
    assert.ok((await ids()).includes('mcp:fxh.echo'));
  });

  test('no upstream secret in any response', async () => {
    const bodies = await Promise.all(
      ['/tools', '/tools?view=compact', '/readyz', '/health/sources', '/metrics', '/.well-known/openwop', '/tools/mcp%3Afx.env_check'].map((p) => request(server.url, p, { token: 'k' })),
    );
    for (const b of bodies) {
      assert.ok(!b.text.includes(ENV_SECRET));
      assert.ok(!b.text.includes(HEADER_SECRET));
    }
  });
});
