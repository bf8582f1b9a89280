// The event log itself (CONTRACT.md "Tool sessions"): append order, one
// sequence stream per tenant starting at 0, surviving reopen and retention,
// tenant isolation, content-free payloads, subscriptions, retention.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import Database from 'better-sqlite3';
import { EventLog, type ToolEvent } from '../../src/events/sqlite/log.js';
import { ACME, appendOne, GLOBEX, logFile, openTempLog } from './helpers.js';

/** Event ids grow with time (UUID version 7): the log's unique index takes each group's rows on its last page. */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

function opened(who: { tenant: string; principal: string }, sessionId: string, toolId = 'openwop:text.uppercase') {
  return { type: 'tool.session.opened' as const, ...who, sessionId, payload: { sessionId, toolId } };
}

test('append returns the stored event; readSession and readAfter give them back in order', async () => {
  const { log } = openTempLog();
  try {
    const before = Date.now();
    const a = await appendOne(log, opened(ACME, 's1'));
    const b = await appendOne(log, { type: 'agent.toolCalled', ...ACME, sessionId: 's1', payload: { sessionId: 's1', toolId: 't', callId: 'c1' } });
    const c = await appendOne(log, { type: 'agent.toolReturned', ...ACME, sessionId: 's1', payload: { sessionId: 's1', toolId: 't', callId: 'c1', status: 'ok', durationMs: 3 } });
    const d = await appendOne(log, { type: 'tool.session.closed', ...ACME, sessionId: 's1', payload: { sessionId: 's1', toolId: 't', outcome: 'completed' } });
    assert.deepEqual([a, b, c, d].map((e) => e.sequence), [0, 1, 2, 3]);
    for (const e of [a, b, c, d]) {
      assert.match(e.eventId, UUID);
      assert.equal(e.tenant, 'acme');
      assert.equal(e.principal, 'acme-agent');
      assert.equal(e.sessionId, 's1');
      assert.equal(new Date(e.timestamp).toISOString(), e.timestamp);
      assert.ok(Date.parse(e.timestamp) >= before - 1 && Date.parse(e.timestamp) <= Date.now() + 1);
      assert.deepEqual(Object.keys(e), ['eventId', 'type', 'sequence', 'timestamp', 'tenant', 'principal', 'sessionId', 'payload']);
    }
    assert.equal(new Set([a, b, c, d].map((e) => e.eventId)).size, 4);
    assert.deepEqual([a, b, c, d].map((e) => e.eventId), [a, b, c, d].map((e) => e.eventId).sort(), 'event ids sort in stream order');
    assert.deepEqual(await log.readSession('acme', 's1'), [a, b, c, d]);
    assert.deepEqual(await log.readAfter('acme', -1, 100), [a, b, c, d]);
    assert.deepEqual(await log.readAfter('acme', 1, 100), [c, d]);
    assert.deepEqual(await log.readAfter('acme', 0, 2), [b, c]);
    assert.deepEqual(await log.readAfter('acme', 3, 100), []);
    assert.deepEqual(await log.readAfter('acme', -1, 0), []);
    assert.equal(await log.lastSequence('acme'), 3);
    assert.equal(await log.lastSequence('nobody'), -1);
  } finally {
    log.close();
  }
});

test('each tenant is its own stream from 0 with no gaps; another tenant reads nothing of it', async () => {
  const { log } = openTempLog();
  try {
    const seen: Record<string, number[]> = { acme: [], globex: [] };
    for (let i = 0; i < 30; i++) {
      const who = i % 3 === 0 ? GLOBEX : ACME;
      seen[who.tenant].push((await appendOne(log, opened(who, `s${i}`))).sequence);
    }
    assert.deepEqual(seen.acme, [...Array(20).keys()]);
    assert.deepEqual(seen.globex, [...Array(10).keys()]);
    assert.deepEqual(await log.readSession('globex', 's1'), [], "another tenant's session reads as nothing");
    assert.deepEqual(await log.readSession('acme', 'no-such-session'), []);
    assert.ok((await log.readAfter('globex', -1, 1000)).every((e) => e.tenant === 'globex'));
    assert.equal((await log.readAfter('globex', -1, 1000)).length, 10);
  } finally {
    log.close();
  }
});

