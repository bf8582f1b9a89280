// Changing a running host's config file (docs/config.md "Changing a running
// host"): one host, its config file edited in place, the edits picked up by
// the file watch. A policy change under load, an invalid edit, a fixed setting,
// and an MCP server added and removed under an open MCP session.
import assert from 'node:assert/strict';
import { mkdirSync, renameSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { stringify } from 'yaml';
import { hashApiKey } from '../../src/auth/api-keys.js';
import { waitFor } from '../events/helpers.js';
import { connect } from '../front-door/front-door-helpers.js';
import { request, startTestServer, tempDir, type TestServer } from '../helpers/server.js';

const root = new URL('../../', import.meta.url).pathname;
const EVERYTHING = join(root, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');

const MANIFEST = `pack: t
handlers: ./handlers.mjs
tools:
  - typeId: t.upper
    inputSchema: { type: object, properties: { text: { type: string } }, required: [text] }
  - typeId: t.lower
    inputSchema: { type: object, properties: { text: { type: string } }, required: [text] }
`;
const HANDLERS = `export const handlers = {
  't.upper': ({ text }) => ({ text: String(text).toUpperCase() }),
  't.lower': ({ text }) => ({ text: String(text).toLowerCase() }),
};
`;

const dir = tempDir();
// Laid out as a Kubernetes ConfigMap volume: toolhost.yaml -> ..data/toolhost.yaml, ..data -> ..vN.
const volume = join(dir, 'volume');
const configFile = join(volume, 'toolhost.yaml');
let version = 0;

function config(tier: 'pure' | 'read', extra: { mcp?: boolean; mcpEnv?: Record<string, string>; server?: Record<string, unknown>; resources?: string[] } = {}): Record<string, unknown> {
  return {
    ...(extra.server ? { server: extra.server } : {}),
    // No rate limit: 8 clients calling as fast as they can would meet it, which is not what this test checks.
    tenants: { a: { tools: ['*'], rateLimit: false, ...(extra.resources ? { resources: extra.resources } : {}) } },
    principals: [{ id: 'pa', tenant: 'a', keyHash: hashApiKey('ka') }],
    policy: { rules: [{ match: 'openwop:t.*', safetyTier: tier, replayPolicy: 'deterministic', egress: 'none' }] },
    sources: {
      nodePacks: [{ path: join(dir, 'pack') }],
      ...(extra.mcp ? { mcp: [{ id: 'everything', transport: 'stdio', command: process.execPath, args: [EVERYTHING, 'stdio'], ...(extra.mcpEnv ? { env: extra.mcpEnv } : {}) }] } : {}),
    },
  };
}

/** Replaces the file as the kubelet updates a ConfigMap volume: a new directory, and the `..data` symlink swapped to it. */
function writeAtomically(content: Record<string, unknown>): void {
  const next = `..v${++version}`;
  mkdirSync(join(volume, next));
  writeFileSync(join(volume, next, 'toolhost.yaml'), stringify(content));
  symlinkSync(next, join(volume, '..data_tmp'));
  renameSync(join(volume, '..data_tmp'), join(volume, '..data'));
}

async function readyz(server: TestServer): Promise<{ config: { generation: number; lastRefused?: { problems: string[] }; lastReload?: { outcome: string; refusedSettings?: string[] } } }> {
  return (await request(server.url, '/readyz')).json();
}

async function tiers(server: TestServer): Promise<string[]> {
  const res = await request(server.url, '/tools', { token: 'ka' });
  assert.equal(res.status, 200);
  return (res.json() as { toolId: string; safetyTier: string }[]).filter((t) => t.toolId.startsWith('openwop:t.')).map((t) => t.safetyTier);
}

describe('config reload', () => {
  let server: TestServer;

  before(async () => {
    mkdirSync(join(dir, 'pack'));
    writeFileSync(join(dir, 'pack', 'toolpack.yaml'), MANIFEST);
    writeFileSync(join(dir, 'pack', 'handlers.mjs'), HANDLERS);
    mkdirSync(volume);
    writeAtomically(config('pure'));
    symlinkSync('..data/toolhost.yaml', configFile);
    server = await startTestServer(configFile);
  });
  after(() => server.close());

  it('applies a changed policy rule while 8 clients call tools: no failed call, no listing mixes old and new', async () => {
    assert.deepEqual(await tiers(server), ['pure', 'pure']);
    const clients: Client[] = await Promise.all(Array.from({ length: 8 }, () => connect(server.url, 'ka')));
    let stop = false;
    const failures: string[] = [];
    const mixes: string[][] = [];
    let calls = 0;
    const seen = new Set<string>();
    const load = clients.map(async (client, i) => {
      while (!stop) {
        const result = await client.callTool({ name: 'openwop__t_upper', arguments: { text: `c${i}` } }).catch((err: Error) => ({ isError: true, content: [{ type: 'text', text: err.message }] }));
        calls++;
        if (result.isError) failures.push(JSON.stringify(result.content));
        const listed = await tiers(server);
        seen.add(listed.join());
        if (new Set(listed).size !== 1) mixes.push(listed);
      }
    });
    await waitFor(() => calls >= 16, 10_000, 'calls before the edit');
    writeAtomically(config('read'));
    await waitFor(async () => (await tiers(server)).every((t) => t === 'read'), 10_000, 'the new tier served');
    const afterSwap = calls;
    await waitFor(() => calls >= afterSwap + 16, 10_000, 'calls after the edit');
    stop = true;
    await Promise.all(load);
    await Promise.all(clients.map((c) => c.close()));
    assert.deepEqual(failures, []);
    assert.deepEqual(mixes, []);
    assert.deepEqual([...seen].sort(), ['pure,pure', 'read,read']);
    const { config: status } = await readyz(server);
    assert.equal(status.generation, 2);
    assert.equal(status.lastReload?.outcome, 'applied');
  });

  it('refuses an invalid edit whole: every problem in one log line and /readyz, nothing changed', async () => {
    const broken = config('pure');
    (broken.principals as { tenant: string }[])[0].tenant = 'nobody';
    (broken.policy as { rules: Record<string, unknown>[] }).rules[0].safetyTier = 'loud';
    const logsBefore = server.logs.length;
    writeAtomically(broken);
    const refused = await waitFor(async () => (await readyz(server)).config.lastRefused !== undefined, 10_000, 'the refusal').then(() => readyz(server));
    assert.equal(refused.config.generation, 2);
    const problems = refused.config.lastRefused!.problems.join('\n');
    assert.match(problems, /principals\/0\/tenant.*unknown tenant "nobody"/);
    assert.match(problems, /policy\/rules\/0\/safetyTier/);
    const lines = server.logs.slice(logsBefore).filter((l) => l.includes('config reload refused'));
    assert.equal(lines.length, 1);
    assert.match(lines[0], /nobody/);
    assert.match(lines[0], /safetyTier/);
    // Still the last good config: the tier of the edit before, the same principal.
    assert.deepEqual(await tiers(server), ['read', 'read']);
    const metrics = (await request(server.url, '/metrics')).text;
    assert.match(metrics, /toolhost_config_reloads_total\{outcome="refused"\} 1/);
    assert.match(metrics, /toolhost_config_generation 2/);
  });

  it('refuses a setting fixed at start by name and applies the rest', async () => {
    writeAtomically(config('pure', { server: { port: 1 } }));
    await waitFor(async () => (await readyz(server)).config.generation === 3, 10_000, 'the partial reload');
    const { config: status } = await readyz(server);
    assert.deepEqual(status.lastReload, { ...status.lastReload, outcome: 'partial', refusedSettings: ['server'] });
    assert.deepEqual(await tiers(server), ['pure', 'pure']);
    assert.ok(server.logs.some((l) => l.includes('server cannot change while the host runs')));
  });

  it('adds and removes an MCP server under an open session (list_changed); an unchanged one keeps running', async () => {
    const client = await connect(server.url, 'ka');
    let changes = 0;
    client.setNotificationHandler(ToolListChangedNotificationSchema, async () => void changes++);
    const names = async () => (await client.listTools()).tools.map((t) => t.name);
    assert.ok(!(await names()).some((n) => n.includes('everything')));

    writeAtomically(config('pure', { mcp: true }));
    await waitFor(() => changes >= 1, 15_000, 'list_changed after the add');
    { const n = await names(); assert.ok(n.some((x) => x.includes('everything')), n.join()); }
    const echo = (await client.listTools()).tools.find((t) => t.name.endsWith('echo'))!;
    const echoed = await client.callTool({ name: echo.name, arguments: { message: 'hi' } });
    assert.notEqual(echoed.isError, true);
    const running = server.running.host.sources.get('mcp:everything');
    assert.ok(running);

    // A policy edit keeps the unchanged server's instance (its child process); a changed entry restarts it.
    const generation = (await readyz(server)).config.generation;
    writeAtomically(config('read', { mcp: true }));
    await waitFor(async () => (await readyz(server)).config.generation === generation + 1, 10_000, 'the policy edit');
    assert.equal(server.running.host.sources.get('mcp:everything'), running);
    writeAtomically(config('read', { mcp: true, mcpEnv: { EXTRA: '1' } }));
    await waitFor(async () => (await readyz(server)).config.generation === generation + 2, 15_000, 'the changed entry');
    assert.notEqual(server.running.host.sources.get('mcp:everything'), running);

    // A call in flight when its server is removed finishes under the view it started with.
    const slow = (await client.listTools()).tools.find((t) => t.name.endsWith('trigger-long-running-operation'))!;
    let progressed = 0;
    let done = false;
    const inFlight = client.callTool({ name: slow.name, arguments: { duration: 3, steps: 6 } }, undefined, { onprogress: () => void progressed++ }).finally(() => (done = true));
    await waitFor(() => progressed >= 1, 10_000, 'the slow call under way');
    const before = changes;
    writeAtomically(config('read'));
    await waitFor(() => changes > before, 10_000, 'list_changed after the removal');
    assert.equal(done, false, 'the call was still running when its server was removed');
    const finished = await inFlight;
    assert.notEqual(finished.isError, true, JSON.stringify(finished.content));
    assert.match(JSON.stringify(finished.content), /completed/);
    assert.ok(!(await names()).some((n) => n.includes('everything')));
    const health = (await request(server.url, '/health/sources')).json() as { sources: { id: string }[] };
    assert.ok(!health.sources.some((s) => s.id === 'mcp:everything'));
    await client.close();
  });

  it('the resources a reload names, of a server it adds, are served; a reload that drops the rule takes them away', async () => {
    /** The resource URIs a new session lists, or undefined when it is offered no resources. */
    const listed = async (): Promise<string[] | undefined> => {
      const c = await connect(server.url, 'ka');
      try {
        if (c.getServerCapabilities()?.resources === undefined) return undefined;
        return (await c.listResources()).resources.map((r) => r.uri);
      } finally {
        await c.close();
      }
    };
    assert.equal(await listed(), undefined);
    writeAtomically(config('read', { mcp: true, resources: ['mcp:everything:*'] }));
    await waitFor(async () => ((await listed()) ?? []).some((u) => u.startsWith('toolhost-mcp://everything/')), 15_000, 'the added server\'s resources');
    writeAtomically(config('read', { mcp: true }));
    await waitFor(async () => (await listed()) === undefined, 10_000, 'the resources gone with their rule');
  });
});
