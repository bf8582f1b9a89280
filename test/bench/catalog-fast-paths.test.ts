// The catalog's fast paths must give exactly what the
// slow paths give: the one-pass credential check on a schema's JSON text,
// the descriptor serialization that reuses that text, the check for
// patterns the linear-time engine cannot run made on that text, and a
// rebuild that reuses unchanged tools.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import pino from 'pino';
import { descriptorJson, describeTool, mayHoldCredential } from '../../src/catalog/describe.js';
import { redactCredentials } from '../../src/catalog/redact.js';
import { CatalogSnapshot } from '../../src/catalog/snapshot.js';
import { CatalogStore } from '../../src/catalog/store.js';
import { compileTenant } from '../../src/catalog/visibility.js';
import { Policy } from '../../src/classify/policy.js';
import type { JsonObject } from '../../src/contract/descriptor.js';
import { createMetrics } from '../../src/observability/metrics.js';
import { withLinearPatterns } from '../../src/util/linear-regex.js';
import type { RawTool, ToolSource } from '../../src/sources/raw-tool.js';
import { makeTool } from '../../bench/tools.js';

/** These sources only list tools: the catalog never calls one. */
const LIST_ONLY = { owns: () => false, invoke: () => Promise.reject(new Error('a catalog test calls no tool')) };

const SECRETISH = [
  'Bearer abcdefgh12345678',
  'see Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ==',
  '-----BEGIN RSA PRIVATE KEY-----',
  'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.abc',
  'sk-live-abcdefghijklmnop1234',
  'ghp_abcdefghijklmnopqrstuvwxyz0123456789',
  'xoxb-1234567890-abc',
  'AKIAABCDEFGHIJKLMNOP',
  'https://user:pass@example.com/x',
  'Bearer\nabcdefgh12345678',
  'line one\nBearer abcdefgh12345678',
];

const jsonValue: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    fc.constantFrom(...SECRETISH),
    fc.string(),
    fc.integer(),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(fc.oneof(fc.constantFrom('password', 'token', 'api_key', 'default', 'enum', 'description', 'type', 'x-api-key', ':', '"'), fc.string()), tie('value'), { maxKeys: 4 }),
  ),
})).value;

test('mayHoldCredential is false only where redactCredentials finds nothing', () => {
  fc.assert(
    fc.property(fc.dictionary(fc.string(), jsonValue, { maxKeys: 5 }), (value) => {
      const json = JSON.stringify(value);
      if (!mayHoldCredential(json)) assert.deepEqual(redactCredentials(value as JsonObject).redacted, []);
    }),
    { numRuns: 3000 },
  );
  for (const s of SECRETISH) assert.equal(mayHoldCredential(JSON.stringify({ description: s })), true, s);
  assert.equal(mayHoldCredential(JSON.stringify({ properties: { x: { default: { password: 'hunter2' } } } })), true);
  assert.equal(mayHoldCredential(JSON.stringify({ properties: { password: { type: 'string' } } })), false);
});

/** Patterns RE2 runs, ones it cannot (backreferences, lookaround), invalid ones, and strings with quotes and backslashes. */
const PATTERNS = ['^[a-z]+$', '\\d{3}-\\d{4}', '(a)\\1', '(?=x)y', '(?<!a)b', '[', '"quoted"', 'back\\', '\\"pattern\\":\\"(a)\\1', 'a"pattern":"(?=z)'];
const schemaArb: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  schema: fc.oneof(
    { depthSize: 'small' },
    fc.record({ type: fc.constantFrom('string', 'object'), pattern: fc.constantFrom(...PATTERNS) }, { requiredKeys: ['type'] }),
    fc.record({ type: fc.constant('object'), properties: fc.dictionary(fc.constantFrom('pattern', 'a', 'b"c'), tie('schema'), { maxKeys: 3 }) }),
    fc.record({ not: tie('schema') }),
    fc.record({ anyOf: fc.array(tie('schema'), { maxLength: 3 }) }),
    fc.record({ patternProperties: fc.dictionary(fc.constantFrom(...PATTERNS), tie('schema'), { maxKeys: 2 }) }),
    fc.record({ default: fc.dictionary(fc.constantFrom('pattern', 'x'), fc.constantFrom(...PATTERNS), { maxKeys: 2 }), description: fc.constantFrom(...PATTERNS) }),
  ),
})).schema;