test('sequences go on after reopen, and after retention pruned a whole stream', async () => {
  const file = logFile();
  let log = EventLog.open(file);
  for (let i = 0; i < 5; i++) await appendOne(log, opened(ACME, `s${i}`));
  await appendOne(log, opened(GLOBEX, 'g0'));
  const before = await log.readAfter('acme', -1, 100);
  log.close();

  log = EventLog.open(file);
  assert.deepEqual(await log.readAfter('acme', -1, 100), before, 'everything is there after reopen');
  assert.equal((await appendOne(log, opened(ACME, 's5'))).sequence, 5);
  assert.equal((await appendOne(log, opened(GLOBEX, 'g1'))).sequence, 1);
  log.close();

  // maxEvents 1 keeps only the newest event of the whole file (globex's);
  // acme's stream is empty, yet it goes on from 6, never from 0 again.
  log = EventLog.open(file, { maxEvents: 1 });
  try {
    assert.deepEqual(await log.readAfter('acme', -1, 100), []);
    assert.equal(await log.lastSequence('acme'), 5);
    assert.equal((await appendOne(log, opened(ACME, 's6'))).sequence, 6);
  } finally {
    log.close();
  }
});

test('two EventLogs on one file (two processes) never hand out one sequence twice', async () => {
  const file = logFile();
  const one = EventLog.open(file);
  const two = EventLog.open(file);
  try {
    const seqs: number[] = [];
    for (let i = 0; i < 20; i++) seqs.push((await appendOne(i % 2 === 0 ? one : two, opened(ACME, `s${i}`))).sequence);
    assert.deepEqual(seqs, [...Array(20).keys()]);
  } finally {
    one.close();
    two.close();
  }
});

test('payloads are content-free: any key beyond identifiers, status and duration is refused, and nothing is stored', async () => {
  const { log } = openTempLog();
  try {
    const bad: Array<[string, () => Promise<unknown>]> = [
      ['arguments', () => log.append([{ ...opened(ACME, 's'), payload: { sessionId: 's', toolId: 't', arguments: '{"text":"hi"}' } }])],
      ['result', () => log.append([{ type: 'agent.toolReturned', ...ACME, sessionId: 's', payload: { sessionId: 's', toolId: 't', callId: 'c', status: 'ok', durationMs: 1, result: 'HI' } }])],
      ['token', () => log.append([{ ...opened(ACME, 's'), payload: { sessionId: 's', toolId: 't', token: 'sk-live-x' } }])],
      ['missing toolId', () => log.append([{ ...opened(ACME, 's'), payload: { sessionId: 's' } }])],
      ['sessionId mismatch', () => log.append([{ ...opened(ACME, 's'), payload: { sessionId: 'other', toolId: 't' } }])],
      ['status', () => log.append([{ type: 'agent.toolReturned', ...ACME, sessionId: 's', payload: { sessionId: 's', toolId: 't', callId: 'c', status: 'fine', durationMs: 1 } }])],
      ['duration', () => log.append([{ type: 'agent.toolReturned', ...ACME, sessionId: 's', payload: { sessionId: 's', toolId: 't', callId: 'c', status: 'ok', durationMs: -1 } }])],
      ['outcome', () => log.append([{ type: 'tool.session.closed', ...ACME, sessionId: 's', payload: { sessionId: 's', toolId: 't', outcome: 'done' } }])],
      ['type', () => log.append([{ ...opened(ACME, 's'), type: 'tool.session-opened' as never }])],
      ['tenant', () => log.append([opened({ tenant: '', principal: 'p' }, 's')])],
      ['toolId type', () => log.append([{ ...opened(ACME, 's'), payload: { sessionId: 's', toolId: 42 } }])],
    ];
    for (const [what, attempt] of bad) await assert.rejects(attempt(), TypeError, what);
    assert.deepEqual(await log.readAfter('acme', -1, 100), []);
    assert.equal((await appendOne(log, opened(ACME, 's'))).sequence, 0, 'a refused append used no sequence number');
  } finally {
    log.close();
  }
});

test('subscribers get their own tenant\'s events after the commit, before append resolves, in order; a throwing one harms nobody', async () => {
  const { log } = openTempLog();
  try {
    const got: ToolEvent[] = [];
    const other: ToolEvent[] = [];
    const off = log.subscribe('acme', (e) => got.push(e));
    log.subscribe('acme', () => {
      throw new Error('broken subscriber');
    });
    log.subscribe('globex', (e) => other.push(e));
    const a = await appendOne(log, opened(ACME, 's1'));
    assert.deepEqual(got, [a], 'delivered before append returned');
    await appendOne(log, opened(ACME, 's2'));
    off();
    await appendOne(log, opened(ACME, 's3'));
    assert.deepEqual(got.map((e) => e.sessionId), ['s1', 's2']);
    assert.deepEqual(other, []);
    assert.equal(log.subscriberCount('acme'), 1);
    assert.equal(log.subscriberCount(), 2);
  } finally {
    log.close();
  }
});

