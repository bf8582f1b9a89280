// What a tool says and asks while it runs reaches the client that made the
// call, with the official SDK client over Streamable HTTP: progress under the
// client's own token (count and order) from an MCP upstream, a pack handler
// and a workflow; progress keeping a long upstream call alive; log messages
// at the client's level without credentials; an upstream's elicitation and
// sampling relayed to the caller, refused for a caller that cannot answer
// and when the request cannot be tied to one call; a server isolated per
// tenant (a process each); over Streamable HTTP, a call's own messages tied
// to it with two tenants asking at once; late messages of an upstream shared by tenants
// dropped, never relayed into another tenant's call.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Progress } from '@modelcontextprotocol/sdk/types.js';
import type { TestServer } from '../helpers/server.js';
import { startHttpFixture, type HttpFixture } from '../mcp-source/helpers.js';
import { FX_SECRET, relayClient, startRelayWorld, type RelayClient } from './relay-world.js';

let server: TestServer;
let http: HttpFixture;
let a: RelayClient;
let plain: RelayClient;

before(async () => {
  http = await startHttpFixture(['--relay-tools']);
  server = await startRelayWorld(http.url);
  a = await relayClient(server.url, 'ka', true);
  plain = await relayClient(server.url, 'ka');
});
after(async () => {
  await a?.client.close();
  await plain?.client.close();
  await server?.close();
  await http?.kill();
});

const nameOf = (toolId: string, tenant = 'a') => server.running.host.store.current().viewFor({ tenant, scopes: new Set() }).mcpNames.byToolId.get(toolId)!;
const textOf = (r: object) => ((r as { content: unknown }).content as { type: string; text: string }[])[0].text;

async function callWithProgress(c: RelayClient, toolId: string, args: Record<string, unknown>) {
  const seen: Progress[] = [];
  const result = await c.client.callTool({ name: nameOf(toolId), arguments: args }, undefined, { onprogress: (p) => void seen.push(p), timeout: 20_000 });
  return { result, seen };
}

describe('progress', () => {
  test('an MCP upstream\'s progress reaches the caller under its token, every report in order', async () => {
    const { result, seen } = await callWithProgress(a, 'mcp:fx.progress', { steps: 5, ms: 10 });
    assert.equal(textOf(result), 'done 5');
    assert.deepEqual(seen, [1, 2, 3, 4, 5].map((i) => ({ progress: i, total: 5, message: `step ${i}` })));
  });

  test('server-everything\'s trigger-long-running-operation: 4 reports through toolhost', async () => {
    const { result, seen } = await callWithProgress(a, 'mcp:everything.trigger-long-running-operation', { duration: 0.4, steps: 4 });
    assert.notEqual(result.isError, true);
    assert.deepEqual(seen.map((p) => [p.progress, p.total]), [[1, 4], [2, 4], [3, 4], [4, 4]]);
  });

  test('a pack handler reports progress', async () => {
    const { result, seen } = await callWithProgress(a, 'openwop:r.count', { to: 3 });
    assert.deepEqual(result.structuredContent, { counted: 3 });
    assert.deepEqual(seen, [1, 2, 3].map((i) => ({ progress: i, total: 3, message: `counted ${i}` })));
  });

  test('a workflow reports step i of n, not its steps\' own progress', async () => {
    const { result, seen } = await callWithProgress(a, 'workflow:count3', {});
    assert.deepEqual(result.structuredContent, { counted: 1 });
    assert.deepEqual(seen.map((p) => [p.progress, p.total]), [[0, 3], [1, 3], [2, 3], [3, 3]]);
    assert.match(seen[1].message ?? '', /^step 2 of 3: openwop:r\.count$/);
  });

  test('search mode\'s call_tool relays progress like a direct call', async () => {
    const c = await relayClient(server.url, 'ka', false, '/mcp?mode=search');
    try {
      const seen: Progress[] = [];
      const r = await c.client.callTool({ name: 'call_tool', arguments: { name: 'openwop:r.count', arguments: { to: 2 } } }, undefined, { onprogress: (p) => void seen.push(p) });
      assert.deepEqual(r.structuredContent, { counted: 2 });
      assert.deepEqual(seen.map((p) => p.progress), [1, 2]);
    } finally {
      await c.client.close();
    }
  });

  test('progress keeps an upstream call alive past its timeout when the caller asked for progress', async () => {
    // 6 steps 300 ms apart outlast the server's callTimeoutMs of 1000 ms; each report restarts it.
    const { result, seen } = await callWithProgress(a, 'mcp:fx.progress', { steps: 6, ms: 300 });
    assert.equal(textOf(result), 'done 6');
    assert.equal(seen.length, 6, JSON.stringify(seen));
    const silent = await a.client.callTool({ name: nameOf('mcp:fx.progress'), arguments: { steps: 6, ms: 300 } });
    assert.equal(silent.isError, true);
    assert.match(textOf(silent), /timed out/);
  });
});

describe('log messages', () => {
  test('reach the caller at the level it set, with configured secrets masked', async () => {
    const c = await relayClient(server.url, 'ka');
    try {
      await c.client.setLoggingLevel('warning');
      const r = await c.client.callTool({ name: nameOf('mcp:fx.log'), arguments: { levels: ['debug', 'info', 'warning', 'error'], message: `token ${FX_SECRET}` } });
      assert.equal(textOf(r), 'logged 4');
      assert.deepEqual(c.logs.map((l) => l.level), ['warning', 'error']);
      assert.equal(c.logs[0].logger, 'fixture');
      assert.ok(!JSON.stringify(c.logs).includes(FX_SECRET), JSON.stringify(c.logs));
      assert.match(String(c.logs[0].data), /^warning: token \[redacted\]$/);
      // Another session of the same principal hears nothing of it.
      assert.deepEqual(plain.logs, []);
    } finally {
      await c.client.close();
    }
  });
});

