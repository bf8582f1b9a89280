// Toolhost's own stdio transport (src/sources/mcp/stdio-client.ts) against
// the SDK: the SDK's Client speaks through it to a published server
// (@modelcontextprotocol/server-everything) and gets what it gets through the
// SDK's own StdioClientTransport; the page cache reads every line of a real
// server through it; and the framing rules of the MCP stdio transport
// (one message per line, `\r\n` accepted, a line split across writes, a line
// that is no message, a line past the bound) over a real child process.
import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport as SdkStdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ResultSchema, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { StdioClientTransport } from '../../src/sources/mcp/stdio-client.js';
import { CachingLineReader, JsonLineReader } from '../../src/sources/mcp/stdio-lines.js';
import { FIXTURE, REPO_ROOT } from './helpers.js';
import { programArgs } from '../helpers/fixture-command.js';

const EVERYTHING = path.join(REPO_ROOT, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');
const ENV = { PATH: process.env.PATH ?? '' };

function ours(args: string[], lines?: JsonLineReader): StdioClientTransport {
  return new StdioClientTransport({ command: process.execPath, args, env: ENV, cwd: REPO_ROOT }, lines);
}

/** A child that writes to stdout, raw, the `raw` string of every message it is sent, and exits when its stdin ends unless told to stay. */
const ECHO_RAW = `
const rl = require('node:readline').createInterface({ input: process.stdin });
rl.on('line', (l) => { const m = JSON.parse(l); if (m.params && typeof m.params.raw === 'string') process.stdout.write(m.params.raw); });
if (process.argv[1] === 'stay') { process.on('SIGTERM', () => process.exit(143)); setInterval(() => {}, 1000); }
else rl.on('close', () => process.exit(0));
`;

function raw(text: string): JSONRPCMessage {
  return { jsonrpc: '2.0', method: 'emit', params: { raw: text } };
}

/** Resolves with the messages and errors once `count` messages arrived. */
function collect(transport: StdioClientTransport, count: number): { messages: JSONRPCMessage[]; errors: Error[]; done: Promise<void> } {
  const messages: JSONRPCMessage[] = [];
  const errors: Error[] = [];
  let resolve!: () => void;
  const done = new Promise<void>((r) => (resolve = r));
  transport.onmessage = (m) => {
    messages.push(m);
    if (messages.length === count) resolve();
  };
  transport.onerror = (e) => void errors.push(e);
  return { messages, errors, done };
}

test('the SDK Client gets through it what it gets through the SDK transport, from a published server', { timeout: 60_000 }, async () => {
  const answers = async (transport: SdkStdioClientTransport | StdioClientTransport) => {
    const client = new Client({ name: 'stdio-client-test', version: '0' });
    await client.connect(transport);
    try {
      const tools = await client.listTools();
      const echo = await client.callTool({ name: 'echo', arguments: { message: 'one line\nand "another"' } });
      const prompts = await client.listPrompts();
      const resources = await client.listResources();
      return { server: client.getServerVersion(), capabilities: client.getServerCapabilities(), tools, echo, prompts, resources };
    } finally {
      await client.close();
    }
  };
  const mine = ours([EVERYTHING, 'stdio']);
  // The SDK's Client keeps a handler set before it connects, and calls it when the transport closes.
  const closed = new Promise<void>((resolve) => (mine.onclose = resolve));
  const got = await answers(mine);
  await closed;
  const expected = await answers(new SdkStdioClientTransport({ command: process.execPath, args: [EVERYTHING, 'stdio'], env: ENV, cwd: REPO_ROOT, stderr: 'pipe' }));
  assert.ok(got.tools.tools.some((t) => t.name === 'echo'), 'the server listed its tools');
  assert.deepEqual(got, expected);
  assert.equal(mine.pid, null, 'the child is gone once the client closed');
});

test('the page cache reads every line of a real server through the transport, and is cleared when it closes', { timeout: 60_000 }, async () => {
  const reader = new CachingLineReader();
  let cleared = 0;
  const clear = reader.clear.bind(reader);
  reader.clear = () => {
    cleared++;
    clear();
  };
  // 800 tools in pages of 400: each page over the size the cache keeps.
  const transport = ours([...programArgs(FIXTURE), '--transport', 'stdio', '--tools', '794', '--page-size', '400'], reader);
  const client = new Client({ name: 'stdio-client-test', version: '0' });
  await client.connect(transport);
  const readAll = async () => {
    reader.startRead();
    let pages = 0;
    let cursor: string | undefined;
    do {
      const page = await client.request({ method: 'tools/list', params: cursor === undefined ? {} : { cursor } }, ResultSchema);
      cursor = typeof page.nextCursor === 'string' ? page.nextCursor : undefined;
      pages++;
    } while (cursor !== undefined);
    reader.endRead();
    return pages;
  };
  try {
    assert.equal(await readAll(), 2);
    assert.deepEqual({ hits: reader.stats.hits, misses: reader.stats.misses }, { hits: 0, misses: 2 });
    assert.equal(await readAll(), 2);
    assert.deepEqual({ hits: reader.stats.hits, misses: reader.stats.misses }, { hits: 2, misses: 2 });
  } finally {
    await client.close();
  }
  assert.ok(cleared > 0, 'close() drops what the reader still holds');
});

test('framing: a line split across writes, `\\r\\n`, and a line that is no message (an error, and reading goes on)', { timeout: 30_000 }, async () => {
  const transport = ours(['-e', ECHO_RAW]);
  const seen = collect(transport, 3);
  await transport.start();
  try {
    await transport.send(raw('{"jsonrpc":"2.0","met'));
    await transport.send(raw('hod":"a"}\n{"jsonrpc":"2.0","id":1,"result":{}}\r\n'));
    await transport.send(raw('not json\n{"jsonrpc":"2.0","id":2}\n'));
    await transport.send(raw('{"jsonrpc":"2.0","method":"b","params":{"text":"x\\ny"}}\n'));
    await seen.done;
    assert.deepEqual(seen.messages, [
      { jsonrpc: '2.0', method: 'a' },
      { jsonrpc: '2.0', id: 1, result: {} },
      { jsonrpc: '2.0', method: 'b', params: { text: 'x\ny' } },
    ]);
    assert.equal(seen.errors.length, 2, 'one error for the line that is no JSON, one for the JSON that is no JSON-RPC message');
  } finally {
    await transport.close();
  }
});

test('a line past the reader bound is an error and ends the connection', { timeout: 30_000 }, async () => {
  const transport = ours(['-e', ECHO_RAW], new JsonLineReader(1000));
  const seen = collect(transport, 1);
  const closed = new Promise<void>((resolve) => (transport.onclose = resolve));
  await transport.start();
  await transport.send(raw('{"jsonrpc":"2.0","method":"ok"}\n'));
  await seen.done;
  await transport.send(raw(`{"jsonrpc":"2.0","method":"${'x'.repeat(600)}`));
  await transport.send(raw('x'.repeat(600)));
  await closed;
  assert.deepEqual(seen.messages, [{ jsonrpc: '2.0', method: 'ok' }]);
  assert.match(String(seen.errors[0]), /maximum size of 1000 bytes/);
});

test('close() ends a server that ignores the end of its stdin (SIGTERM), and sends are refused outside a connection', { timeout: 30_000 }, async () => {
  const transport = ours(['-e', ECHO_RAW, 'stay']);
  await assert.rejects(transport.send(raw('x')), /Not connected/);
  await transport.start();
  await assert.rejects(transport.start(), /already started/);
  const pid = transport.pid;
  assert.ok(pid !== null);
  const closed = new Promise<void>((resolve) => (transport.onclose = resolve));
  await transport.close();
  await closed;
  assert.throws(() => process.kill(pid, 0), { code: 'ESRCH' }, 'the child is gone');
  await assert.rejects(transport.send(raw('x')), /Not connected/);
});

test('a command that cannot be spawned rejects start() and is reported', async () => {
  const transport = new StdioClientTransport({ command: path.join(REPO_ROOT, 'no-such-command'), args: [], env: ENV, cwd: REPO_ROOT });
  const errors: Error[] = [];
  transport.onerror = (e) => void errors.push(e);
  await assert.rejects(transport.start(), { code: 'ENOENT' });
  assert.equal(errors.length, 1);
});
