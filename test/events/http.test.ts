// The event log over real HTTP: GET /events paging and validation,
// GET /sessions/{id}/events with one identical 404 for unknown and
// other-tenant sessions, and GET /events/stream (SSE) live and resumed.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { after, before, test } from 'node:test';
import { hashApiKey } from '../../src/auth/api-keys.js';
import { ToolSession } from '../../src/events/session.js';
import { startTestServer, writeConfig } from '../helpers/server.js';
import { ACME, ACME_KEY, GLOBEX, GLOBEX_KEY, openSse, request, startEventsServer, waitFor, type EventsServer, type SseClient } from './helpers.js';

let server: EventsServer;
before(async () => {
  server = await startEventsServer();
});
after(async () => {
  await server.close();
});

async function runSession(who: { tenant: string; principal: string }, toolId = 'openwop:text.uppercase', outcome: 'completed' | 'failed' = 'completed'): Promise<ToolSession> {
  const s = ToolSession.open(server.log, who, toolId);
  const callId = s.called(toolId);
  await s.commit({ writeAhead: true });
  s.returned(callId, toolId, outcome === 'completed' ? 'ok' : 'error', 2);
  await s.finish(outcome);
  return s;
}

test('GET /sessions/{id}/events gives the session; unknown and other-tenant sessions share one 404', async () => {
  const mine = await runSession(ACME);
  const theirs = await runSession(GLOBEX);
  assert.ok(existsSync(join(dirname(server.configFile), 'events.sqlite')), 'the host opened events.file beside its config');
  const res = await request(server.url, `/sessions/${mine.sessionId}/events`, { token: ACME_KEY });
  assert.equal(res.status, 200);
  assert.equal(res.headers.get('openwop-version'), '2.0');
  assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
  const body = res.json();
  assert.equal(res.headers.get('toolhost-event-log-id'), server.log.logId);
  assert.deepEqual(Object.keys(body), ['events']);
  assert.deepEqual(body.events, await server.log.readSession('acme', mine.sessionId));
  assert.deepEqual(
    body.events.map((e: { type: string }) => e.type),
    ['tool.session.opened', 'agent.toolCalled', 'agent.toolReturned', 'tool.session.closed'],
  );

  const other = await request(server.url, `/sessions/${theirs.sessionId}/events`, { token: ACME_KEY });
  const unknown = await request(server.url, '/sessions/00000000-0000-4000-8000-000000000000/events', { token: ACME_KEY });
  assert.equal(other.status, 404);
  assert.equal(unknown.status, 404);
  assert.equal(other.text, unknown.text, 'byte-identical bodies');
  assert.deepEqual(other.json(), { error: 'not_found', message: 'no session with that id is available' });
  const strip = (h: Headers) => [...h.entries()].filter(([k]) => k !== 'date' && k !== 'content-length' && k !== 'keep-alive');
  assert.deepEqual(strip(other.headers), strip(unknown.headers));
  assert.equal((await request(server.url, `/sessions/${theirs.sessionId}/events`, { token: GLOBEX_KEY })).status, 200, 'its own tenant sees it');
});

test('the event routes need the same bearer credential as /tools', async () => {
  for (const path of ['/events', '/events/stream', '/sessions/x/events']) {
    const none = await request(server.url, path);
    assert.equal(none.status, 401, path);
    assert.equal(none.json().error, 'unauthenticated');
    assert.match(none.headers.get('www-authenticate') ?? '', /^Bearer/);
    assert.equal((await request(server.url, path, { token: 'wrong-key' })).status, 401, path);
  }
  const post = await request(server.url, '/events', { token: ACME_KEY, method: 'POST' });
  assert.equal(post.status, 405);
  assert.equal(post.json().error, 'toolhost.method_not_allowed');
  const v3 = await request(server.url, '/events', { token: ACME_KEY, headers: { 'openwop-version': '3.0' } });
  assert.equal(v3.status, 406);
});

