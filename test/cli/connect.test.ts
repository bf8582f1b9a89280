// `toolhost connect`, end to end: the SDK's stdio client spawns the compiled
// bridge (`node bin/toolhost.js connect`) against a real host on loopback,
// as the Claude Desktop entry of `toolhost clients` says, with the credential
// in an environment variable; lists, calls a tool that
// needs approval (answered through the bridge), gets progress and log
// messages, cancels a running call, and keeps working across a host restart
// on the same port (the bridge re-initializes and announces list_changed),
// and ends its session and exits when its client closes stdin unannounced.
// Then the one-line failures: a refused credential, a host not running, a
// server of another protocol version (a fault injected by a tiny HTTP server).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ElicitRequestSchema, LoggingMessageNotificationSchema, ToolListChangedNotificationSchema, type LoggingMessageNotification } from '@modelcontextprotocol/sdk/types.js';
import pino from 'pino';
import { hashApiKey } from '../../src/auth/api-keys.js';
import { clientConfigs } from '../../src/cli/clients-command.js';
import { serve, type RunningServer } from '../../src/host/serve.js';
import { storedEvents } from '../helpers/event-store.js';
import { tempDir, writeConfig } from '../helpers/server.js';
import { FIXTURE, root } from '../front-door/front-door-helpers.js';
import { patient } from '../helpers/patience.js';
import { programArgs } from '../helpers/fixture-command.js';

const BIN = join(root, 'bin/toolhost.js');
const KEY = 'connect-test-key-5f1e0c';

let configFile: string;
let host: RunningServer;
let port: number;
let client: Client;
let stderr = '';
const asked: string[] = [];
let approve = true;
const logs: LoggingMessageNotification['params'][] = [];
let listChanged = 0;
const listChangedWaiters: (() => void)[] = [];

const startHost = (p: number) => serve(configFile, { host: '127.0.0.1', port: p, logger: pino({ level: 'silent' }), startDeadlineMs: patient(20_000) });

before(async () => {
  const dir = tempDir();
  configFile = writeConfig(
    {
      tenants: { acme: { tools: ['*'] } },
      principals: [{ id: 'agent', tenant: 'acme', keyHash: hashApiKey(KEY) }],
      events: { file: join(dir, 'events.sqlite') },
      policy: { rules: [{ match: 'mcp:fx.echo', approval: 'always' }] },
      sources: {
        mcp: [{ id: 'fx', transport: 'stdio', command: process.execPath, args: [...programArgs(FIXTURE), '--transport', 'stdio', '--relay-tools'], cwd: root, debounceMs: 20, isolation: 'tenant' }],
      },
    },
    dir,
  );
  host = await startHost(0);
  port = Number(new URL(host.url).port);
  // Spawned exactly as `toolhost clients` tells Claude Desktop to, the key in its env block.
  const desktop = clientConfigs({ url: `${host.url}/mcp`, tokenEnv: 'TOOLHOST_TEST_TOKEN', name: 'toolhost', bin: BIN }).find((c) => c.id === 'claude-desktop')!;
  const entry = (desktop.value as { mcpServers: Record<string, { command: string; args: string[]; env: Record<string, string> }> }).mcpServers.toolhost!;
  assert.ok(!entry.args.includes(KEY));
  const transport = new StdioClientTransport({
    command: entry.command,
    args: entry.args,
    env: { ...(process.env as Record<string, string>), ...entry.env, TOOLHOST_TEST_TOKEN: KEY },
    stderr: 'pipe',
  });
  transport.stderr?.on('data', (d: Buffer) => void (stderr += d.toString()));
  client = new Client({ name: 'connect-test', version: '1.0.0' }, { capabilities: { elicitation: {} } });
  client.setRequestHandler(ElicitRequestSchema, async (req) => {
    asked.push(req.params.message);
    return approve ? { action: 'accept', content: { approve: true } } : { action: 'decline' };
  });
  client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void logs.push(n.params));
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
    listChanged++;
    for (const w of listChangedWaiters.splice(0)) w();
  });
  await client.connect(transport);
});

after(async () => {
  await client?.close();
  await host?.close();
});

const nameOf = async (suffix: string) => {
  const { tools } = await client.listTools();
  const tool = tools.find((t) => t.name.endsWith(suffix));
  assert.ok(tool, `${suffix} in ${tools.map((t) => t.name).join(', ')}`);
  return tool.name;
};