test('describeTool names unenforced patterns exactly where the full walk finds them (the text check never misses one)', () => {
  fc.assert(
    fc.property(schemaArb, (schema) => {
      const inputSchema = { type: 'object', properties: { x: schema } } as JsonObject;
      const { unenforced } = describeTool({ source: 'mcp', toolId: 'mcp:s.t', origin: 'test', inputSchema }, { safetyTier: 'read', egress: 'none' }, []);
      const walked = withLinearPatterns(inputSchema).unenforced;
      assert.equal(unenforced.length > 0, walked.length > 0, JSON.stringify(inputSchema));
    }),
    { numRuns: 2000 },
  );
});

test('descriptorJson gives JSON.stringify bytes, for generated tools and with redactions', () => {
  const tools: RawTool[] = [];
  for (let i = 0; i < 300; i++) {
    const t = makeTool(i, 300);
    tools.push({ source: 'mcp', toolId: `mcp:bench.${t.name}`, origin: 'test', title: t.title, description: t.description, inputSchema: t.inputSchema as JsonObject, outputSchema: t.outputSchema as JsonObject | undefined });
  }
  tools.push({ source: 'mcp', toolId: 'mcp:bench.leaky', origin: 'test', inputSchema: { type: 'object', properties: { token: { type: 'string', default: 'Bearer abcdefgh12345678' } } } });
  let withText = 0;
  for (const raw of tools) {
    const { descriptor, schemaTexts } = describeTool(raw, { safetyTier: 'read', egress: 'none' }, ['a.scope']);
    const expected = JSON.stringify(descriptor);
    if (schemaTexts !== undefined) withText++;
    assert.equal(descriptorJson(descriptor, schemaTexts), expected);
    assert.equal(descriptorJson(descriptor, schemaTexts), expected, 'the same text again');
    assert.equal(descriptorJson(descriptor), expected, 'without the schema text');
  }
  assert.ok(withText >= 300, 'clean schemas come with their text');
  const leaky = describeTool(tools.at(-1)!, { safetyTier: 'read', egress: 'none' }, []);
  assert.equal(leaky.schemaTexts?.inputSchema, undefined, 'a redacted schema has no text: it is not the one checked');
});

test('a rebuild reuses unchanged tools and rebuilds changed ones', async () => {
  const make = (rev: number) => [0, 1, 2].map((i) => {
    const t = makeTool(i, 3, i === 1 ? rev : 0);
    return JSON.parse(JSON.stringify({ source: 'mcp', toolId: `mcp:s.${t.name}`, origin: 'test', description: t.description, inputSchema: t.inputSchema })) as RawTool;
  });
  let list = make(0);
  const source: ToolSource = { id: 'mcp:s', kind: 'mcp', start: async () => {}, tools: () => list, health: () => ({ id: 'mcp:s', kind: 'mcp', state: 'connected', toolCount: list.length }), stop: async () => {}, ...LIST_ONLY };
  const store = new CatalogStore({ sources: [source], policy: new Policy({}), tenants: new Map([['t', compileTenant('t', ['*'])]]), logger: pino({ level: 'silent' }), metrics: createMetrics() });
  let first = store.initialBuild();
  const initial = first;
  for (const rev of [1, 2, 3]) {
    list = make(rev);
    const next = await new Promise<typeof first>((resolve) => {
      const off = store.onSwap((n) => {
        off();
        resolve(n);
      });
      store.scheduleRebuild();
    });
    const changed = list[1].toolId;
    for (const e of next.entries) {
      const before = first.byId.get(e.tool.descriptor.toolId)!;
      if (e.tool.descriptor.toolId === changed) {
        assert.notEqual(e, before);
        assert.match(e.standard.bytes.toString(), new RegExp(`\\(revision ${rev}\\)`));
        assert.equal(e.tool.raw, list[1]);
      } else {
        assert.equal(e.standard, before.standard, 'an unchanged tool keeps its bytes');
        assert.equal(e.compact, before.compact);
        assert.equal(e.tool.raw, list.find((r) => r.toolId === e.tool.descriptor.toolId), 'and points at the new RawTool');
        assert.deepEqual(e.compactDescriptor, before.compactDescriptor);
        assert.equal(e.standard, initial.byId.get(e.tool.descriptor.toolId)!.standard, 'across every rebuild');
      }
    }
    assert.notEqual(next.viewFor({ tenant: 't', scopes: new Set() }).standard.etag, first.viewFor({ tenant: 't', scopes: new Set() }).standard.etag);
    first = next;
  }
});