test('GET /events pages through the tenant stream with after and limit', async () => {
  for (let i = 0; i < 4; i++) await runSession(GLOBEX, 'openwop:text.reverse');
  const all = await server.log.readAfter('globex', -1, 1000);
  assert.ok(all.length >= 16);
  assert.deepEqual(all.map((e) => e.sequence), [...all.keys()], 'globex stream: 0, 1, 2, ... no gaps');

  const first = await request(server.url, '/events', { token: GLOBEX_KEY });
  assert.equal(first.status, 200);
  assert.equal(first.headers.get('cache-control'), 'no-store');
  assert.deepEqual(first.json(), { events: all, next: all[all.length - 1].sequence, logId: server.log.logId }, 'default: everything (after=-1, limit 100)');
  assert.equal(first.headers.get('toolhost-event-log-id'), server.log.logId);

  const pages: number[][] = [];
  let cursor = -1;
  for (;;) {
    const body = (await request(server.url, `/events?after=${cursor}&limit=5`, { token: GLOBEX_KEY })).json();
    assert.ok(body.events.length <= 5);
    if (body.events.length === 0) {
      assert.equal(body.next, cursor, 'an empty page echoes after');
      break;
    }
    assert.equal(body.next, body.events[body.events.length - 1].sequence);
    assert.ok(body.events.every((e: { tenant: string }) => e.tenant === 'globex'));
    pages.push(body.events.map((e: { sequence: number }) => e.sequence));
    cursor = body.next;
  }
  assert.deepEqual(pages.flat(), all.map((e) => e.sequence));
  assert.ok(pages.slice(0, -1).every((p) => p.length === 5));

  const acme = (await request(server.url, '/events?limit=1000', { token: ACME_KEY })).json();
  assert.ok(acme.events.every((e: { tenant: string }) => e.tenant === 'acme'), 'never another tenant\'s events');
});

test('GET /events refuses bad after/limit with validation_error and details', async () => {
  const bad: Array<[string, string[]]> = [
    ['?after=abc', ['after']],
    ['?after=-2', ['after']],
    ['?after=1.5', ['after']],
    ['?after=', ['after']],
    ['?after=01', ['after']],
    ['?after=1&after=2', ['after']],
    ['?after=99999999999999999999', ['after']],
    ['?limit=0', ['limit']],
    ['?limit=1001', ['limit']],
    ['?limit=-1', ['limit']],
    ['?limit=ten', ['limit']],
    ['?after=x&limit=0', ['after', 'limit']],
  ];
  for (const [query, params] of bad) {
    const res = await request(server.url, `/events${query}`, { token: ACME_KEY });
    assert.equal(res.status, 400, query);
    const body = res.json();
    assert.deepEqual(Object.keys(body), ['error', 'message', 'details'], query);
    assert.equal(body.error, 'validation_error');
    assert.deepEqual(body.details.problems.map((p: { parameter: string }) => p.parameter), params, query);
    assert.ok(body.details.problems.every((p: { expected: string }) => typeof p.expected === 'string' && p.expected.length > 0));
  }
  for (const ok of ['?limit=1000', '?limit=1', '?after=0', '?after=-1', '?after=123456789']) {
    assert.equal((await request(server.url, `/events${ok}`, { token: ACME_KEY })).status, 200, ok);
  }
});

test('GET /events/stream delivers live events of the caller\'s tenant only, as SSE frames', async () => {
  const sse = await openSse(server.url, ACME_KEY);
  try {
    assert.equal(sse.status, 200);
    assert.equal(sse.headers.get('openwop-version'), '2.0', 'set by hand on the hijacked reply');
    assert.equal(sse.headers.get('toolhost-event-log-id'), server.log.logId, 'the stream names its log');
    assert.match(sse.headers.get('content-type') ?? '', /^text\/event-stream/);
    assert.equal(sse.headers.get('cache-control'), 'no-store');
    await waitFor(() => server.log.subscriberCount('acme') === 1, 5000, 'the subscription');

    await runSession(GLOBEX); // another tenant: never on this stream
    const s = await runSession(ACME, 'openwop:notes.save', 'failed');
    const got = await sse.waitForMessages(4);
    const stored = await server.log.readSession('acme', s.sessionId);
    assert.deepEqual(got.map((m) => m.id), stored.map((e) => String(e.sequence)));
    assert.deepEqual(got.map((m) => m.event), stored.map((e) => e.type));
    assert.deepEqual(got.map((m) => JSON.parse(m.data ?? '')), stored);
    // globex's session was committed before acme's began, and a stream hands events over at commit: had any reached this stream, it would be ahead of acme's.
    assert.equal(sse.messages.length, 4, 'nothing of globex arrived');
    assert.ok(sse.messages.every((m) => JSON.parse(m.data ?? '').tenant === 'acme'));
  } finally {
    sse.close();
  }
  await waitFor(() => server.log.subscriberCount() === 0, 5000, 'the subscription to be dropped on disconnect');
});

