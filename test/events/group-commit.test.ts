// Group commit of the event log (docs/architecture.md "Group commit" and
// "Durability"; group-commit.ts): appends of one turn share one transaction
// and one fsync, a failing group refuses every append in it and stores
// nothing, write-ahead records are fsync'd by the next ordinary commit or
// soon after, and subscribers get every writer's events once, in order.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import { test } from 'node:test';
import Database from 'better-sqlite3';
import pino from 'pino';
import { EventLog, EventLogUnavailableError, type AppendInput, type ToolEvent } from '../../src/events/sqlite/log.js';
import { MAX_GROUP_EVENTS } from '../../src/events/sqlite/group-commit.js';
import { ToolSession } from '../../src/events/session.js';
import { startHost } from '../../src/host/host.js';
import { writeConfig } from '../helpers/server.js';
import { ACME, GLOBEX, logFile, openTempLog, waitFor } from './helpers.js';

function opened(who: { tenant: string; principal: string }, sessionId: string): AppendInput {
  return { type: 'tool.session.opened', ...who, sessionId, payload: { sessionId, toolId: 'openwop:text.uppercase' } };
}

async function call(log: EventLog, who: { tenant: string; principal: string }): Promise<string> {
  const s = ToolSession.open(log, who, 'openwop:text.uppercase');
  const callId = s.called('openwop:text.uppercase');
  await s.commit({ writeAhead: true });
  s.returned(callId, 'openwop:text.uppercase', 'ok', 1);
  await s.finish('completed');
  return s.sessionId;
}

test('concurrent sessions share commits: 64 calls (128 appends) in two transactions, one fsync', async () => {
  const { log } = openTempLog();
  try {
    const ids = await Promise.all(Array.from({ length: 64 }, (_, i) => call(log, i % 2 ? ACME : GLOBEX)));
    const stats = log.groupStats();
    assert.equal(stats.appends, 128);
    assert.equal(stats.events, 256);
    assert.equal(stats.groups, 2, 'every write-ahead record in one commit, every answer record in another');
    assert.equal(stats.syncedGroups, 1, 'only the answer records waited for an fsync');
    for (const tenant of ['acme', 'globex']) {
      assert.deepEqual((await log.readAfter(tenant, -1, 1000)).map((e) => e.sequence), [...Array(128).keys()], `${tenant}: gap-free`);
    }
    for (const [i, id] of ids.entries()) assert.equal((await log.readSession(i % 2 ? 'acme' : 'globex', id)).length, 4, 'every session whole');
  } finally {
    await log.close();
  }
});

test('sequential appends commit one by one (nothing waits for company), and a burst beyond the bound is split in order', async () => {
  const { log } = openTempLog();
  try {
    for (let i = 0; i < 5; i++) await log.append([opened(ACME, `s${i}`)]);
    assert.equal(log.groupStats().groups, 5);
    const burst = await Promise.all(Array.from({ length: MAX_GROUP_EVENTS + 10 }, (_, i) => log.append([opened(ACME, `b${i}`)])));
    assert.equal(log.groupStats().groups, 7, 'two groups for the burst');
    assert.deepEqual(burst.map(([e]) => e.sequence), Array.from({ length: MAX_GROUP_EVENTS + 10 }, (_, i) => 5 + i), 'in the order appended');
  } finally {
    await log.close();
  }
});