/** The outcome of the latest tool session, once it has closed. */
async function lastOutcome(): Promise<unknown> {
  for (;;) {
    const all = (await storedEvents(host.host.events!, 'acme', -1, 10_000)) as { type: string; payload: Record<string, unknown> }[];
    const closed = all.filter((e) => e.type === 'tool.session.closed').at(-1);
    const opened = all.filter((e) => e.type === 'tool.session.opened').length;
    if (closed && all.filter((e) => e.type === 'tool.session.closed').length === opened) return closed.payload.outcome;
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('the bridge forwards a session both ways', { timeout: 60_000 }, () => {
  test('lists the host\'s tools, the credential nowhere on the command line', async () => {
    const { tools } = await client.listTools();
    assert.ok(tools.length >= 5, tools.map((t) => t.name).join(', '));
    assert.equal(client.getServerVersion()?.name, 'toolhost-connect');
    assert.ok(client.getServerCapabilities()?.tools?.listChanged);
  });

  test('a call needing approval: the client is asked through the bridge, and the call runs', async () => {
    const result = await client.callTool({ name: await nameOf('echo'), arguments: { message: 'hi there' } });
    assert.equal(asked.length, 1, 'asked once');
    assert.notEqual(result.isError, true, JSON.stringify(result));
    assert.deepEqual(result.structuredContent, { message: 'hi there' });
    approve = false;
    try {
      await assert.rejects(client.callTool({ name: await nameOf('echo'), arguments: { message: 'no' } }), (err: Error) => {
        assert.match(err.message, /^MCP error -32602: mcp:fx\.echo was not run: .*declined/);
        assert.doesNotMatch(err.message, /MCP error.*MCP error/, 'the host\'s refusal as it said it');
        return true;
      });
    } finally {
      approve = true;
    }
    assert.equal(asked.length, 2);
  });

  test('progress reaches the client under its own token; log messages at the level it set', async () => {
    const seen: number[] = [];
    const result = await client.callTool({ name: await nameOf('progress'), arguments: { steps: 3, ms: 30 } }, undefined, { onprogress: (p) => void seen.push(p.progress) });
    assert.notEqual(result.isError, true);
    // The SDK's client drops a report it reads in one chunk with the answer (the bridge sends the answer a turn later, but a
    // loaded reader may still read both at once): the reports before the last are certain, the last is likely.
    assert.deepEqual(seen.slice(0, 2), [1, 2]);
    assert.deepEqual(seen, [1, 2, 3].slice(0, seen.length));
    await client.setLoggingLevel('warning');
    await client.callTool({ name: await nameOf('log'), arguments: { levels: ['info', 'error'], message: 'via bridge' } });
    assert.deepEqual(logs.map((l) => l.level), ['error']);
    assert.match(String(logs[0]!.data), /via bridge/);
  });

  test('a call the client cancels is cancelled at the host', async () => {
    const stop = new AbortController();
    const before = (await storedEvents(host.host.events!, 'acme', -1, 10_000)).length;
    const call = client.callTool({ name: await nameOf('slow'), arguments: { ms: 60_000 } }, undefined, { signal: stop.signal });
    // Cancel once the host has opened the call's tool session.
    while ((await storedEvents(host.host.events!, 'acme', -1, 10_000)).slice(before).every((e) => e.type !== 'tool.session.opened')) await new Promise((r) => setTimeout(r, 20));
    stop.abort();
    await assert.rejects(call);
    assert.equal(await lastOutcome(), 'cancelled');
  });

  test('the host restarts on the same port: the bridge reconnects, announces list_changed, and the session goes on', async () => {
    const changed = new Promise<void>((r) => listChangedWaiters.push(r));
    const before = listChanged;
    await host.close();
    host = await startHost(port);
    await changed;
    assert.ok(listChanged > before);
    const result = await client.callTool({ name: await nameOf('echo'), arguments: { message: 'after restart' } });
    assert.deepEqual(result.structuredContent, { message: 'after restart' });
    assert.equal(asked.length, 3);
    assert.match(stderr, /reconnected to http:\/\/127\.0\.0\.1:\d+\/mcp/);
    assert.doesNotMatch(stderr, new RegExp(KEY));
  });
});

/** The host's open MCP sessions, from its /metrics. */
async function openSessions(): Promise<number> {
  const text = await (await fetch(`${host.url}/metrics`)).text();
  return Number(/^toolhost_mcp_sessions (\d+)/m.exec(text)?.[1]);
}

describe('a client that goes away without a signal', { timeout: 60_000 }, () => {
  test('stdin closed: the bridge ends its session on the host and exits', async () => {
    const child = spawn(process.execPath, [BIN, 'connect', '--url', `${host.url}/mcp`, '--token-env', 'TOOLHOST_TEST_TOKEN'], { env: { ...process.env, TOOLHOST_TEST_TOKEN: KEY }, stdio: ['pipe', 'pipe', 'pipe'] });
    const exited = once(child, 'exit') as Promise<[number | null]>;
    // Up and serving: it answers an initialize.
    const answered = once(child.stdout, 'data');
    child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'gone', version: '1' } } })}\n`);
    assert.match(String((await answered)[0]), /"id":1/);
    const sessionsBefore = await openSessions();
    child.stdin.end();
    const [code] = await exited;
    assert.equal(code, 0);
    assert.equal(await openSessions(), sessionsBefore - 1, 'its session on the host is ended');
  });
});

/** Runs `toolhost connect` as a client would and returns its exit code and stderr once it gives up. */
async function connectFails(args: string[], env: Record<string, string> = {}): Promise<{ code: number | null; stderr: string }> {
  const child = spawn(process.execPath, [BIN, 'connect', ...args], { env: { ...process.env, ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
  let err = '';
  child.stderr.on('data', (d: Buffer) => void (err += d.toString()));
  const [code] = (await once(child, 'exit')) as [number | null];
  return { code, stderr: err };
}

describe('what a person sees when the bridge cannot work: one line', () => {
  const oneLine = (stderr: string) => {
    assert.equal(stderr.trim().split('\n').length, 1, stderr);
    assert.doesNotMatch(stderr, /\n\s+at |Error:/, 'no stack');
  };

  test('a refused credential, a host not running, an unset variable, a server of another MCP protocol version', async () => {
    const stopped = createServer();
    stopped.listen(0, '127.0.0.1');
    await once(stopped, 'listening');
    const freePort = (stopped.address() as AddressInfo).port;
    stopped.close();
    // The injected fault: a server that answers initialize with a protocol version no SDK knows.
    const other = createServer((req, res) => {
      let body = '';
      req.on('data', (d) => (body += d));
      req.on('end', () => {
        const id = (JSON.parse(body || '{}') as { id?: number }).id ?? null;
        res.writeHead(200, { 'content-type': 'application/json', 'mcp-session-id': 's1' });
        res.end(JSON.stringify({ jsonrpc: '2.0', id, result: { protocolVersion: '1999-01-01', capabilities: {}, serverInfo: { name: 'old', version: '0' } } }));
      });
    });
    other.listen(0, '127.0.0.1');
    await once(other, 'listening');
    try {
      // Side by side: each is a process start.
      const [refused, down, unset, version] = await Promise.all([
        connectFails(['--url', `${host.url}/mcp`, '--token-env', 'T'], { T: 'wrong-key-81d3' }),
        connectFails(['--url', `http://127.0.0.1:${freePort}/mcp`]),
        connectFails(['--url', `${host.url}/mcp`, '--token-env', 'TOOLHOST_NOT_SET_ANYWHERE']),
        connectFails(['--url', `http://127.0.0.1:${(other.address() as AddressInfo).port}/mcp`]),
      ]);
      for (const r of [refused, down, unset, version]) {
        assert.equal(r.code, 1, r.stderr);
        oneLine(r.stderr);
      }
      assert.match(refused.stderr, /refused the credential \(401/);
      assert.doesNotMatch(refused.stderr, /wrong-key-81d3/);
      assert.match(down.stderr, /cannot reach toolhost at http:\/\/127\.0\.0\.1:\d+\/mcp \(ECONNREFUSED\)/);
      assert.match(unset.stderr, /TOOLHOST_NOT_SET_ANYWHERE \(--token-env\) is not set/);
      assert.match(version.stderr, /MCP protocol version this bridge does not \(1999-01-01\)/);
    } finally {
      other.close();
    }
  });
});
