// The per-principal caps (docs/auth.md "Caps on what a principal holds
// open"): MCP sessions, tool calls in flight and event streams each refuse
// a principal over its cap with the same answer (429 `rate_limited`,
// `Retry-After`, the envelope with `details: { retryAfter, cap, limit }`),
// and each gives its slot back when what held it ends: a session closed, a
// call answered, a stream gone.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { hashApiKey } from '../../src/auth/api-keys.js';
import { startTestServer, tempDir, writeConfig, type TestServer } from '../helpers/server.js';
import { openSse, waitFor, type SseClient } from '../events/helpers.js';
import { RawMcp, type Message } from '../front-door/raw-client.js';

let server: TestServer;

before(async () => {
  const dir = tempDir();
  const configFile = writeConfig(
    {
      tenants: { acme: { tools: ['*'] } },
      principals: [{ id: 'p1', tenant: 'acme', keyHash: hashApiKey('k1') }],
      events: { file: join(dir, 'events.sqlite'), maxStreamsPerPrincipal: 1 },
      mcp: { maxSessionsPerPrincipal: 1, maxConcurrentCallsPerPrincipal: 1, approvalTimeoutMs: 60_000 },
      policy: { rules: [{ match: 'x-host-t-ask', approval: 'always' }] },
      sources: {
        hostExtensions: [
          { vendor: 't', name: 'ask', command: [process.execPath, '-e', 'process.stdout.write("asked")'] },
          { vendor: 't', name: 'run', command: [process.execPath, '-e', 'process.stdout.write("ran")'] },
        ],
      },
    },
    dir,
  );
  server = await startTestServer(configFile);
});
after(() => server?.close());

interface Refusal {
  status: number;
  headers: Record<string, string | null>;
  body: { error: string; message: string; details: Record<string, unknown> };
}

async function refusalOf(status: number, headers: Headers, text: string): Promise<Refusal> {
  const pick = (name: string) => headers.get(name);
  return { status, headers: { 'content-type': pick('content-type'), 'retry-after': pick('retry-after'), 'cache-control': pick('cache-control'), 'openwop-version': pick('openwop-version') }, body: JSON.parse(text) };
}

/** What every refusal must share: status, code, headers, the details' keys, and `Retry-After` equal to `details.retryAfter`. */
function shapeOf(r: Refusal): unknown {
  return {
    status: r.status,
    error: r.body.error,
    bodyKeys: Object.keys(r.body).sort(),
    detailKeys: Object.keys(r.body.details).sort(),
    limit: r.body.details.limit,
    headers: { ...r.headers, 'retry-after': r.headers['retry-after'] === String(r.body.details.retryAfter) ? 'same as details.retryAfter' : r.headers['retry-after'] },
  };
}

async function session(): Promise<RawMcp> {
  const c = new RawMcp(server.url, 'k1');
  await c.initialize({ elicitation: {} });
  return c;
}

/** A call that waits for approval until answered; `asked` resolves with the elicitation once it arrives. */
function pendingCall(c: RawMcp): { asked: Promise<Message>; done: Promise<unknown> } {
  let resolveAsked!: (m: Message) => void;
  const asked = new Promise<Message>((r) => (resolveAsked = r));
  const done = c.call('x-host-t-ask', {}, (m) => void resolveAsked(m));
  return { asked, done };
}

const callBody = (name: string) => ({ jsonrpc: '2.0', id: 1000, method: 'tools/call', params: { name, arguments: {} } });

test('sessions, calls and streams refuse a principal over its cap with one answer, and free their slots when they end', { timeout: 120_000 }, async () => {
  const log = server.running.host.events!;
  const streams: SseClient[] = [];
  const a = await session();
  try {
    // Session a is busy (its call waits for approval): it holds the one session slot and the one call slot.
    const first = pendingCall(a);
    const elicitation = await first.asked;

    const sessionRefused = await session().then(
      () => assert.fail('a second session opened'),
      (e: { status: number; headers: Headers; body: string }) => refusalOf(e.status, e.headers, e.body),
    );
    const callRes = await a.post(callBody('x-host-t-run'));
    const callRefused = await refusalOf(callRes.status, callRes.headers, await callRes.text());
    streams.push(await openSse(server.url, 'k1'));
    assert.equal(streams[0].status, 200);
    const streamRes = await fetch(`${server.url}/events/stream`, { headers: { authorization: 'Bearer k1' } });
    if (streamRes.status === 200) await streamRes.body?.cancel();
    const streamRefused = await refusalOf(streamRes.status, streamRes.headers, await streamRes.text());

    const expected = {
      status: 429,
      error: 'rate_limited',
      bodyKeys: ['details', 'error', 'message'],
      detailKeys: ['cap', 'limit', 'retryAfter'],
      limit: 1,
      headers: { 'content-type': 'application/json; charset=utf-8', 'retry-after': 'same as details.retryAfter', 'cache-control': 'no-store', 'openwop-version': streamRefused.headers['openwop-version'] },
    };
    assert.ok(expected.headers['openwop-version'], 'OpenWOP-Version on the refusal');
    assert.deepEqual(shapeOf(sessionRefused), expected, 'the session cap');
    assert.deepEqual(shapeOf(callRefused), expected, 'the call cap');
    assert.deepEqual(shapeOf(streamRefused), expected, 'the stream cap');
    assert.deepEqual(
      [sessionRefused, callRefused, streamRefused].map((r) => r.body.details.cap),
      ['mcp.maxSessionsPerPrincipal', 'mcp.maxConcurrentCallsPerPrincipal', 'events.maxStreamsPerPrincipal'],
    );
    for (const r of [sessionRefused, callRefused, streamRefused]) assert.ok(Number(r.headers['retry-after']) >= 1);

    // A call that ends (its answer has arrived) gives its slot back: the next call runs.
    await (await a.post({ jsonrpc: '2.0', id: elicitation.id, result: { action: 'decline' } })).text();
    await first.done;
    const ran = await a.call('x-host-t-run', {});
    assert.equal(ran.answer?.error, undefined, 'the next call was not refused');
    assert.ok(ran.answer?.result, 'answered with a result');
    assert.equal(ran.answer.result.isError ?? false, false);

    // A session that ends gives its slot back. Session a is busy again, so
    // without that nothing could make room for a new one.
    const second = pendingCall(a);
    await second.asked;
    await a.close();
    await second.done;
    const b = await session();
    try {
      const onB = await b.call('x-host-t-run', {});
      assert.ok(onB.answer?.result, 'the cancelled call gave its slot back too');
    } finally {
      await b.close();
    }

    // A stream that ends gives its slot back.
    const subscribed = log.subscriberCount('acme');
    streams[0].close();
    await waitFor(() => log.subscriberCount('acme') === subscribed - 1, 20_000, 'the closed stream to be dropped');
    streams.push(await openSse(server.url, 'k1'));
    assert.equal(streams[1].status, 200);
  } finally {
    for (const s of streams) s.close();
    await a.close();
  }
});