test('a failing group refuses every append in it, stores nothing and uses no sequence', async () => {
  const { log, file } = openTempLog();
  try {
    await log.append([opened(ACME, 'before')]);
    // Another connection holds the write lock: the group's IMMEDIATE transaction cannot start.
    const other = new Database(file);
    other.pragma('busy_timeout = 0');
    other.exec('BEGIN IMMEDIATE');
    (log as unknown as { db: Database.Database }).db.pragma('busy_timeout = 0');
    const results = await Promise.allSettled([log.append([opened(ACME, 'a')]), log.append([opened(GLOBEX, 'b'), opened(GLOBEX, 'c')])]);
    other.exec('ROLLBACK');
    other.close();
    assert.deepEqual(results.map((r) => r.status), ['rejected', 'rejected']);
    for (const r of results) assert.ok(r.status === 'rejected' && r.reason instanceof EventLogUnavailableError && r.reason.failure.reason === 'busy');
    assert.equal(log.health().failedAppends, 2, 'each refused append counted');
    assert.equal((await log.append([opened(ACME, 'after')]))[0].sequence, 1);
    assert.equal(await log.lastSequence('globex'), -1);
    assert.equal(log.health().writable, true);
  } finally {
    await log.close();
  }
});

test('a content-free violation rejects that append only; the others of the turn are stored', async () => {
  const { log } = openTempLog();
  try {
    const bad = { ...opened(ACME, 'x'), payload: { sessionId: 'x', toolId: 't', arguments: 'secret' } };
    const results = await Promise.allSettled([log.append([opened(ACME, 'a')]), log.append([opened(ACME, 'b'), bad]), log.append([opened(ACME, 'c')])]);
    assert.deepEqual(results.map((r) => r.status), ['fulfilled', 'rejected', 'fulfilled']);
    assert.ok(results[1].status === 'rejected' && results[1].reason instanceof TypeError);
    assert.deepEqual((await log.readAfter('acme', -1, 10)).map((e) => e.sessionId), ['a', 'c']);
  } finally {
    await log.close();
  }
});

test('synchronous full: a write-ahead record rides on the next ordinary fsync, or gets its own within DEFERRED_SYNC_MS', async () => {
  const { log } = openTempLog();
  try {
    const s = ToolSession.open(log, ACME, 't');
    const callId = s.called('t');
    await s.commit({ writeAhead: true });
    s.returned(callId, 't', 'ok', 0);
    await s.finish('completed');
    assert.deepEqual(log.groupStats().syncedGroups, 1);
    // No deferred sync is pending, so none will run: the answer commit made the write-ahead record durable.
    assert.deepEqual([log.groupStats().deferredSyncs, log.groupStats().deferredSyncPending], [0, false]);

    await log.append([opened(ACME, 'long-call')], { writeAhead: true });
    assert.deepEqual([log.groupStats().deferredSyncs, log.groupStats().deferredSyncPending], [0, true]);
    await waitFor(() => log.groupStats().deferredSyncs === 1, 5000, 'the deferred sync');
    assert.equal(log.groupStats().deferredSyncPending, false, 'no ordinary commit came: synced on its own');
    assert.equal(log.groupStats().syncedGroups, 1);
  } finally {
    await log.close();
  }
});

test('synchronous full: a group holding a write-ahead record and an answer record is fsync\'d before either resolves', async () => {
  const { log } = openTempLog();
  try {
    // Both appended in one turn: one group, one transaction.
    await Promise.all([log.append([opened(ACME, 'ahead')], { writeAhead: true }), log.append([opened(GLOBEX, 'answer')])]);
    const stats = log.groupStats();
    assert.equal(stats.groups, 1, 'one group');
    assert.equal(stats.syncedGroups, 1, 'the group was synced: its answer record must be durable');
    assert.deepEqual([stats.deferredSyncs, stats.deferredSyncPending], [0, false]);
  } finally {
    await log.close();
  }
});

test('synchronous normal: no commit waits for an fsync and no deferred sync runs', async () => {
  const { log } = openTempLog({ synchronous: 'normal' });
  try {
    await call(log, ACME);
    await log.append([opened(ACME, 'w')], { writeAhead: true });
    assert.deepEqual([log.groupStats().syncedGroups, log.groupStats().deferredSyncs, log.groupStats().deferredSyncPending], [0, 0, false]);
    assert.equal((log as unknown as { db: Database.Database }).db.pragma('synchronous', { simple: true }), 1, 'NORMAL');
  } finally {
    await log.close();
  }
});