test('views listing the same tools share one list body; entries are stored once, inside the list of every tool', async () => {
  let list = [0, 1, 2, 3].map((i) => {
    const t = makeTool(i, 4, 0);
    return { source: 'mcp', toolId: `mcp:s.${t.name}`, origin: 'test', description: t.description, inputSchema: t.inputSchema } as RawTool;
  });
  const source: ToolSource = { id: 'mcp:s', kind: 'mcp', start: async () => {}, tools: () => list, health: () => ({ id: 'mcp:s', kind: 'mcp', state: 'connected', toolCount: list.length }), stop: async () => {}, ...LIST_ONLY };
  const tenants = new Map([
    ['a', compileTenant('a', ['*'])],
    ['b', compileTenant('b', ['mcp:s.*'])],
    ['c', compileTenant('c', [list[0].toolId])],
  ]);
  const store = new CatalogStore({ sources: [source], policy: new Policy({}), tenants, logger: pino({ level: 'silent' }), metrics: createMetrics() });
  const first = store.initialBuild();
  const view = (s: typeof first, tenant: string) => s.viewFor({ tenant, scopes: new Set() });
  const expectedJson = (s: typeof first) => `[${s.entries.map((e) => JSON.stringify(e.tool.descriptor)).join(',')}]`;

  for (const kind of ['standard', 'compact'] as const) {
    assert.equal(view(first, 'a')[kind], view(first, 'b')[kind], `${kind}: one body for two views of every tool`);
    assert.notEqual(view(first, 'c')[kind], view(first, 'a')[kind]);
    // Joined into one buffer for a caller that needs one (fastify's road): the entries move onto it.
    const all = view(first, 'a')[kind].bytes;
    for (const e of first.entries) assert.ok(e[kind].bytes.buffer === all.buffer, `${kind}: the entry's bytes are a slice of the list`);
  }
  assert.equal(view(first, 'a').standard.bytes.toString(), expectedJson(first));
  assert.deepEqual(JSON.parse(view(first, 'c').standard.bytes.toString()), [first.entries[0].tool.descriptor]);

  // A refresh: the new snapshot's list is the first list's runs and the changed entry (list-body.ts), so the unchanged entries stay stored once, inside the first list; every byte stays the same.
  const before = first.entries.map((e) => e.standard.bytes.toString());
  const firstAll = view(first, 'a').standard.bytes;
  const firstBodies = first.entries.map((e) => e.standard);
  const changed = first.entries[2].tool.descriptor.toolId;
  list = list.map((r) => (r.toolId === changed ? { ...r, description: 'changed' } : r));
  const next = await new Promise<typeof first>((resolve) => {
    const off = store.onSwap((n) => {
      off();
      resolve(n);
    });
    store.scheduleRebuild();
  });
  const parts = view(next, 'a').standard.parts;
  assert.equal(Buffer.concat(parts).toString(), expectedJson(next));
  assert.ok(parts.some((p) => p.buffer === firstAll.buffer), 'the list is runs of the first list');
  next.entries.forEach((e, i) => {
    if (i === 2) return;
    assert.ok(e.standard.bytes.buffer === firstAll.buffer, 'an unchanged entry is still a slice of the first list');
    assert.equal(e.standard.bytes.toString(), before[i]);
  });
  assert.match(next.entries[2].standard.bytes.toString(), /"description":"changed"/);
  first.entries.forEach((e, i) => {
    assert.equal(e.standard, firstBodies[i], 'the old snapshot keeps its own bodies');
    assert.ok(e.standard.bytes.buffer === firstAll.buffer, 'still inside its own list');
    if (i !== 2) assert.equal(next.byId.get(e.tool.descriptor.toolId)!.standard.etag, e.standard.etag);
  });
  assert.equal(view(first, 'a').standard.bytes.toString(), `[${before.join(',')}]`, 'the old snapshot still answers its own bytes');
});

