// The answer of a tools/call on the front door's short road
// (src/front-door/call-stream.ts; docs/architecture.md "Protocol pieces
// toolhost owns") held to the MCP Streamable HTTP transport from both sides.
// The official SDK client (Client + StreamableHTTPClientTransport) reads
// every kind of answer: one given at once, one refused before the call
// starts, one relaying progress before its result, one asking the client's
// approval on the call's stream, one past the header grace. And the raw
// answers keep the transport's rules for a POSTed request: status 200,
// text/event-stream, the session's id; every event a JSON-RPC message; the
// request's response exactly once, last, with the stream closed after it;
// what comes before it related to the request. None of these calls may reach
// the SDK's transport, so it is the short road that is tested.
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { after, before, test } from 'node:test';
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { parse, stringify } from 'yaml';
import { McpError, CallToolResultSchema, ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { HEADER_GRACE_MS } from '../../src/front-door/call-stream.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { connect, writeWorld } from './front-door-helpers.js';
import { RawMcp, type Message } from './raw-client.js';

/** tools/call requests the SDK transport handled (the host runs in this process). */
let sdkCalls = 0;
const sdkHandle = StreamableHTTPServerTransport.prototype.handleRequest;

let server: TestServer;

before(async () => {
  // Counted from this file's first test to its last only: other files of the process wrap the same prototype.
  StreamableHTTPServerTransport.prototype.handleRequest = function (this: StreamableHTTPServerTransport, ...args: Parameters<typeof sdkHandle>) {
    if ((args[2] as { method?: unknown } | undefined)?.method === 'tools/call') sdkCalls++;
    return sdkHandle.apply(this, args);
  };
  const world = writeWorld('http://127.0.0.1:9', { mcp: { pageSize: 3, callTimeoutMs: 5000, approvalTimeoutMs: 5000 } });
  // The fixture's relay tools report progress; its log lines reach a caller over a connection of the caller's tenant (docs/mcp.md).
  const config = parse(readFileSync(world.configFile, 'utf8')) as { sources: { mcp: { args: string[]; isolation?: string }[] } };
  config.sources.mcp[0].args.push('--relay-tools');
  config.sources.mcp[0].isolation = 'tenant';
  writeFileSync(world.configFile, stringify(config));
  server = await startTestServer(world.configFile, { env: world.env });
});
after(async () => {
  await server?.close();
  StreamableHTTPServerTransport.prototype.handleRequest = sdkHandle;
});

/** Runs `calls` and checks that none of their requests went to the SDK's transport. */
async function onTheShortRoad<T>(calls: () => Promise<T>): Promise<T> {
  const before = sdkCalls;
  const result = await calls();
  assert.equal(sdkCalls, before, 'a tools/call took the SDK transport');
  return result;
}

test('the SDK client reads every kind of answer of the short road', async () => {
  const client: Client = await connect(server.url, 'ka', { elicit: 'accept' });
  try {
    await onTheShortRoad(async () => {
      const atOnce = await client.callTool({ name: 'openwop:t.upper', arguments: { text: 'hi' } });
      assert.equal((atOnce.structuredContent as { text: string }).text, 'HI');

      // Refused before the call starts: params the front door refuses at parsing, an unknown tool.
      const malformed = await client.request({ method: 'tools/call', params: { arguments: {} } as never }, CallToolResultSchema).catch((e: unknown) => e);
      assert.ok(malformed instanceof McpError && malformed.code === -32602, String(malformed));
      const unknown = await client.callTool({ name: 'no-such-tool', arguments: {} }).catch((e: unknown) => e);
      assert.ok(unknown instanceof McpError && /Unknown tool/.test(unknown.message), String(unknown));

      const progress: number[] = [];
      const relayed = await client.callTool({ name: 'mcp:fx.progress', arguments: { steps: 2, ms: 5 } }, undefined, { onprogress: (p) => void progress.push(p.progress) });
      assert.notEqual(relayed.isError, true, JSON.stringify(relayed));
      assert.equal(progress.length, 2, 'both progress notifications, before the result');

      const approved = await client.callTool({ name: 'x-host-test-args', arguments: { items: ['a'] } });
      assert.notEqual(approved.isError, true, JSON.stringify(approved));

      const slow = await client.callTool({ name: 'openwop:t.wait', arguments: { ms: HEADER_GRACE_MS * 3 } });
      assert.equal((slow.structuredContent as { waited: number }).waited, HEADER_GRACE_MS * 3);
    });
  } finally {
    await client.close();
  }
});

interface Answer {
  status: number;
  headers: Headers;
  events: EventSourceMessage[];
}

/** One tools/call POSTed as is; every event of its stream, read as a conforming reader reads them, the client's requests answered by `answer`. */
async function post(raw: RawMcp, id: number, params: unknown, answer: (request: Message) => unknown = () => undefined): Promise<Answer> {
  const res = await raw.post({ jsonrpc: '2.0', id, method: 'tools/call', params });
  const events: EventSourceMessage[] = [];
  const asked: Message[] = [];
  const parser = createParser({ onEvent: (e) => events.push(e) });
  const decoder = new TextDecoder();
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    const before = events.length;
    parser.feed(decoder.decode(chunk, { stream: true }));
    for (const e of events.slice(before)) {
      const m = JSON.parse(e.data) as Message;
      if (m.method !== undefined && m.id !== undefined) asked.push(m);
    }
    // The client's answers to the server's requests go back as their own POSTs, as the transport has it.
    for (const m of asked.splice(0)) await (await raw.post({ jsonrpc: '2.0', id: m.id, result: answer(m) })).text();
  }
  return { status: res.status, headers: res.headers, events };
}

