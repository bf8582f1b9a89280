// The fast road of a tools/call through /mcp (src/mcp/fast-call.ts) against
// the SDK transport's road (`mcp.fastCalls: false`): the same requests on two
// hosts of the same world answer the same bytes (status line, headers in
// order, chunk framing, every SSE event), a call that answers at once, an
// error, a refusal, a call relaying progress and log messages, a call
// outlasting the header grace period; and the fast host never hands a
// tools/call to the SDK transport, while the other always does.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { connect as tcpConnect } from 'node:net';
import fc from 'fast-check';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { HEADER_GRACE_MS } from '../../src/front-door/fast-call.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { readFileSync, writeFileSync } from 'node:fs';
import { parse, stringify } from 'yaml';
import { writeWorld } from './front-door-helpers.js';

/** Requests the SDK transport handled, counted by wrapping its prototype (the hosts run in this process). */
let sdkRequests = 0;
const sdkHandle = StreamableHTTPServerTransport.prototype.handleRequest;
/** Wrapped from this file's first test to its last only: other files of the process wrap the same prototype. */
function countSdkRequests(): void {
  StreamableHTTPServerTransport.prototype.handleRequest = function (this: StreamableHTTPServerTransport, ...args: Parameters<typeof sdkHandle>) {
    sdkRequests++;
    return sdkHandle.apply(this, args);
  };
}

interface Host {
  server: TestServer;
  port: number;
  session: string;
}

/** Whether `text` holds one whole HTTP/1.1 response (chunked, or with a Content-Length). */
function complete(text: string): boolean {
  const head = text.indexOf('\r\n\r\n');
  if (head < 0) return false;
  const length = /\r\ncontent-length: (\d+)\r\n/i.exec(text.slice(0, head + 2));
  if (length) return Buffer.byteLength(text.slice(head + 4)) >= Number(length[1]);
  return /\r\ntransfer-encoding: chunked\r\n/i.test(text.slice(0, head + 2)) ? text.endsWith('\r\n0\r\n\r\n') : false;
}

/**
 * One HTTP/1.1 exchange on a fresh socket, the response exactly as it
 * arrived. Read up to its end rather than the socket's: an SSE answer says
 * `connection: keep-alive` (the SDK's header), so the server keeps the socket.
 */
function exchange(port: number, body: unknown, session?: string, extraHeaders = ''): Promise<string> {
  const text = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const socket = tcpConnect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    const finish = () => {
      socket.destroy();
      resolve(Buffer.concat(chunks).toString('utf8'));
    };
    socket.on('data', (c) => {
      chunks.push(c);
      if (complete(Buffer.concat(chunks).toString('utf8'))) finish();
    });
    socket.on('end', finish);
    socket.on('error', reject);
    socket.write(
      `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ka\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n` +
        `${session ? `Mcp-Session-Id: ${session}\r\n` : ''}${extraHeaders}Content-Length: ${Buffer.byteLength(text)}\r\n\r\n${text}`,
    );
  });
}

/** What differs between two hosts by nature: the date and the session id. */
function normalized(response: string, session: string): string {
  return response.replace(/^Date: .*\r\n/m, 'Date: (date)\r\n').replaceAll(session, '(session)');
}

async function open(fastCalls: boolean): Promise<Host> {
  const world = writeWorld('http://127.0.0.1:9', {
    mcp: { pageSize: 3, callTimeoutMs: 5000, fastCalls },
  });
  // The world's connector points nowhere; it is never called here. The fixture also serves its relay tools.
  const config = parse(readFileSync(world.configFile, 'utf8')) as { sources: { mcp: { args: string[]; isolation?: string }[] } };
  config.sources.mcp[0].args.push('--relay-tools');
  // Log messages of a stdio server reach a caller only over a connection of its own tenant (docs/mcp.md).
  config.sources.mcp[0].isolation = 'tenant';
  writeFileSync(world.configFile, stringify(config));
  const server = await startTestServer(world.configFile, { env: world.env });
  const port = Number(new URL(server.url).port);
  const init = await exchange(port, { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } });
  const session = /mcp-session-id: (\S+)/i.exec(init)?.[1];
  assert.ok(session, init);
  assert.match(await exchange(port, { jsonrpc: '2.0', method: 'notifications/initialized' }, session), /^HTTP\/1\.1 202/);
  return { server, port, session };
}

