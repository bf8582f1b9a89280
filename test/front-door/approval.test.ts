// Approval on the MCP front door (docs/mcp.md "Approval"): every way the
// elicitation can go wrong closes the tool session with an outcome and
// answers the call -32602 with the reason; the request travels on the call's
// own stream (no GET stream needed); `conditional` asks for write/exec tools
// only. Raw JSON-RPC so the tests can answer as badly as real clients do.
import { storedEvents } from '../helpers/event-store.js';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { hashApiKey } from '../../src/auth/api-keys.js';
import { startTestServer, tempDir, writeConfig, type TestServer } from '../helpers/server.js';
import { RawMcp, type Message } from './raw-client.js';

let server: TestServer;
const open: RawMcp[] = [];

before(async () => {
  const dir = tempDir();
  mkdirSync(join(dir, 'pack'));
  writeFileSync(join(dir, 'pack', 'toolpack.yaml'), 'pack: t\nhandlers: ./handlers.mjs\ntools:\n  - typeId: t.look\n    inputSchema: { type: object, properties: {} }\n');
  writeFileSync(join(dir, 'pack', 'handlers.mjs'), "export const handlers = { 't.look': () => ({ looked: true }) };\n");
  const run = [process.execPath, '-e', 'process.stdout.write("ran")'];
  const configFile = writeConfig(
    {
      tenants: { acme: { tools: ['*'] } },
      principals: [{ id: 'p1', tenant: 'acme', keyHash: hashApiKey('k1') }],
      events: { file: join(dir, 'events.sqlite') },
      mcp: { approvalTimeoutMs: 1500 },
      policy: {
        rules: [
          { match: 'x-host-t-always', approval: 'always' },
          { match: 'x-host-t-cond', approval: 'conditional' },
          { match: 'openwop:t.look', safetyTier: 'read', approval: 'conditional', replayPolicy: 'deterministic', egress: 'none' },
        ],
      },
      sources: {
        nodePacks: [{ path: 'pack' }],
        hostExtensions: [
          { vendor: 't', name: 'always', command: run },
          { vendor: 't', name: 'cond', command: run },
        ],
      },
    },
    dir,
  );
  server = await startTestServer(configFile);
});
after(async () => {
  for (const c of open) await c.close().catch(() => undefined);
  await server?.close();
});

async function client(capabilities: Record<string, unknown> = { elicitation: {} }): Promise<RawMcp> {
  const c = new RawMcp(server.url, 'k1');
  open.push(c);
  await c.initialize(capabilities);
  return c;
}

type Ev = { type: string; sessionId: string; payload: Record<string, unknown> };
/** The events of the latest tool session, once it has closed (guarded by a generous deadline). */
async function lastSession(): Promise<Ev[]> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const all = (await storedEvents(server.running.host.events!, 'acme', -1, 10_000)) as Ev[];
    const opened = all.filter((e) => e.type === 'tool.session.opened').at(-1);
    const evs = opened ? all.filter((e) => e.sessionId === opened.sessionId) : [];
    if (evs.at(-1)?.type === 'tool.session.closed' || Date.now() > deadline) return evs;
    await new Promise((r) => setTimeout(r, 20));
  }
}
const closedWith = async () => (await lastSession()).find((e) => e.type === 'tool.session.closed')?.payload.outcome;

const answer = (result: unknown) => (): Record<string, unknown> => ({ result });

