// Refresh reuse changes nothing a caller can see (docs/architecture.md "A
// refresh costs what changed"; config `catalog.reuse`). Two hosts with the same
// config, one with reuse on and one with it off, each read their own copy of
// the fixture MCP server over stdio (pages large enough for the page cache);
// both copies get the same random sequence of changes (tools added, removed,
// renamed, their description or schema changed, the list sent again as it
// was). After every change both hosts must give byte-identical answers:
// GET /tools in both views (identity and gzip), GET /tools/{id}, the ETags
// (each host's ETag revalidates at the other), and the MCP front door's
// tools/list.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import fc from 'fast-check';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { hashApiKey } from '../../src/auth/api-keys.js';
import { connect, listAll } from '../front-door/front-door-helpers.js';
import { request, startTestServer, tempDir, writeConfig, type TestServer } from '../helpers/server.js';
import type { McpToolSource } from '../../src/sources/mcp/index.js';
import { patient } from '../helpers/patience.js';
import { programArgs } from '../helpers/fixture-command.js';

const root = new URL('../../', import.meta.url).pathname;
const FIXTURE = `${root}test/fixtures/mcp-fixture/server.ts`;
/** 600 tools in pages of 300: each page is over the page cache's size threshold. */
const FIXTURE_ARGS = ['--tools', '594', '--page-size', '300'];

const NAMES = ['t_a', 't_b', 't_c', 't_d'];
const DESCRIPTIONS = [
  'Looks a thing up.',
  'Looks a thing up, again.',
  'Calls the API with Bearer abcdefgh12345678 when asked.',
  'A longer text. It has two sentences, and the compact view summarizes it.',
];
const SCHEMAS: Record<string, unknown>[] = [
  { type: 'object' },
  { type: 'object', properties: { q: { type: 'string', description: 'what to look up' } }, required: ['q'] },
  { type: 'object', properties: { key: { type: 'string', default: 'sk-live-abcdefghijklmnop1234' } } },
  {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    type: 'object',
    properties: { item: { $ref: '#/$defs/Item' }, mode: { anyOf: [{ const: 'fast' }, { const: 'slow' }] } },
    $defs: { Item: { type: 'object', properties: { id: { type: 'integer' } }, required: ['id'] } },
  },
];

type Tool = { description: string; schema: Record<string, unknown> };
type Op = { kind: 'add' | 'remove' | 'describe' | 'reschema' | 'rename' | 'relist'; name: number; to: number; description: number; schema: number };

const KEYS = { all: 'key-all', scoped: 'key-scoped', narrow: 'key-narrow' };
const CALLERS = Object.values(KEYS);

function config(reuse: boolean, dir: string): string {
  writeFileSync(
    join(dir, 'uses-a.yaml'),
    'id: uses-a\ndescription: Looks up with t_a, then echoes.\ninputSchema: { type: object }\nsteps:\n  - tool: mcp:fx.t_a\n  - tool: mcp:fx.echo\n    with: { message: done }\n',
  );
  return writeConfig(
    {
      catalog: { reuse },
      // No rate limit: a step asks more than the default burst, and a 429 on one host only would be a false difference.
      tenants: { all: { tools: ['*'], rateLimit: false }, narrow: { tools: ['mcp:fx.t_*', 'mcp:fx.gen_0000*', 'workflow:*'], mcpView: 'compact', rateLimit: false } },
      principals: [
        { id: 'all', tenant: 'all', keyHash: hashApiKey(KEYS.all) },
        { id: 'scoped', tenant: 'all', scopes: ['lookup'], keyHash: hashApiKey(KEYS.scoped) },
        { id: 'narrow', tenant: 'narrow', scopes: ['lookup'], keyHash: hashApiKey(KEYS.narrow) },
      ],
      auth: { audit: false },
      policy: {
        rules: [
          { match: ['mcp:fx.t_a', 'mcp:fx.echo'], safetyTier: 'read', replayPolicy: 'idempotent', egress: 'none' },
          { match: 'mcp:fx.t_b', safetyTier: 'read', scopes: ['lookup'] },
        ],
      },
      sources: {
        workflows: [{ path: 'uses-a.yaml' }],
        mcp: [
          {
            id: 'fx',
            transport: 'stdio',
            command: process.execPath,
            args: [...programArgs(FIXTURE), '--transport', 'stdio', ...FIXTURE_ARGS],
            cwd: root,
            debounceMs: 10,
            refreshIntervalMs: 0,
            pingIntervalMs: 0,
          },
        ],
      },
    },
    dir,
  );
}

interface Side {
  server: TestServer;
  /** MCP sessions: a standard one and a compact one (the narrow tenant's default). */
  sessions: Client[];
}

let on: Side;
let off: Side;
const model = new Map<string, Tool>();

const refreshes = (s: Side) => s.server.logs.filter((l) => l.includes('"event":"refresh"')).length;