/** The transport's rules for the answer stream of request `id`; returns its messages. */
function conforms(a: Answer, id: number, session: string, what: string): Message[] {
  assert.equal(a.status, 200, what);
  assert.equal(a.headers.get('content-type'), 'text/event-stream', what);
  assert.equal(a.headers.get('mcp-session-id'), session, what);
  const messages = a.events.map((e) => {
    assert.equal(e.event, 'message', what);
    const m = JSON.parse(e.data) as Message;
    assert.equal(m.jsonrpc, '2.0', what);
    return m;
  });
  const responses = messages.filter((m) => m.method === undefined);
  assert.equal(responses.length, 1, `${what}: one response`);
  assert.equal(messages.at(-1), responses[0], `${what}: the response comes last (and the stream ended after it)`);
  assert.equal(responses[0].id, id, what);
  assert.ok('result' in responses[0] !== 'error' in responses[0], `${what}: a result or an error`);
  return messages;
}

test("the raw answers keep the transport's rules, framed whole before the call starts and chunked once it has", async () => {
  const raw = new RawMcp(server.url, 'ka');
  await raw.initialize({ elicitation: {} });
  const session = raw.sessionId!;
  try {
    await onTheShortRoad(async () => {
      const malformed = await post(raw, 1, { arguments: {} });
      assert.equal(conforms(malformed, 1, session, 'malformed params')[0].error?.code, -32602);
      assert.equal(malformed.headers.get('content-length') !== null, true, 'refused before the call: whole, with Content-Length');

      const atOnce = await post(raw, 2, { name: 'openwop:t.upper', arguments: { text: 'x' } });
      assert.match(JSON.stringify(conforms(atOnce, 2, session, 'at once')[0].result), /"X"/);
      assert.equal(atOnce.headers.get('transfer-encoding'), 'chunked', 'a started call streams');

      const relayed = conforms(await post(raw, 3, { name: 'mcp:fx.progress', arguments: { steps: 2, ms: 5 }, _meta: { progressToken: 'p-3' } }), 3, session, 'progress');
      assert.deepEqual(
        relayed.slice(0, -1).map((m) => [m.method, m.params?.progressToken]),
        [
          ['notifications/progress', 'p-3'],
          ['notifications/progress', 'p-3'],
        ],
        'the notifications before the response relate to the request',
      );

      const approved = conforms(await post(raw, 4, { name: 'x-host-test-args', arguments: { items: ['b'] } }, () => ({ action: 'accept', content: { approve: true } })), 4, session, 'approval');
      assert.equal(approved[0].method, ElicitRequestSchema.shape.method.value, "the server's own request on the call's stream, before the response");
      assert.notEqual(approved.at(-1)?.result?.isError, true, JSON.stringify(approved.at(-1)));

      const slow = await post(raw, 5, { name: 'openwop:t.wait', arguments: { ms: HEADER_GRACE_MS * 3 } });
      assert.match(JSON.stringify(conforms(slow, 5, session, 'past the grace')[0].result), /"waited":150/);
    });
  } finally {
    await raw.close();
  }
});
