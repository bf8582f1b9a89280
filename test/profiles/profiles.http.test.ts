// The provider profiles over the wire (docs/compact-view.md "Provider
// profiles"): GET /tools and /tools/{id} with ?view=compact&profile=…, the
// 400 for an unknown profile, the compact view unchanged without one, and
// /mcp?profile=openai-strict: the profile's schemas listed, a call made in
// the profile's form reaching the tool in its own form, recorded with the
// profile; a call back cannot map is a tool error naming path and rule.
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { hashApiKey } from '../../src/auth/api-keys.js';
import { storedEvents } from '../helpers/event-store.js';
import { request, startTestServer, tempDir, type TestServer, writeConfig } from '../helpers/server.js';
import { connect } from '../front-door/front-door-helpers.js';

const KEY = 'profiles-key';
const MANIFEST = `pack: p
handlers: ./handlers.mjs
tools:
  - typeId: p.echo
    title: Echo
    description: Answers with the arguments it got.
    inputSchema:
      type: object
      properties:
        path: { type: string }
        limit: { type: integer, minimum: 1 }
        note: { type: [string, "null"] }
        labels: { type: object, additionalProperties: { type: string } }
        dry-run: { type: boolean }
      required: [path]
      additionalProperties: false
`;
const HANDLERS = `export const handlers = { 'p.echo': (args) => ({ got: JSON.stringify(args) }) };`;

let server: TestServer;
let client: Client;

before(async () => {
  const dir = tempDir();
  mkdirSync(join(dir, 'pack'));
  writeFileSync(join(dir, 'pack', 'toolpack.yaml'), MANIFEST);
  writeFileSync(join(dir, 'pack', 'handlers.mjs'), HANDLERS);
  const config = writeConfig(
    {
      tenants: { a: { tools: ['*'] } },
      principals: [{ id: 'pa', tenant: 'a', keyHash: hashApiKey(KEY) }],
      events: { file: join(dir, 'events.sqlite') },
      policy: { rules: [{ match: 'openwop:p.*', safetyTier: 'pure', replayPolicy: 'deterministic', egress: 'none' }] },
      sources: { nodePacks: [{ path: 'pack' }] },
    },
    dir,
  );
  server = await startTestServer(config);
  client = await connect(server.url, KEY, { path: '/mcp?profile=openai-strict' });
});

after(async () => {
  await client?.close();
  await server?.close();
});

const get = (path: string) => request(server.url, path, { token: KEY });

test('GET /tools?view=compact&profile=…: each profile\'s schema and marker; the compact view unchanged without one', async () => {
  const plain = await get('/tools?view=compact');
  const strict = await get('/tools?view=compact&profile=openai-strict');
  const gemini = await get('/tools?view=compact&profile=gemini');
  const anthropic = await get('/tools?view=compact&profile=anthropic');
  for (const r of [plain, strict, gemini, anthropic]) assert.equal(r.status, 200);
  const [echo] = (JSON.parse(strict.text) as { tools: Array<Record<string, any>> }).tools;
  assert.equal(echo.toolId, 'openwop:p.echo');
  assert.deepEqual(echo.inputSchema.required, ['path', 'limit', 'note', 'labels', 'dry-run']);
  assert.equal(echo.inputSchema.additionalProperties, false);
  assert.deepEqual(echo.profile, { id: 'openai-strict', fits: true });
  const g = (JSON.parse(gemini.text) as { tools: Array<Record<string, any>> }).tools[0];
  assert.ok('dry_run' in g.inputSchema.properties);
  assert.equal(g.profile.id, 'gemini');
  assert.ok(g.profile.loosened.length > 0);
  // without a profile: the compact view's own bytes, byte for byte
  const again = await get('/tools?view=compact&profile=openai-strict');
  assert.equal(again.text, strict.text);
  assert.ok(!plain.text.includes('"profile"'));
  const one = await get('/tools/openwop:p.echo?view=compact&profile=openai-strict');
  assert.deepEqual(JSON.parse(one.text), echo);
  const oneCompact = await get('/tools/openwop:p.echo?view=compact');
  assert.deepEqual(JSON.parse(oneCompact.text), (JSON.parse(plain.text) as { tools: unknown[] }).tools[0]);
});

test('an unknown profile is a 400 in the error envelope; outside the compact view a profile is not read', async () => {
  for (const path of ['/tools?view=compact&profile=nope', '/tools/openwop:p.echo?view=compact&profile=OPENAI']) {
    const r = await get(path);
    assert.equal(r.status, 400, path);
    assert.deepEqual(JSON.parse(r.text), { error: 'validation_error', message: 'profile must be one of openai-strict, gemini, anthropic' });
  }
  assert.equal((await get('/tools?profile=nope')).status, 200);
});

test('/mcp?profile=openai-strict: the strict schema listed, a strict call reaches the tool in its own form, the event records the profile', async () => {
  const { tools } = await client.listTools();
  const echo = tools.find((t) => t.name.includes('echo'))!;
  assert.deepEqual(echo.inputSchema.required, ['path', 'limit', 'note', 'labels', 'dry-run']);
  assert.deepEqual(echo._meta?.['toolhost/profile'], { id: 'openai-strict', fits: true });
  const result = await client.callTool({ name: echo.name, arguments: { path: 'a.txt', limit: null, note: { value: null }, labels: [{ key: 'k', value: 'v' }], 'dry-run': null } });
  assert.equal(result.isError, undefined);
  const got = JSON.parse((result.structuredContent as { got: string }).got);
  assert.deepEqual(got, { path: 'a.txt', note: null, labels: { k: 'v' } });
  const events = await storedEvents(server.running.host.events!, 'a');
  const opened = events.filter((e) => e.type === 'tool.session.opened').at(-1)!;
  assert.equal(opened.payload.profile, 'openai-strict');
});

test('/mcp?profile=openai-strict: arguments back cannot map are a tool error naming path and rule; an unknown profile is refused', async () => {
  const { tools } = await client.listTools();
  const echo = tools.find((t) => t.name.includes('echo'))!;
  const result = await client.callTool({ name: echo.name, arguments: { path: 'a', limit: null, note: null, labels: [{ key: 'k', value: 'v' }, { key: 'k', value: 'w' }], 'dry-run': null } });
  assert.equal(result.isError, true);
  assert.match(JSON.stringify(result.content), /\/labels\/1\/key: key \\"k\\" is given twice/);
  const r = await fetch(`${server.url}/mcp?profile=nope`, {
    method: 'POST',
    headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } }),
  });
  assert.equal(r.status, 400);
  assert.match(await r.text(), /profile must be one of/);
});