test('subscribers get every writer\'s events of the file once, in sequence order: gaps are read back, idle ones on check()', async () => {
  const file = logFile();
  const mine = EventLog.open(file, { checkIntervalMs: 3_600_000 });
  const theirs = EventLog.open(file, { checkIntervalMs: 3_600_000 });
  try {
    await mine.append([opened(ACME, 'old')]);
    const got: ToolEvent[] = [];
    mine.subscribe('acme', (e) => got.push(e));
    await theirs.append([opened(ACME, 't1'), opened(ACME, 't2')]);
    assert.equal(got.length, 0, 'not seen until this log commits or checks');
    await mine.append([opened(ACME, 'm1')]);
    assert.deepEqual(got.map((e) => [e.sequence, e.sessionId]), [[1, 't1'], [2, 't2'], [3, 'm1']]);
    await theirs.append([opened(ACME, 't3')]);
    await theirs.append([opened(GLOBEX, 'g')]);
    mine.check();
    mine.check();
    assert.deepEqual(got.map((e) => e.sequence), [1, 2, 3, 4]);
    assert.deepEqual(got, await mine.readAfter('acme', 0, 100), 'the very events stored');
  } finally {
    await mine.close();
    await theirs.close();
  }
});

test('close commits what is still queued before closing', async () => {
  const { log, file } = openTempLog();
  const pending = log.append([opened(ACME, 'late')]);
  await log.close();
  assert.equal((await pending)[0].sequence, 0);
  const again = EventLog.open(file);
  try {
    assert.equal((await again.readSession('acme', 'late')).length, 1);
  } finally {
    await again.close();
  }
});

test('under full an ordinary append resolves only after the WAL fdatasync, and a failing one refuses it (injected EIO)', async () => {
  const { log } = openTempLog();
  const original = fs.fdatasync;
  let syncs = 0;
  try {
    // The fault is injected at the fs boundary: the real fdatasync, counted, or an EIO instead.
    let fail = false;
    fs.fdatasync = ((fd: number, callback: (err: NodeJS.ErrnoException | null) => void) => {
      syncs++;
      if (!fail) return original(fd, callback);
      const err: NodeJS.ErrnoException = new Error('EIO: i/o error, fdatasync');
      err.code = 'EIO';
      queueMicrotask(() => callback(err));
    }) as typeof fs.fdatasync;
    syncBuiltinESMExports();
    await log.append([opened(ACME, 'a')]);
    assert.equal(syncs, 1);
    fail = true;
    await log.append([opened(ACME, 'w')], { writeAhead: true });
    assert.equal(syncs, 1, 'a write-ahead record does not wait for a sync');
    await assert.rejects(log.append([opened(ACME, 'b')]), (err: unknown) => err instanceof EventLogUnavailableError && err.failure.reason === 'io_error');
    assert.equal(log.health().writable, false);
    fail = false;
    await log.append([opened(ACME, 'c')]);
    assert.equal(log.health().writable, true);
  } finally {
    fs.fdatasync = original;
    syncBuiltinESMExports();
    await log.close();
  }
});

test('events.synchronous reaches the host\'s log: full by default, normal when asked; anything else is a config error', async () => {
  const logger = pino({ level: 'silent' });
  for (const [synchronous, synced] of [[undefined, 1], ['normal', 0]] as const) {
    const config = writeConfig({ tenants: { acme: { tools: ['*'] } }, events: { file: 'events.sqlite', ...(synchronous ? { synchronous } : {}) } });
    const host = await startHost(config, { logger });
    try {
      assert.ok(host.events instanceof EventLog);
      await host.events.append([opened(ACME, 's')]);
      assert.equal(host.events.groupStats().syncedGroups, synced, `synchronous ${synchronous ?? '(default)'}`);
    } finally {
      await host.stop();
    }
  }
  const bad = writeConfig({ tenants: { acme: { tools: ['*'] } }, events: { file: 'events.sqlite', synchronous: 'off' } });
  await assert.rejects(startHost(bad, { logger }), /synchronous/);
});
