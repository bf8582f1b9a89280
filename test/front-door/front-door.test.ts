// The MCP front door with the SDK's own Client over Streamable HTTP:
// paging, one call per source, list_changed, tenancy, host annotations,
// approval by elicitation, hostile argv, and the tool-session bracket.
import { storedEvents } from '../helpers/event-store.js';
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { McpError, ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { request, startTestServer, type TestServer } from '../helpers/server.js';
import { API_SECRET, CANARY_ARG, CANARY_RESULT, connect, listAll, startApi, writeWorld } from './front-door-helpers.js';
import { patient } from '../helpers/patience.js';

let server: TestServer;
let api: Awaited<ReturnType<typeof startApi>>;
let a: Client;
let b: Client;

before(async () => {
  api = await startApi();
  const world = writeWorld(api.url);
  server = await startTestServer(world.configFile, { env: world.env, startDeadlineMs: patient(15_000) });
  a = await connect(server.url, 'ka', { elicit: 'accept' });
  b = await connect(server.url, 'kb');
});
after(async () => {
  await a?.close();
  await b?.close();
  await server?.close();
  api?.server.close();
});

// Names as tenant a's key (scope exec) sees them; b's tools are a subset with no collisions, so b's names are the same.
const nameOf = (toolId: string) => server.running.host.store.current().viewFor({ tenant: 'a', scopes: new Set(['exec']) }).mcpNames.byToolId.get(toolId)!;
const textOf = (r: Awaited<ReturnType<Client['callTool']>>) => (r.content as { type: string; text: string }[])[0].text;
const sessionEvents = () => storedEvents(server.running.host.events!, 'a', -1, 1000);

describe('tools/list', () => {
  test('pages through exactly the caller\'s catalog, with the host\'s annotations', async () => {
    const { tools, pages } = await listAll(a);
    assert.ok(pages > 2, `paged (${pages} pages of 3)`);
    const http = (await request(server.url, '/tools', { token: 'ka' })).json() as { toolId: string; annotations: object; title?: string }[];
    assert.deepEqual(tools.map((t) => t.name).sort(), http.map((d) => nameOf(d.toolId)).sort());
    for (const d of http) {
      const t = tools.find((x) => x.name === nameOf(d.toolId))!;
      assert.match(t.name, /^[A-Za-z0-9_-]{1,64}$/);
      const { title, ...hints } = t.annotations as Record<string, unknown>;
      assert.deepEqual(hints, d.annotations, d.toolId);
      if (d.title) assert.equal(title, d.title);
    }
    // The fixture tool lying about itself carries the host's hints, not its own.
    const liar = tools.find((t) => t.name === nameOf('mcp:fx.delete_everything'))!;
    assert.equal(liar.annotations?.readOnlyHint, false);
    assert.equal(liar.annotations?.destructiveHint, true);
  });

  test('another tenant sees only its own tools', async () => {
    const { tools } = await listAll(b);
    assert.deepEqual(tools.map((t) => t.name).sort(), [nameOf('mcp:fx.echo'), nameOf('openwop:t.upper')].sort());
  });

  test('/mcp?view=compact serves compact input schemas that keep top-level required, and no outputSchema', async () => {
    const c = await connect(server.url, 'ka', { path: '/mcp?view=compact' });
    try {
      const { tools } = await listAll(c);
      for (const t of tools) assert.doesNotMatch(JSON.stringify(t.inputSchema), /"\$ref"|"anyOf"|"oneOf"|"allOf"/);
      // Not bound by the published CompactToolDescriptor: an MCP client reads `required` at the top.
      const upper = tools.find((t) => t.name === nameOf('openwop:t.upper'))!;
      assert.deepEqual(upper.inputSchema.required, ['text']);
      assert.equal(tools.find((t) => t.name === nameOf('workflow:shout'))!.inputSchema.required?.[0], 'text');
      // Output schemas cost an SDK client a validator each: the compact profile has none.
      assert.deepEqual(tools.filter((t) => t.outputSchema !== undefined).map((t) => t.name), []);
      const { tools: standard } = await listAll(a);
      assert.ok(standard.find((t) => t.name === nameOf('openwop:t.upper'))!.outputSchema, 'the standard profile keeps it');
    } finally {
      await c.close();
    }
  });

  test('a client without a credential, or with a bad one, gets 401', async () => {
    const res = await request(server.url, '/mcp', { method: 'POST', headers: { 'content-type': 'application/json' } });
    assert.equal(res.status, 401);
    await assert.rejects(connect(server.url, 'nope'));
  });
});

describe('tools/call', () => {
  test('one tool of each source', async () => {
    const pack = await a.callTool({ name: nameOf('openwop:t.upper'), arguments: { text: 'hi' } });
    assert.deepEqual(pack.structuredContent, { text: 'HI', note: CANARY_RESULT });
    const mcp = await a.callTool({ name: nameOf('mcp:fx.echo'), arguments: { message: 'ping' } });
    assert.match(textOf(mcp), /ping/);
    const ext = await a.callTool({ name: nameOf('x-host-test-print'), arguments: { value: 'x' } });
    assert.deepEqual(JSON.parse(textOf(ext)), ['x']);
    const conn = await a.callTool({ name: nameOf('connector:items.getItem'), arguments: { id: 'a/b 7' } });
    assert.deepEqual(conn.structuredContent, { id: 'a/b 7', name: 'widget' });
    assert.equal(api.seen.at(-1)?.auth, `Bearer ${API_SECRET}`, 'the credential was resolved at call time');
    const wf = await a.callTool({ name: nameOf('workflow:shout'), arguments: { text: 'abc' } });
    assert.equal((wf.structuredContent as { text: string }).text, 'ABC');
  });

  test('hostile arguments reach the command as literal argv', async () => {
    const hostile = ['; rm -rf /tmp/x', '$(touch /tmp/pwned)', '`id`', '&& echo hi', "' \" \\"];
    for (const value of hostile) {
      const r = await a.callTool({ name: nameOf('x-host-test-print'), arguments: { value } });
      assert.deepEqual(JSON.parse(textOf(r)), [value]);
    }
  });

  test('a tool of another tenant answers exactly like a tool that does not exist', async () => {
    const invisible = await b.callTool({ name: nameOf('openwop:t.fail'), arguments: {} }).then(() => assert.fail('called'), (e: McpError) => e);
    const unknown = await b.callTool({ name: 'no_such_tool', arguments: {} }).then(() => assert.fail('called'), (e: McpError) => e);
    assert.equal(invisible.code, unknown.code);
    assert.equal(invisible.message.replace(nameOf('openwop:t.fail'), 'X'), unknown.message.replace('no_such_tool', 'X'));
  });

  test('invalid arguments are refused with the failing path, as a tool error the model reads', async () => {
    const r = await a.callTool({ name: nameOf('openwop:t.upper'), arguments: { text: 5 } });
    assert.equal(r.isError, true);
    assert.match(textOf(r), /\/text/);
  });

  test('approval always: runs on accept, refused on decline and without elicitation', async () => {
    const ok = await a.callTool({ name: nameOf('x-host-test-args'), arguments: { items: ['1'] } });
    assert.deepEqual(JSON.parse(textOf(ok)), ['1']);
    const declining = await connect(server.url, 'ka', { elicit: 'decline' });
    const plain = await connect(server.url, 'ka');
    try {
      const d = await declining.callTool({ name: nameOf('x-host-test-args'), arguments: {} }).then(() => assert.fail('ran'), (e: McpError) => e);
      assert.match(d.message, /declined/);
      const n = await plain.callTool({ name: nameOf('x-host-test-args'), arguments: {} }).then(() => assert.fail('ran'), (e: McpError) => e);
      assert.match(n.message, /elicitation/);
    } finally {
      await declining.close();
      await plain.close();
    }
  });

  test('list_changed reaches a connected session when an upstream adds a tool', async () => {
    let notified = 0;
    a.setNotificationHandler(ToolListChangedNotificationSchema, async () => void notified++);
    await a.callTool({ name: nameOf('mcp:fx.fixture_control'), arguments: { action: 'add', name: 'late_tool' } });
    const end = Date.now() + 3000;
    while (notified === 0 && Date.now() < end) await new Promise((r) => setTimeout(r, 20));
    assert.ok(notified > 0, 'no list_changed');
    const { tools } = await listAll(a);
    assert.ok(tools.some((t) => t.name === nameOf('mcp:fx.late_tool')));
  });
});

describe('tool sessions', () => {
  type Ev = { type: string; sessionId: string; payload: Record<string, unknown>; sequence: number };
  const lastSession = async (): Promise<Ev[]> => {
    const all = (await sessionEvents()) as Ev[];
    const opened = all.filter((e) => e.type === 'tool.session.opened').at(-1)!;
    return all.filter((e) => e.sessionId === opened.sessionId);
  };
  const shape = (evs: Ev[]) => evs.map((e) => (e.type === 'agent.toolReturned' ? `returned:${e.payload.status}` : e.type === 'tool.session.closed' ? `closed:${e.payload.outcome}` : e.type));

  test('success, error, timeout, cancel, invalid, unknown: each a complete bracket with the right outcome', async () => {
    await a.callTool({ name: nameOf('openwop:t.upper'), arguments: { text: CANARY_ARG } });
    assert.deepEqual(shape(await lastSession()), ['tool.session.opened', 'agent.toolCalled', 'returned:ok', 'closed:completed']);

    const failed = await a.callTool({ name: nameOf('openwop:t.fail'), arguments: {} });
    assert.equal(failed.isError, true);
    assert.deepEqual(shape(await lastSession()), ['tool.session.opened', 'agent.toolCalled', 'returned:error', 'closed:failed']);

    const slow = await a.callTool({ name: nameOf('mcp:fx.slow'), arguments: { ms: 5000 } });
    assert.equal(slow.isError, true);
    assert.deepEqual(shape(await lastSession()), ['tool.session.opened', 'agent.toolCalled', 'returned:timeout', 'closed:failed']);

    const controller = new AbortController();
    const before = (await lastSession())[0].sessionId;
    const pending = a.callTool({ name: nameOf('openwop:t.wait'), arguments: { ms: 5000 } }, undefined, { signal: controller.signal });
    // Cancelled once the call is under way (its agent.toolCalled record is stored), not after a guessed time.
    for (const until = Date.now() + 10_000; ; await new Promise((r) => setTimeout(r, 10))) {
      const now = await lastSession();
      if (now[0].sessionId !== before && now.at(-1)?.type === 'agent.toolCalled') break;
      assert.ok(Date.now() < until, 'the call started');
    }
    controller.abort('test cancels');
    await assert.rejects(pending);
    const end = Date.now() + 3000;
    while ((await lastSession()).at(-1)?.type !== 'tool.session.closed' && Date.now() < end) await new Promise((r) => setTimeout(r, 20));
    assert.deepEqual(shape(await lastSession()), ['tool.session.opened', 'agent.toolCalled', 'returned:cancelled', 'closed:cancelled']);

    await a.callTool({ name: nameOf('openwop:t.upper'), arguments: { text: 1 } }).catch(() => undefined);
    assert.deepEqual(shape(await lastSession()), ['tool.session.opened', 'agent.toolCalled', 'returned:invalid', 'closed:failed']);

    await a.callTool({ name: 'nothing_here', arguments: {} }).catch(() => undefined);
    assert.deepEqual(shape(await lastSession()), ['tool.session.opened', 'agent.toolCalled', 'returned:refused', 'closed:failed']);

    await a.callTool({ name: nameOf('workflow:shout'), arguments: { text: CANARY_ARG } });
    assert.deepEqual(shape(await lastSession()), ['tool.session.opened', 'agent.toolCalled', 'returned:ok', 'agent.toolCalled', 'returned:ok', 'closed:completed']);
    assert.equal((await lastSession())[0].payload.toolId, 'workflow:shout');

    // Content-free: no argument or result value anywhere in the log, sequences strictly increasing.
    const all = (await sessionEvents()) as Ev[];
    const text = JSON.stringify(all);
    for (const canary of [CANARY_ARG, CANARY_ARG.toUpperCase(), CANARY_RESULT, API_SECRET]) assert.ok(!text.includes(canary), canary);
    for (let i = 1; i < all.length; i++) assert.ok(all[i].sequence > all[i - 1].sequence);
  });

  test('events are readable over HTTP, tenant-scoped', async () => {
    const sessionId = (await lastSession())[0].sessionId;
    const mine = await request(server.url, `/sessions/${sessionId}/events`, { token: 'ka' });
    assert.equal(mine.status, 200);
    assert.equal(mine.json().events.length, (await lastSession()).length);
    const theirs = await request(server.url, `/sessions/${sessionId}/events`, { token: 'kb' });
    assert.equal(theirs.status, 404);
  });

  test('discovery advertises sessionLifecycle', async () => {
    const doc = (await request(server.url, '/.well-known/openwop')).json();
    assert.equal(doc.toolCatalog.sessionLifecycle, true);
  });
});