describe('elicitation and sampling from an upstream', () => {
  test('an upstream\'s elicitation is relayed to the caller, and its answer back', async () => {
    const r = await a.client.callTool({ name: nameOf('mcp:fx.ask'), arguments: {} });
    assert.notEqual(r.isError, true, textOf(r));
    assert.deepEqual(r.structuredContent, { action: 'accept', content: { name: 'Ada' } });
    assert.equal((a.asked.at(-1) as { message: string }).message, 'Your name?');
  });

  test('an upstream\'s sampling request is relayed to the caller', async () => {
    const r = await a.client.callTool({ name: nameOf('mcp:fx.sample'), arguments: { prompt: 'hello' } });
    assert.equal(textOf(r), 'sampled text');
  });

  test('a caller that cannot answer gets the upstream\'s refusal, with the reason', async () => {
    const r = await plain.client.callTool({ name: nameOf('mcp:fx.ask'), arguments: {} });
    assert.equal(r.isError, true);
    assert.match(textOf(r), /does not support form elicitation/);
    assert.doesNotMatch(textOf(r), /MCP error -32600: MCP error/);
    const s = await plain.client.callTool({ name: nameOf('mcp:fx.sample'), arguments: {} });
    assert.match(textOf(s), /does not support sampling/);
  });

  test('two tenants asking at once on a server isolated per tenant: each is asked its own question, each on its own process', async () => {
    const b = await relayClient(server.url, 'kb', true);
    try {
      const pid = async (c: RelayClient, tenant: string) => (await c.client.callTool({ name: nameOf('mcp:fx.pid', tenant), arguments: {} })).structuredContent;
      assert.notDeepEqual(await pid(a, 'a'), await pid(b, 'b'), 'one process per tenant');
      assert.deepEqual(await pid(a, 'a'), await pid(plain, 'a'), 'sessions of one tenant share its process');
      const [ra, rb] = await Promise.all([a.client.callTool({ name: nameOf('mcp:fx.ask'), arguments: {} }), b.client.callTool({ name: nameOf('mcp:fx.ask', 'b'), arguments: {} })]);
      assert.deepEqual([ra.structuredContent, rb.structuredContent], [{ action: 'accept', content: { name: 'Ada' } }, { action: 'accept', content: { name: 'Ada' } }]);
      assert.equal(b.asked.length, 1);
    } finally {
      await b.client.close();
    }
  });

  test('with another session\'s call of the same tenant in flight on its connection, nobody is asked', async () => {
    const other = await relayClient(server.url, 'ka', true);
    try {
      // In flight for sure once its first progress report is in: no clock involved.
      let started!: () => void;
      const inFlight = new Promise<void>((resolve) => (started = resolve));
      const call = other.client.callTool({ name: nameOf('mcp:fx.progress'), arguments: { steps: 4, ms: 150 } }, undefined, { onprogress: () => started() }).catch(() => undefined);
      await inFlight;
      const asked = a.asked.length;
      const r = await a.client.callTool({ name: nameOf('mcp:fx.ask'), arguments: {} });
      await call;
      assert.equal(r.isError, true);
      assert.match(textOf(r), /several tool calls/);
      assert.equal(a.asked.length, asked);
      assert.deepEqual(other.asked, []);
    } finally {
      await other.client.close();
    }
  });
});

describe('an upstream shared by tenants', () => {
  test('over Streamable HTTP a call\'s own messages are tied to it: two tenants asked at once, each its own question; a log reaches its caller only', async () => {
    const b = await relayClient(server.url, 'kb', true);
    try {
      const [ra, rb] = await Promise.all([a.client.callTool({ name: nameOf('mcp:fxh.ask'), arguments: {} }), b.client.callTool({ name: nameOf('mcp:fxh.ask', 'b'), arguments: {} })]);
      assert.deepEqual([ra.structuredContent, rb.structuredContent], [{ action: 'accept', content: { name: 'Ada' } }, { action: 'accept', content: { name: 'Ada' } }], textOf(ra) + textOf(rb));
      assert.equal(b.asked.length, 1);
      const r = await b.client.callTool({ name: nameOf('mcp:fxh.log', 'b'), arguments: { levels: ['error'], message: 'for b' } });
      assert.equal(textOf(r), 'logged 1');
      assert.deepEqual(b.logs.map((l) => l.data), ['error: for b']);
      assert.ok(!a.logs.some((l) => l.data === 'error: for b'));
    } finally {
      await b.client.close();
    }
  });

  test('a log message and an elicitation sent after acme\'s call was answered reach neither acme nor globex\'s call then in flight', async () => {
    const b = await relayClient(server.url, 'kb', true);
    try {
      assert.equal(textOf(await a.client.callTool({ name: nameOf('mcp:fxs.late'), arguments: {} })), 'armed');
      const [aLogs, aAsked] = [a.logs.length, a.asked.length];
      // globex's call is the one call in flight on the shared connection while the upstream sends acme's late messages.
      const fired = await b.client.callTool({ name: nameOf('mcp:fxs.fire', 'b'), arguments: {} });
      assert.match(textOf(fired), /^late elicitation refused: .*shared by tenants/);
      assert.deepEqual(b.logs, []);
      assert.deepEqual(b.asked, []);
      assert.equal(a.logs.length, aLogs);
      assert.equal(a.asked.length, aAsked);
      const dropped = server.logs.filter((l) => l.includes('upstream_message_dropped') && l.includes('"server":"fxs"'));
      assert.ok(dropped.some((l) => l.includes('notifications/message')), 'the dropped log message is logged');
    } finally {
      await b.client.close();
    }
  });
});