test('GET /events/stream resumes after Last-Event-ID: replays the log, then goes live without gap or repeat', async () => {
  await runSession(ACME);
  await runSession(ACME);
  const all = await server.log.readAfter('acme', -1, 1000);
  const from = all[all.length - 6].sequence; // five events to replay
  const sse = await openSse(server.url, ACME_KEY, { 'last-event-id': String(from) });
  try {
    const replayed = await sse.waitForMessages(5);
    assert.deepEqual(replayed.map((m) => Number(m.id)), all.slice(-5).map((e) => e.sequence));
    await waitFor(() => server.log.subscriberCount('acme') === 1, 5000, 'the subscription');
    const s = await runSession(ACME);
    const got = await sse.waitForMessages(9);
    const live = await server.log.readSession('acme', s.sessionId);
    assert.deepEqual(got.slice(5).map((m) => JSON.parse(m.data ?? '')), live);
    const ids = got.map((m) => Number(m.id));
    for (let i = 1; i < ids.length; i++) assert.equal(ids[i], ids[i - 1] + 1, 'consecutive, no repeat');
  } finally {
    sse.close();
  }

  // Last-Event-ID -1 replays the whole stream; a bad one is a 400 envelope before any streaming.
  const everything = await openSse(server.url, ACME_KEY, { 'last-event-id': '-1' });
  try {
    const n = (await server.log.lastSequence('acme')) + 1;
    const got = await everything.waitForMessages(n);
    assert.deepEqual(got.map((m) => Number(m.id)), [...Array(n).keys()]);
  } finally {
    everything.close();
  }
  const bad = await request(server.url, '/events/stream', { token: ACME_KEY, headers: { 'last-event-id': 'yesterday' } });
  assert.equal(bad.status, 400);
  assert.equal(bad.json().error, 'validation_error');
  assert.equal(bad.json().details.problems[0].parameter, 'Last-Event-ID');
  await waitFor(() => server.log.subscriberCount() === 0, 5000, 'subscriptions dropped');
});

test('a Last-Event-ID beyond the end of the stream resumes at the real end, not behind it', async () => {
  const sse = await openSse(server.url, ACME_KEY, { 'last-event-id': '999999' });
  try {
    await waitFor(() => server.log.subscriberCount('acme') === 1, 5000, 'the subscription');
    const s = await runSession(ACME);
    const got = await sse.waitForMessages(4);
    assert.deepEqual(got.map((m) => JSON.parse(m.data ?? '').sessionId), Array(4).fill(s.sessionId));
  } finally {
    sse.close();
  }
  await waitFor(() => server.log.subscriberCount() === 0, 5000, 'subscriptions dropped');
});

test('a slow reader misses nothing: live events past its buffer are read back from the log', async () => {
  const sse = await openSse(server.url, GLOBEX_KEY);
  try {
    await waitFor(() => server.log.subscriberCount('globex') === 1, 5000, 'the subscription');
    const start = await server.log.lastSequence('globex');
    // ~400 concurrent sessions × 4 events, committed in a few groups: far more than one socket buffer.
    await Promise.all(Array.from({ length: 400 }, (_, i) => runSession(GLOBEX, `openwop:text.${'x'.repeat(200)}${i}`)));
    const got = await sse.waitForMessages(1600, 30_000);
    assert.deepEqual(got.map((m) => Number(m.id)), Array.from({ length: 1600 }, (_, i) => start + 1 + i));
  } finally {
    sse.close();
  }
  await waitFor(() => server.log.subscriberCount() === 0, 5000, 'subscriptions dropped');
});