describe('tools/call on the fast road answers the bytes of the SDK transport', () => {
  let fast: Host;
  let sdk: Host;
  before(async () => {
    countSdkRequests();
    [fast, sdk] = await Promise.all([open(true), open(false)]);
  });
  after(async () => {
    await Promise.all([fast?.server.close(), sdk?.server.close()]);
    StreamableHTTPServerTransport.prototype.handleRequest = sdkHandle;
  });

  /** The same request on both hosts; returns the fast host's response after checking both are the same bytes and took their roads. */
  async function same(id: number, params: unknown, extraHeaders = ''): Promise<string> {
    const body = { jsonrpc: '2.0', id, method: 'tools/call', params };
    const before = sdkRequests;
    const a = await exchange(fast.port, body, fast.session, extraHeaders);
    assert.equal(sdkRequests, before, 'the fast host handed a tools/call to the SDK transport');
    const b = await exchange(sdk.port, body, sdk.session, extraHeaders);
    assert.equal(sdkRequests, before + 1, 'the reference host did not use the SDK transport');
    assert.equal(normalized(a, fast.session), normalized(b, sdk.session));
    return a;
  }

  it('a call answered at once: status, headers in order, chunked SSE, the answer', async () => {
    const res = await same(1, { name: 'openwop:t.upper', arguments: { text: 'hi' } });
    assert.match(res, /^HTTP\/1\.1 200 OK\r\nopenwop-version: 2\.0\r\ncache-control: no-cache, no-transform\r\nconnection: keep-alive\r\ncontent-type: text\/event-stream\r\nmcp-session-id: /);
    assert.match(res, /Transfer-Encoding: chunked\r\n\r\n[0-9a-f]+\r\nevent: message\ndata: \{"result":.*"HI".*"id":1\}\n\n\r\n0\r\n\r\n$/s);
  });

  it('a tool error, a refusal (unknown tool), invalid arguments and malformed params', async () => {
    assert.match(await same(2, { name: 'openwop:t.fail', arguments: {} }), /"isError":true/);
    assert.match(await same(3, { name: 'no-such-tool', arguments: {} }), /"error":\{"code":-32602,"message":"Unknown tool: no-such-tool"/);
    assert.match(await same(4, { name: 'openwop:t.upper', arguments: { text: 5 } }), /Invalid arguments/);
    assert.match(await same(5, { arguments: {} }), /"error":\{"code":-32602/);
  });

  it('progress and log messages relayed before the answer, on the same stream', async () => {
    const progress = await same(6, { name: 'mcp:fx.progress', arguments: { steps: 2, ms: 5 }, _meta: { progressToken: 'p-1' } });
    assert.equal(progress.match(/notifications\/progress/g)?.length, 2, progress);
    const logged = await same(7, { name: 'mcp:fx.log', arguments: { levels: ['info', 'warning'], message: 'm' } });
    assert.equal(logged.match(/notifications\/message/g)?.length, 2, logged);
  });

  it('a call outlasting the header grace period', async () => {
    const res = await same(8, { name: 'openwop:t.wait', arguments: { ms: HEADER_GRACE_MS * 3 } });
    assert.match(res, /"waited":150/);
  });

  it('a protocol version header the SDK refuses takes the SDK road on both hosts', async () => {
    const body = { jsonrpc: '2.0', id: 9, method: 'tools/call', params: { name: 'openwop:t.upper', arguments: { text: 'x' } } };
    const before = sdkRequests;
    const a = await exchange(fast.port, body, fast.session, 'Mcp-Protocol-Version: 1999-01-01\r\n');
    const b = await exchange(sdk.port, body, sdk.session, 'Mcp-Protocol-Version: 1999-01-01\r\n');
    assert.equal(sdkRequests, before + 2);
    assert.match(a, /^HTTP\/1\.1 400/);
    assert.equal(normalized(a, fast.session), normalized(b, sdk.session));
  });

  it('a body is judged as the SDK judges a JSON-RPC request: what it would refuse or doubt takes its road, with its bytes', { timeout: 30_000 }, async () => {
    const call = { name: 'openwop:t.upper', arguments: { text: 'x' } };
    const cases: Array<[unknown, 'fast' | 'sdk']> = [
      [{ jsonrpc: '2.0', id: 'call-a', method: 'tools/call', params: call }, 'fast'],
      [{ jsonrpc: '2.0', id: 40, method: 'tools/call', params: { ...call, _meta: { progressToken: 7, other: true } } }, 'fast'],
      [{ jsonrpc: '2.0', id: 41, method: 'tools/call', params: call, extra: 1 }, 'sdk'],
      [{ jsonrpc: '2.0', id: 4.5, method: 'tools/call', params: call }, 'sdk'],
      [{ jsonrpc: '2.0', id: null, method: 'tools/call', params: call }, 'sdk'],
      [{ jsonrpc: '1.0', id: 42, method: 'tools/call', params: call }, 'sdk'],
      [{ jsonrpc: '2.0', id: 43, method: 'tools/call', params: [call] }, 'sdk'],
      [{ jsonrpc: '2.0', id: 44, method: 'tools/call', params: { ...call, _meta: { progressToken: 1.5 } } }, 'sdk'],
      [{ jsonrpc: '2.0', id: 45, method: 'tools/call', params: { ...call, _meta: 'm' } }, 'sdk'],
      [{ jsonrpc: '2.0', id: 46, method: 'tools/call', params: { ...call, _meta: { 'io.modelcontextprotocol/related-task': { taskId: 't' } } } }, 'sdk'],
    ];
    for (const [body, road] of cases) {
      const before = sdkRequests;
      const a = await exchange(fast.port, body, fast.session);
      assert.equal(sdkRequests - before, road === 'fast' ? 0 : 1, `${JSON.stringify(body)} took the wrong road`);
      const b = await exchange(sdk.port, body, sdk.session);
      assert.equal(normalized(a, fast.session), normalized(b, sdk.session), JSON.stringify(body));
    }
  });

  it('any text argument: the same bytes on both roads', async () => {
    let id = 100;
    await fc.assert(
      fc.asyncProperty(fc.string({ unit: 'binary', maxLength: 40 }), async (text) => {
        await same(id++, { name: 'openwop:t.upper', arguments: { text } });
      }),
      { numRuns: 25 },
    );
  });
});