test('retention: maxEvents keeps the newest N (pruned at open and by prune())', async () => {
  const file = logFile();
  let log = EventLog.open(file);
  for (let i = 0; i < 10; i++) await appendOne(log, opened(i < 5 ? ACME : GLOBEX, `s${i}`));
  log.close();

  log = EventLog.open(file, { maxEvents: 4 });
  try {
    assert.deepEqual(await log.readAfter('acme', -1, 100), [], 'the oldest (acme) events went first');
    assert.deepEqual((await log.readAfter('globex', -1, 100)).map((e) => e.sessionId), ['s6', 's7', 's8', 's9']);
    for (let i = 10; i < 13; i++) await appendOne(log, opened(ACME, `s${i}`));
    assert.equal(await log.prune(), 3);
    assert.deepEqual((await log.readAfter('globex', -1, 100)).map((e) => e.sessionId), ['s9']);
    assert.deepEqual((await log.readAfter('acme', -1, 100)).map((e) => [e.sessionId, e.sequence]), [['s10', 5], ['s11', 6], ['s12', 7]]);
  } finally {
    log.close();
  }
});

test('retention: retentionDays drops events older than the window, at open and periodically', async () => {
  const file = logFile();
  let log = EventLog.open(file);
  for (let i = 0; i < 4; i++) await appendOne(log, opened(ACME, `s${i}`));
  log.close();
  // Age them by rewriting their timestamps in the file itself, in time order as the log keeps its rows.
  const db = new Database(file);
  const old = (days: number) => new Date(Date.now() - days * 86_400_000).toISOString();
  db.prepare('UPDATE tool_events SET timestamp = ? WHERE session_id = ?').run(old(10), 's0');
  db.prepare('UPDATE tool_events SET timestamp = ? WHERE session_id = ?').run(old(6), 's1');
  db.prepare('UPDATE tool_events SET timestamp = ? WHERE session_id = ?').run(old(3), 's2');
  db.close();

  log = EventLog.open(file, { retentionDays: 7, pruneIntervalMs: 20 });
  try {
    assert.deepEqual((await log.readAfter('acme', -1, 100)).map((e) => e.sessionId), ['s1', 's2', 's3'], 'pruned at open');
    // Age another one while the log is open (a second connection, as WAL allows): the timer prunes it.
    const side = new Database(file);
    side.prepare('UPDATE tool_events SET timestamp = ? WHERE session_id = ?').run(old(8), 's1');
    side.close();
    const deadline = Date.now() + 5000;
    while ((await log.readAfter('acme', -1, 100)).length !== 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    assert.deepEqual((await log.readAfter('acme', -1, 100)).map((e) => e.sessionId), ['s2', 's3'], 'pruned periodically');
    // prune(now) with a clock 4 days ahead drops s2 (3 days old) too.
    assert.equal(await log.prune(Date.now() + 4 * 86_400_000 + 1000), 1);
    assert.deepEqual((await log.readAfter('acme', -1, 100)).map((e) => e.sessionId), ['s3']);
    assert.equal((await appendOne(log, opened(ACME, 's4'))).sequence, 4);
  } finally {
    log.close();
  }
});

test('bad retention options and a newer schema are refused at open', () => {
  assert.throws(() => EventLog.open(logFile(), { retentionDays: 0 }), RangeError);
  assert.throws(() => EventLog.open(logFile(), { maxEvents: 1.5 }), RangeError);
  assert.throws(() => EventLog.open(logFile(), { maxEvents: -1 }), RangeError);
  const file = logFile();
  const db = new Database(file);
  db.pragma('user_version = 99');
  db.close();
  assert.throws(() => EventLog.open(file), /schema version 99/);
});

test('the file runs in WAL mode with SQLite synchronous=NORMAL; under full the log fsyncs the WAL itself before an append resolves', async () => {
  const { log, file } = openTempLog();
  const normal = openTempLog({ synchronous: 'normal' }).log;
  try {
    await appendOne(log, opened(ACME, 's'));
    await appendOne(normal, opened(ACME, 's'));
    // synchronous is per connection: read it through the log's own handle.
    const handle = (log as unknown as { db: Database.Database }).db;
    assert.equal(handle.pragma('synchronous', { simple: true }), 1, 'NORMAL: commits write, the log syncs');
    assert.equal((normal as unknown as { db: Database.Database }).db.pragma('synchronous', { simple: true }), 1, 'NORMAL');
    assert.equal(log.groupStats().syncedGroups, 1, 'full: the append waited for an fdatasync of the WAL');
    assert.equal(normal.groupStats().syncedGroups, 0, 'normal: no sync per commit');
    assert.equal(handle.pragma('journal_mode', { simple: true }), 'wal');
    const reader = new Database(file, { readonly: true });
    assert.equal(reader.pragma('journal_mode', { simple: true }), 'wal', 'WAL is a property of the file');
    reader.close();
  } finally {
    log.close();
    normal.close();
  }
});

test('close is idempotent and append after close is refused', async () => {
  const { log } = openTempLog();
  log.close();
  log.close();
  await assert.rejects(log.append([opened(ACME, 's')]), /closed/);
});
