// `events.writeAhead` through the real host and /mcp (docs/config.md
// "Durability of the event log"): by default a call's write-ahead record
// (opened, toolCalled) is in the log while its tool runs; with `changes`, a
// read-only tool's call is recorded whole after it ran, and a tool that may
// change something keeps its record before it runs. The pack's handler says
// it is running (a progress report the official SDK client receives) and
// waits for the test to read the log, so what the log holds at that moment
// is read while the tool runs, not after a guessed delay.
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { hashApiKey } from '../../src/auth/api-keys.js';
import { request, startTestServer, tempDir, writeConfig, type TestServer } from '../helpers/server.js';

/** The handlers wait on this between their progress report and their answer. */
const GATE = '__toolhostWriteAheadGate';
type Gate = { open: () => void; opened: Promise<void> };

const HANDLERS = `
const wait = async (progress) => { progress(1, 2, 'running'); await globalThis.${GATE}.opened; return { done: true }; };
export const handlers = { 'w.look': (_args, { progress }) => wait(progress), 'w.touch': (_args, { progress }) => wait(progress) };
`;
const MANIFEST = `pack: w
handlers: ./handlers.mjs
tools:
  - typeId: w.look
    inputSchema: { type: object, properties: {} }
  - typeId: w.touch
    inputSchema: { type: object, properties: {} }
`;

const servers: TestServer[] = [];
after(async () => {
  await Promise.all(servers.map((s) => s.close()));
});

async function startHost(writeAhead: 'all' | 'changes' | undefined): Promise<{ server: TestServer; client: Client }> {
  const dir = tempDir();
  mkdirSync(join(dir, 'pack'));
  writeFileSync(join(dir, 'pack', 'toolpack.yaml'), MANIFEST);
  writeFileSync(join(dir, 'pack', 'handlers.mjs'), HANDLERS);
  const file = writeConfig(
    {
      tenants: { a: { tools: ['*'] } },
      principals: [{ id: 'pa', tenant: 'a', keyHash: hashApiKey('ka') }],
      events: { file: join(dir, 'events.sqlite'), ...(writeAhead === undefined ? {} : { writeAhead }) },
      policy: { rules: [{ match: 'openwop:w.look', safetyTier: 'read' }, { match: 'openwop:w.touch', safetyTier: 'write' }] },
      sources: { nodePacks: [{ path: 'pack' }] },
    },
    dir,
  );
  const server = await startTestServer(file);
  servers.push(server);
  const client = new Client({ name: 'write-ahead-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), { requestInit: { headers: { authorization: 'Bearer ka' } } }));
  return { server, client };
}

/** Calls `toolId`; returns the event types in the log at the moment its tool reported it was running, and once it answered. */
async function loggedAround(server: TestServer, client: Client, toolId: string): Promise<{ whileRunning: string[]; answered: string[] }> {
  const types = async () => ((await request(server.url, '/events', { token: 'ka' })).json() as { events: { type: string }[] }).events.map((e) => e.type);
  let open!: () => void;
  const gate: Gate = { open: () => open(), opened: new Promise<void>((resolve) => (open = resolve)) };
  (globalThis as Record<string, unknown>)[GATE] = gate;
  let whileRunning: Promise<string[]> | undefined;
  const name = server.running.host.store.current().viewFor({ tenant: 'a', scopes: new Set() }).mcpNames.byToolId.get(toolId)!;
  const result = await client.callTool({ name, arguments: {} }, undefined, {
    onprogress: () => {
      whileRunning ??= types().finally(() => gate.open());
    },
  });
  assert.notEqual(result.isError, true);
  assert.ok(whileRunning !== undefined, 'the tool reported that it was running');
  return { whileRunning: await whileRunning, answered: await types() };
}

const WHOLE = ['tool.session.opened', 'agent.toolCalled', 'agent.toolReturned', 'tool.session.closed'];

test('by default a read-only tool runs with its write-ahead record in the log', async () => {
  const { server, client } = await startHost(undefined);
  try {
    assert.deepEqual(await loggedAround(server, client, 'openwop:w.look'), { whileRunning: WHOLE.slice(0, 2), answered: WHOLE });
  } finally {
    await client.close();
  }
});

test('events.writeAhead changes: a read-only tool runs before its record, which is in the log, whole, when the answer arrives', async () => {
  const { server, client } = await startHost('changes');
  try {
    assert.deepEqual(await loggedAround(server, client, 'openwop:w.look'), { whileRunning: [], answered: WHOLE });
    // A tool that may change something keeps its record before it runs.
    assert.deepEqual(await loggedAround(server, client, 'openwop:w.touch'), { whileRunning: [...WHOLE, ...WHOLE.slice(0, 2)], answered: [...WHOLE, ...WHOLE] });
  } finally {
    await client.close();
  }
});

test('events.writeAhead takes all or changes; anything else is a config error naming the setting', async () => {
  const file = writeConfig({ tenants: { a: { tools: ['*'] } }, events: { file: 'events.sqlite', writeAhead: 'reads' } });
  await assert.rejects(startTestServer(file), (err: Error) => /events\/writeAhead/.test(err.message) && /one of "all", "changes"/.test(err.message));
});