describe('a bad approval exchange closes the session and says why', () => {
  const cases: [string, (m: Message) => Record<string, unknown> | undefined, RegExp, string][] = [
    ['approve as a string', answer({ action: 'accept', content: { approve: 'true' } }), /malformed/, 'failed'],
    ['an action in capitals', answer({ action: 'ACCEPT', content: { approve: true } }), /malformed/, 'failed'],
    ['a JSON-RPC error answer', () => ({ error: { code: -32603, message: 'client broke' } }), /with an error/, 'failed'],
    ['no answer at all', () => undefined, /in time/, 'failed'],
    ['a decline', answer({ action: 'decline' }), /declined/, 'failed'],
    ['accept with approve: false (a checkbox left unticked)', answer({ action: 'accept', content: { approve: false } }), /declined/, 'failed'],
  ];
  for (const [what, onElicit, reason, outcome] of cases) {
    test(what, async () => {
      const c = await client();
      const { answer: a, elicitations } = await c.call('x-host-t-always', {}, onElicit);
      assert.equal(elicitations.length, 1, 'asked once');
      assert.equal(a?.error?.code, -32602, JSON.stringify(a));
      assert.match(a!.error!.message, reason);
      assert.doesNotMatch(a!.error!.message, /"code"|instancePath|zod/i, 'a reason, not a validator dump');
      assert.equal(await closedWith(), outcome);
    });
  }

  test('a client that declares URL-only elicitation is not asked', async () => {
    const c = await client({ elicitation: { url: {} } });
    const { answer: a, elicitations } = await c.call('x-host-t-always', {});
    assert.equal(elicitations.length, 0);
    assert.equal(a?.error?.code, -32602);
    assert.match(a!.error!.message, /cannot be asked/);
    assert.equal(await closedWith(), 'failed');
  });

  test('a client that disconnects while asked: the session closes as cancelled', async () => {
    const c = await client();
    const drop = new AbortController();
    const { answer: a, elicitations } = await c.call('x-host-t-always', {}, () => void drop.abort(), drop);
    assert.equal(a, undefined);
    assert.equal(elicitations.length, 1);
    assert.equal(await closedWith(), 'cancelled');
  });

  test('a client that ends its MCP session (DELETE) while asked: the session closes as cancelled', async () => {
    const c = await client();
    let ended: Promise<void> | undefined;
    const { answer: a, elicitations } = await c.call('x-host-t-always', {}, () => void (ended = c.close()));
    await ended;
    assert.equal(a, undefined);
    assert.equal(elicitations.length, 1);
    assert.equal(await closedWith(), 'cancelled');
  });
});

describe('asking', () => {
  test('is done on the call\'s own stream: a client without a GET stream is asked and the tool runs on accept', async () => {
    const c = await client();
    const { answer: a, elicitations } = await c.call('x-host-t-always', {}, answer({ action: 'accept', content: { approve: true } }));
    assert.equal(elicitations.length, 1);
    assert.equal(a?.error, undefined, JSON.stringify(a));
    assert.equal(a?.result?.content?.[0]?.text, 'ran');
    assert.equal(await closedWith(), 'completed');
  });

  test('conditional asks for an exec tool and not for a read tool', async () => {
    const c = await client();
    const asked = await c.call('x-host-t-cond', {}, answer({ action: 'accept', content: { approve: true } }));
    assert.equal(asked.elicitations.length, 1, 'conditional + exec asks');
    assert.equal(asked.answer?.result?.content?.[0]?.text, 'ran');
    const plain = await c.call('openwop__t_look', {}, answer({ action: 'decline' }));
    assert.equal(plain.elicitations.length, 0, 'conditional + read runs without asking');
    assert.deepEqual(plain.answer?.result?.structuredContent, { looked: true });
  });
});

describe('malformed tools/call params are InvalidParams', () => {
  for (const [what, params, reason] of [
    ['arguments not an object', { name: 'openwop__t_look', arguments: 'x' }, /"arguments" must be an object/],
    ['arguments an array', { name: 'openwop__t_look', arguments: [1] }, /"arguments" must be an object/],
    ['name missing', { arguments: {} }, /"name" must be/],
    ['name not a string', { name: 7 }, /"name" must be/],
    ['no params', undefined, /params must be an object/],
  ] as const) {
    test(what, async () => {
      const c = await client();
      const { answer: a } = await c.request('tools/call', params);
      assert.equal(a?.error?.code, -32602, JSON.stringify(a));
      assert.match(a!.error!.message, reason);
      // The client adds the `MCP error -32602:` prefix itself: on the wire it would come twice.
      assert.doesNotMatch(a!.error!.message, /^MCP error/);
    });
  }
});