test('a content-only refresh keeps every view as a fresh build would make it; a scope change is never carried over', async () => {
  const tool = (name: string, extra: Partial<RawTool> = {}): RawTool => ({ source: 'mcp', toolId: `mcp:s.${name}`, origin: 'test', description: name, ...extra });
  let list = [tool('a'), tool('b', { scopes: ['s1'] }), tool('c', { scopes: ['s1'] })];
  const source: ToolSource = { id: 'mcp:s', kind: 'mcp', start: async () => {}, tools: () => list, health: () => ({ id: 'mcp:s', kind: 'mcp', state: 'connected', toolCount: list.length }), stop: async () => {}, ...LIST_ONLY };
  const tenants = new Map([['t', compileTenant('t', ['*'])], ['u', compileTenant('u', ['mcp:s.b', 'mcp:s.c'])]]);
  const store = new CatalogStore({ sources: [source], policy: new Policy({}), tenants, logger: pino({ level: 'silent' }), metrics: createMetrics() });
  const callers = ['t', 'u'].flatMap((tenant) => [[], ['s1'], ['s2']].map((scopes) => ({ tenant, scopes: new Set(scopes) })));
  const seen = (s: ReturnType<typeof store.current>) => callers.map((c) => s.viewFor(c).entries.map((e) => e.tool.descriptor.toolId));
  const refresh = () =>
    new Promise<ReturnType<typeof store.current>>((resolve) => {
      const off = store.onSwap((n) => {
        off();
        resolve(n);
      });
      store.scheduleRebuild();
    });
  store.initialBuild();
  seen(store.current());

  list = list.map((r) => (r.toolId === 'mcp:s.a' ? { ...r, description: 'changed' } : r));
  const contentOnly = await refresh();
  const fresh = new CatalogSnapshot(contentOnly.tools, tenants, 99);
  assert.deepEqual(seen(contentOnly), seen(fresh));
  for (const c of callers) assert.deepEqual(contentOnly.viewFor(c).entries, fresh.viewFor(c).entries.map((e) => contentOnly.byId.get(e.tool.descriptor.toolId)));

  // b needs no scope any more (s1 still matters, for c): callers without s1 now see b.
  list = list.map((r) => (r.toolId === 'mcp:s.b' ? { ...r, scopes: [] } : r));
  const scopeChange = await refresh();
  assert.deepEqual(seen(scopeChange), seen(new CatalogSnapshot(scopeChange.tools, tenants, 99)));
  assert.ok(scopeChange.viewFor({ tenant: 't', scopes: new Set() }).ids.has('mcp:s.b'), 'b is open to callers without s1');
  assert.ok(!scopeChange.viewFor({ tenant: 't', scopes: new Set() }).ids.has('mcp:s.c'));
});