/** Both hosts have read the fixture since `before` and their snapshots hold exactly what their source serves. */
async function settled(s: Side, before: number): Promise<void> {
  const { host } = s.server.running;
  const source = host.sources.get('mcp:fx') as McpToolSource;
  const deadline = Date.now() + 20_000;
  for (;;) {
    const served = source.tools();
    const snapshot = host.store.current();
    if (refreshes(s) > before && served.every((r) => snapshot.tool(r.toolId)?.raw === r) && snapshot.tools.filter((t) => t.raw.source === 'mcp').length === served.length) return;
    if (Date.now() > deadline) assert.fail('the host did not take up the change within 20 s');
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** Sends one fixture_control call to both upstreams, then waits for both hosts to take it up. */
async function change(args: Record<string, unknown>, quiet = false): Promise<void> {
  const before = [refreshes(on), refreshes(off)];
  for (const s of [on, off]) await (s.server.running.host.sources.get('mcp:fx') as McpToolSource).callTool('fixture_control', { ...args, quiet });
  if (!quiet) await Promise.all([settled(on, before[0]), settled(off, before[1])]);
}

async function apply(op: Op): Promise<void> {
  const name = NAMES[op.name];
  const present = model.get(name);
  const tool = { description: DESCRIPTIONS[op.description], schema: SCHEMAS[op.schema] };
  const add = (n: string, t: Tool) => change({ action: 'add', name: n, description: t.description, schema: t.schema }).then(() => void model.set(n, t));
  if (op.kind === 'relist') return change({ action: 'notify' });
  if (present === undefined) return add(name, tool);
  switch (op.kind) {
    case 'add':
    case 'describe':
      return add(name, { ...present, description: tool.description });
    case 'reschema':
      return add(name, { ...present, schema: tool.schema });
    case 'remove':
      await change({ action: 'remove', name });
      model.delete(name);
      return;
    case 'rename': {
      const to = NAMES[op.to];
      if (model.has(to)) return change({ action: 'notify' });
      await change({ action: 'remove', name }, true);
      model.delete(name);
      return add(to, present);
    }
  }
}

async function get(s: Side, path: string, key: string, headers: Record<string, string> = {}): Promise<string> {
  const r = await request(s.server.url, path, { token: key, headers });
  return JSON.stringify({ status: r.status, etag: r.headers.get('etag'), encoding: r.headers.get('content-encoding'), body: r.text });
}

/** Every answer compared, both hosts (the requests of one step in parallel). */
async function compare(step: string): Promise<void> {
  const ids = new Set<string>(['workflow:uses-a', 'mcp:fx.echo', 'mcp:fx.gen_00593', 'mcp:fx.nope']);
  for (const n of NAMES) ids.add(`mcp:fx.${n}`);
  const asks: { what: string; path: string; key: string; headers?: Record<string, string> }[] = [];
  for (const key of CALLERS) {
    for (const path of ['/tools', '/tools?view=compact']) {
      asks.push({ what: `GET ${path} for ${key}`, path, key });
      asks.push({ what: `GET ${path} gzip for ${key}`, path, key, headers: { 'accept-encoding': 'gzip' } });
    }
    for (const id of ids) for (const view of ['', '?view=compact']) asks.push({ what: `GET ${id}${view} for ${key}`, path: `/tools/${encodeURIComponent(id)}${view}`, key });
  }
  const answers = await Promise.all(asks.map((q) => Promise.all([on, off].map((s) => get(s, q.path, q.key, q.headers)))));
  asks.forEach((q, i) => assert.equal(answers[i][0], answers[i][1], `${step}: ${q.what}`));
  // Each host's list ETags revalidate at the other.
  const revalidations = asks.flatMap((q, i) =>
    q.path.startsWith('/tools?') || q.path === '/tools'
      ? [on, off].map(async (s) => ({ q, status: (await request(s.server.url, q.path, { token: q.key, headers: { ...q.headers, 'if-none-match': (JSON.parse(answers[i][0]) as { etag: string }).etag } })).status }))
      : [],
  );
  for (const { q, status } of await Promise.all(revalidations)) assert.equal(status, 304, `${step}: ${q.what} revalidates`);
  const lists = await Promise.all([on, off].map((s) => Promise.all(s.sessions.map((c) => listAll(c)))));
  assert.deepEqual(lists[0], lists[1], `${step}: MCP tools/list`);
}

async function start(reuse: boolean): Promise<Side> {
  const server = await startTestServer(config(reuse, tempDir()), { startDeadlineMs: patient(20_000) });
  return { server, sessions: [await connect(server.url, KEYS.scoped), await connect(server.url, KEYS.narrow)] };
}

before(async () => {
  [on, off] = await Promise.all([start(true), start(false)]);
});

after(async () => {
  for (const s of [on, off]) {
    if (s === undefined) continue;
    for (const c of s.sessions) await c.close().catch(() => undefined);
    await s.server.close();
  }
});

const opArb: fc.Arbitrary<Op> = fc.record({
  kind: fc.constantFrom<Op['kind']>('add', 'remove', 'describe', 'reschema', 'rename', 'relist'),
  name: fc.nat({ max: NAMES.length - 1 }),
  to: fc.nat({ max: NAMES.length - 1 }),
  description: fc.nat({ max: DESCRIPTIONS.length - 1 }),
  schema: fc.nat({ max: SCHEMAS.length - 1 }),
});

test('a host with reuse on answers byte for byte what a host with reuse off answers, across upstream changes (property)', async () => {
  await compare('start');
  await fc.assert(
    fc.asyncProperty(fc.array(opArb, { minLength: 3, maxLength: 5 }), async (ops) => {
      // Each run starts from the fixture's own tools.
      for (const name of [...model.keys()]) {
        await change({ action: 'remove', name }, true);
        model.delete(name);
      }
      await change({ action: 'notify' });
      for (const [i, op] of ops.entries()) {
        await apply(op);
        await compare(`step ${i + 1} ${JSON.stringify(op)}`);
      }
    }),
    { numRuns: 4, endOnFailure: true },
  );

  // The fast paths ran on one side only.
  const reads = (s: Side) => s.server.logs.map((l) => JSON.parse(l) as Record<string, any>).filter((e) => e.event === 'refresh');
  const onReads = reads(on);
  assert.ok(onReads.some((e) => e.pageCache?.hits > 0), 'reuse on: pages came from the page cache');
  assert.ok(onReads.some((e) => e.reusedTools > 0), 'reuse on: tools were reused');
  assert.ok(reads(off).every((e) => e.pageCache === undefined), 'reuse off: no page cache');
});