test('keep-alive comments flow while idle, and app.close() ends open streams', async () => {
  const own = await startEventsServer({ keepAliveMs: 50 });
  try {
    const sse = await openSse(own.url, ACME_KEY);
    const comments = await sse.waitForComments(3, 5000);
    assert.ok(comments.filter((c) => c === 'keep-alive').length >= 2);
    assert.equal(own.log.subscriberCount('acme'), 1);
    // app.close() by itself, as the host will call it, with the stream still open.
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      own.app.close(),
      new Promise((_, reject) => (timer = setTimeout(() => reject(new Error('app.close() hung on an open stream')), 5000))),
    ]);
    clearTimeout(timer);
    assert.equal(own.log.subscriberCount(), 0);
    sse.close();
  } finally {
    await own.close();
  }
});

test('events.maxStreamsPerPrincipal: the next stream of that principal is 429 rate_limited; others and closed slots are free', { timeout: 120_000 }, async () => {
  const own = await startTestServer(
    writeConfig({
      tenants: { acme: { tools: ['*'] } },
      principals: [
        { id: 'one', tenant: 'acme', keyHash: hashApiKey('one-key') },
        { id: 'two', tenant: 'acme', keyHash: hashApiKey('two-key') },
      ],
      events: { file: 'events.sqlite', maxStreamsPerPrincipal: 2 },
      sources: { hostExtensions: [{ vendor: 'a', name: 'one', command: ['true'] }] },
    }),
  );
  const log = own.running.host.events!;
  const streams: SseClient[] = [];
  try {
    for (let i = 0; i < 2; i++) streams.push(await openSse(own.url, 'one-key'));
    assert.deepEqual(streams.map((s) => s.status), [200, 200]);
    const refused = await fetch(`${own.url}/events/stream`, { headers: { authorization: 'Bearer one-key' } });
    if (refused.status === 200) await refused.body?.cancel();
    assert.equal(refused.status, 429);
    assert.equal(refused.headers.get('retry-after'), '5');
    assert.deepEqual(await refused.json(), {
      error: 'rate_limited',
      message: 'this principal already has 2 open event streams (at most 2); close one before opening another',
      details: { retryAfter: 5, cap: 'events.maxStreamsPerPrincipal', limit: 2 },
    });
    // Another principal of the same tenant has its own allowance.
    streams.push(await openSse(own.url, 'two-key'));
    assert.equal(streams[2].status, 200);
    await waitFor(() => log.subscriberCount('acme') === 3, 20_000, 'three subscriptions');
    // A stream that ends gives its slot back.
    streams[0].close();
    await waitFor(() => log.subscriberCount('acme') === 2, 20_000, 'the closed stream to be dropped');
    streams.push(await openSse(own.url, 'one-key'));
    assert.equal(streams[3].status, 200);
  } finally {
    for (const s of streams) s.close();
    await own.close();
  }
});

// Last in this file: it fills the acme stream past the 1,000 the tests above read at once.
test('a large page is assembled in chunks from the stored JSON: contiguous, exact, the same bytes as the events themselves', async () => {
  // 1,200 events for a tenant of its own (more than four chunks), then pages that straddle the chunk size.
  const who = { tenant: 'acme', principal: 'bulk-agent' };
  await Promise.all(Array.from({ length: 300 }, (_, i) => runSession(who, `openwop:text.bulk${i}`)));
  const start = (await server.log.lastSequence('acme')) - 1200;
  for (const limit of [1, 249, 250, 251, 1000]) {
    const res = await request(server.url, `/events?after=${start}&limit=${limit}`, { token: ACME_KEY });
    const expected = await server.log.readAfter('acme', start, limit);
    assert.equal(expected.length, limit);
    assert.equal(res.text, JSON.stringify({ events: expected, next: expected[limit - 1].sequence, logId: server.log.logId }), `limit ${limit}: byte for byte`);
  }
  const last = await server.log.lastSequence('acme');
  const tail = await request(server.url, `/events?after=${last - 10}&limit=1000`, { token: ACME_KEY });
  assert.deepEqual(tail.json().events.map((e: { sequence: number }) => e.sequence), [...Array(10).keys()].map((i) => last - 9 + i));
  const session = await runSession(ACME);
  const one = await request(server.url, `/sessions/${session.sessionId}/events`, { token: ACME_KEY });
  assert.equal(one.text, JSON.stringify({ events: await server.log.readSession('acme', session.sessionId) }));
});
