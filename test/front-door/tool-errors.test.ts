// Errors a model can correct, and output schemas that hold, with the
// official SDK client over Streamable HTTP: invalid arguments are a tool
// result with isError naming the path and the rule (not a JSON-RPC error);
// an unknown or invisible tool is one JSON-RPC error without a doubled
// prefix; a tool named by its toolId is found for a caller who sees it; a
// result that breaks its outputSchema is an error result, recorded in the
// event log, /health/sources and /metrics.
import { storedEvents } from '../helpers/event-store.js';
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { request, type TestServer } from '../helpers/server.js';
import { relayClient, startRelayWorld, type RelayClient } from './relay-world.js';

let server: TestServer;
let a: RelayClient;
let b: RelayClient;

before(async () => {
  server = await startRelayWorld();
  a = await relayClient(server.url, 'ka');
  b = await relayClient(server.url, 'kb');
  // The client validates structuredContent against the schemas it listed: list first, so a bad result would break it.
  await a.client.listTools();
});
after(async () => {
  await a?.client.close();
  await b?.client.close();
  await server?.close();
});

const nameOf = (toolId: string) => server.running.host.store.current().viewFor({ tenant: 'a', scopes: new Set() }).mcpNames.byToolId.get(toolId)!;
const textOf = (r: object) => ((r as { content: unknown }).content as { type: string; text: string }[])[0].text;
/** The last content item: where an output-schema mismatch is explained, after the tool's own content. */
const lastTextOf = (r: object) => ((r as { content: unknown }).content as { type: string; text: string }[]).at(-1)!.text;
const refusal = (p: Promise<unknown>) => p.then(() => assert.fail('answered'), (e: McpError) => e);
type Ev = { type: string; payload: { status?: string; toolId?: string } };
const returned = async (toolId: string) => ((await storedEvents(server.running.host.events!, 'a', -1, 10_000)) as Ev[]).filter((e) => e.type === 'agent.toolReturned' && e.payload.toolId === toolId).map((e) => e.payload.status);

describe('invalid arguments', () => {
  test('are a tool result with isError naming the path and the rule', async () => {
    const r = await a.client.callTool({ name: nameOf('openwop:r.count'), arguments: { to: 'three' } });
    assert.equal(r.isError, true);
    assert.equal(textOf(r), 'Invalid arguments for openwop:r.count: /to must be integer');
    const extra = await a.client.callTool({ name: nameOf('openwop:r.count'), arguments: { to: 1, from: 0 } });
    assert.match(textOf(extra), /^Invalid arguments for openwop:r\.count: \/ must NOT have additional properties \(from\)$/);
    const missing = await a.client.callTool({ name: nameOf('mcp:fx.shaped'), arguments: {} });
    assert.match(textOf(missing), /must have required property 'conform' \(conform\)$/);
    assert.deepEqual((await returned('openwop:r.count')).slice(-2), ['invalid', 'invalid']);
  });
});

describe('unknown tools', () => {
  test('unknown and invisible are the same JSON-RPC error, its prefix once', async () => {
    const unknown = await refusal(b.client.callTool({ name: 'no_such_tool', arguments: {} }));
    const invisible = await refusal(b.client.callTool({ name: nameOf('openwop:r.count'), arguments: { to: 1 } }));
    assert.equal(unknown.code, -32602);
    assert.equal(unknown.message, 'MCP error -32602: Unknown tool: no_such_tool');
    assert.equal(invisible.code, unknown.code);
    assert.equal(invisible.message.replace(nameOf('openwop:r.count'), 'X'), unknown.message.replace('no_such_tool', 'X'));
  });

  test('a tool named by its toolId is found for a caller who sees it, and unknown for one who does not', async () => {
    const r = await a.client.callTool({ name: 'openwop:r.count', arguments: { to: 2 } });
    assert.deepEqual(r.structuredContent, { counted: 2 });
    const hidden = await refusal(b.client.callTool({ name: 'openwop:r.count', arguments: { to: 2 } }));
    assert.equal(hidden.message, 'MCP error -32602: Unknown tool: openwop:r.count');
  });
});

describe('output schemas', () => {
  const health = async (id: string) => (await request(server.url, '/health/sources')).json().sources.find((s: { id: string }) => s.id === id);
  const mismatches = async (id: string) => {
    const line = (await request(server.url, '/metrics')).text.split('\n').find((l) => l.startsWith(`toolhost_output_schema_mismatches_total{source="${id}"}`));
    return line ? Number(line.split(' ').pop()) : 0;
  };

  test('a conforming result passes', async () => {
    const r = await a.client.callTool({ name: nameOf('mcp:fx.shaped'), arguments: { conform: true } });
    assert.deepEqual(r.structuredContent, { count: 3 });
    assert.equal((await health('mcp:fx')).outputSchemaMismatches, undefined);
  });

  test('an upstream result that breaks its outputSchema is an error result, recorded in events, health and metrics', async () => {
    const r = await a.client.callTool({ name: nameOf('mcp:fx.shaped'), arguments: { conform: false } });
    assert.equal(r.isError, true);
    assert.equal(r.structuredContent, undefined);
    assert.equal(lastTextOf(r), 'mcp:fx.shaped returned a result that does not match its outputSchema: structuredContent /count must be integer');
    assert.equal(textOf(r), '{"count":"many"}', 'the tool\'s own content stays');
    assert.equal((await returned('mcp:fx.shaped')).at(-1), 'invalid_output');
    const h = await health('mcp:fx');
    assert.equal(h.outputSchemaMismatches, 1);
    assert.equal(h.lastOutputSchemaMismatch.toolId, 'mcp:fx.shaped');
    assert.match(h.lastOutputSchemaMismatch.problem, /\/count must be integer/);
    assert.equal(await mismatches('mcp:fx'), 1);
  });

  test('a pack handler is held to its outputSchema too', async () => {
    const r = await a.client.callTool({ name: nameOf('openwop:r.bad'), arguments: {} });
    assert.equal(r.isError, true);
    assert.match(lastTextOf(r), /does not match its outputSchema: structuredContent \/counted must be integer/);
    assert.equal((await health('node-pack:r')).outputSchemaMismatches, 1);
    assert.equal(await mismatches('node-pack:r'), 1);
  });
});
