// The MCP search mode end to end with the official SDK client: tools/list is
// the two search tools; search_tools finds the caller's tools with their MCP
// names, the host's annotations and compact schemas; call_tool runs one under
// the rules of a direct call (validation, approval by elicitation, the event
// bracket with the real toolId); other tenants' tools are neither found nor
// callable; the mode is chosen per connection or per tenant.
import { storedEvents } from '../helpers/event-store.js';
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { hashApiKey } from '../../src/auth/api-keys.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { connect, startApi, writeWorld } from '../front-door/front-door-helpers.js';
import { patient } from '../helpers/patience.js';

let api: Awaited<ReturnType<typeof startApi>>;
let server: TestServer;
const clients: Client[] = [];

before(async () => {
  api = await startApi();
  const world = writeWorld(api.url, {
    tenants: { a: { tools: ['*'] }, b: { tools: ['openwop:t.upper', 'mcp:fx.echo'] }, c: { tools: ['openwop:t.*'], mcpMode: 'search' } },
    principals: [
      { id: 'pa', tenant: 'a', keyHash: hashApiKey('ka'), scopes: ['exec'] },
      { id: 'pb', tenant: 'b', keyHash: hashApiKey('kb') },
      { id: 'pc', tenant: 'c', keyHash: hashApiKey('kc') },
    ],
  });
  server = await startTestServer(world.configFile, { env: world.env, startDeadlineMs: patient(15_000) });
});
after(async () => {
  for (const c of clients) await c.close().catch(() => undefined);
  await server?.close();
  api?.server.close();
});

async function open(key: string, path: string, elicit: 'accept' | 'decline' | 'none' = 'none'): Promise<Client> {
  const c = await connect(server.url, key, { path, elicit });
  clients.push(c);
  return c;
}

type Found = { name: string; toolId: string; safetyTier: string; annotations: Record<string, unknown>; inputSchema: Record<string, unknown> };
async function find(c: Client, query: string, limit = 5): Promise<{ tools: Found[]; total: number }> {
  const r = await c.callTool({ name: 'search_tools', arguments: { query, limit } });
  assert.notEqual(r.isError, true, JSON.stringify(r));
  return r.structuredContent as { tools: Found[]; total: number };
}

type Ev = { type: string; sessionId: string; payload: Record<string, unknown> };
async function lastSession(tenant: string): Promise<Ev[]> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const all = (await storedEvents(server.running.host.events!, tenant, -1, 10_000)) as Ev[];
    const opened = all.filter((e) => e.type === 'tool.session.opened').at(-1);
    const evs = opened ? all.filter((e) => e.sessionId === opened.sessionId) : [];
    if (evs.at(-1)?.type === 'tool.session.closed' || Date.now() > deadline) return evs;
    await new Promise((r) => setTimeout(r, 20));
  }
}

test('search mode lists the three search tools, with the host annotations', async () => {
  const c = await open('ka', '/mcp?mode=search');
  const { tools, nextCursor } = await c.listTools();
  assert.equal(nextCursor, undefined);
  assert.deepEqual(tools.map((t) => t.name), ['search_tools', 'list_sources', 'call_tool']);
  assert.equal(tools[0].annotations?.readOnlyHint, true);
  assert.equal(tools[1].annotations?.readOnlyHint, true);
  assert.equal(tools[2].annotations?.destructiveHint, true, 'call_tool may call anything: the cautious hints');
  const plain = await open('ka', '/mcp');
  assert.ok((await plain.listTools()).tools.length > 2, 'the default mode still lists the catalog');
});

test('search, then call with approval, then the events with the real toolId', async () => {
  const c = await open('ka', '/mcp?mode=search', 'accept');
  const { tools } = await find(c, 'print the items given as arguments');
  const args = tools.find((t) => t.toolId === 'x-host-test-args');
  assert.ok(args, JSON.stringify(tools.map((t) => t.toolId)));
  assert.equal(args.safetyTier, 'exec');
  assert.deepEqual(Object.keys(args.annotations).sort(), ['destructiveHint', 'idempotentHint', 'openWorldHint', 'readOnlyHint'], 'the host annotations, nothing of the upstream');
  assert.equal(args.inputSchema.type, 'object');

  const result = await c.callTool({ name: 'call_tool', arguments: { name: args.name, arguments: { items: ['x', 'y'] } } });
  assert.notEqual(result.isError, true, JSON.stringify(result));
  assert.match(JSON.stringify(result.content), /x.*y/);
  const events = await lastSession('a');
  assert.deepEqual(events.map((e) => e.type), ['tool.session.opened', 'agent.toolCalled', 'agent.toolReturned', 'tool.session.closed']);
  assert.equal(events[0].payload.toolId, 'x-host-test-args', 'recorded with the real toolId, not call_tool');
  assert.equal(events.at(-1)!.payload.outcome, 'completed');
});

test('call_tool keeps the rules of a direct call: approval declined, invalid arguments, unknown names', async () => {
  const c = await open('ka', '/mcp?mode=search', 'decline');
  const args = (await find(c, 'print the items given as arguments')).tools.find((t) => t.toolId === 'x-host-test-args')!;
  await assert.rejects(c.callTool({ name: 'call_tool', arguments: { name: args.name, arguments: { items: ['x'] } } }), /declined/);
  assert.equal((await lastSession('a')).at(-1)!.payload.outcome, 'failed');

  const upper = (await find(c, 'upper case text', 1)).tools[0];
  assert.equal(upper.toolId, 'openwop:t.upper');
  const invalid = await c.callTool({ name: 'call_tool', arguments: { name: upper.name, arguments: { text: 42 } } }).catch((e: Error) => e);
  assert.match(String((invalid as { message?: string }).message ?? JSON.stringify(invalid)), /text|invalid/i);
  await assert.rejects(c.callTool({ name: 'call_tool', arguments: { name: 'no_such_tool' } }), /no_such_tool|unknown|not/i);
  await assert.rejects(c.callTool({ name: 'call_tool', arguments: { tool: 'x' } }), /unknown argument/);
  await assert.rejects(c.callTool({ name: 'search_tools', arguments: { query: '' } }), /query/);
  await assert.rejects(c.callTool({ name: 'search_tools', arguments: { query: 'x', limit: 500 } }), /limit/);
});

test("another tenant's tools are neither found nor callable", async () => {
  const b = await open('kb', '/mcp?mode=search');
  const found = await find(b, 'print the items given as arguments', 50);
  assert.ok(found.tools.every((t) => ['openwop:t.upper', 'mcp:fx.echo'].includes(t.toolId)), JSON.stringify(found));
  const a = await open('ka', '/mcp?mode=search');
  const args = (await find(a, 'print the items given as arguments')).tools.find((t) => t.toolId === 'x-host-test-args')!;
  await assert.rejects(b.callTool({ name: 'call_tool', arguments: { name: args.name, arguments: { items: ['x'] } } }));
  const events = await lastSession('b');
  assert.equal(events.at(-1)!.payload.outcome, 'failed');
  assert.notEqual(events[0].payload.toolId, 'x-host-test-args', 'an invisible tool is recorded as unknown, like a direct call');
});

test('list_sources shows the caller\'s own sources with their tool counts; search_tools narrows to one', async () => {
  const b = await open('kb', '/mcp?mode=search');
  const listed = await b.callTool({ name: 'list_sources', arguments: {} });
  const { sources } = listed.structuredContent as { sources: { source: string; title: string; tools: number }[] };
  assert.deepEqual(sources.map((s) => [s.source, s.tools]), [['mcp:fx', 1], ['openwop:t', 1]], 'only what tenant b sees, counted');
  const text = (listed.content as { type: string; text: string }[])[0].text;
  assert.deepEqual(text.split('\n').map((l) => l.split(':').slice(0, 2).join(':')), ['mcp:fx', 'openwop:t'], 'one line per source');
  const narrowed = await b.callTool({ name: 'search_tools', arguments: { query: 'echo upper text', source: 'openwop:t', limit: 50 } });
  const tools = (narrowed.structuredContent as { tools: Found[] }).tools;
  assert.ok(tools.length > 0 && tools.every((t) => t.toolId.startsWith('openwop:t.')), JSON.stringify(tools.map((t) => t.toolId)));
  const hidden = await b.callTool({ name: 'search_tools', arguments: { query: 'print the items given as arguments', source: 'host-extension' } });
  assert.deepEqual((hidden.structuredContent as { tools: Found[] }).tools, [], 'a source the caller does not see: nothing, as for one that does not exist');
  const a = await open('ka', '/mcp?mode=search');
  const all = (await a.callTool({ name: 'list_sources', arguments: {} })).structuredContent as { sources: { source: string }[] };
  assert.ok(all.sources.length > 2 && all.sources.some((s) => s.source === 'host-extension'), JSON.stringify(all));
  await assert.rejects(a.callTool({ name: 'list_sources', arguments: { x: 1 } }), /unknown argument/);
});

test('the mode per tenant and per connection; an unknown mode is refused', async () => {
  const c = await open('kc', '/mcp');
  assert.deepEqual((await c.listTools()).tools.map((t) => t.name), ['search_tools', 'list_sources', 'call_tool'], 'tenant c is in search mode by default');
  const listed = await open('kc', '/mcp?mode=tools');
  assert.ok((await listed.listTools()).tools.some((t) => t.name === 'openwop__t_upper'), '?mode=tools lists the catalog');
  const res = await fetch(`${server.url}/mcp?mode=everything`, {
    method: 'POST',
    headers: { authorization: 'Bearer ka', 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } }),
  });
  assert.equal(res.status, 400);
  assert.match(await res.text(), /mode must be one of/);
});
