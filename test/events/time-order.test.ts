// The event log keeps its rows in time order by id and prunes by age without
// an index on `timestamp` (src/events/sqlite/schema.ts "Time order",
// prune-by-age.ts): a file made with that index opens with the index gone
// and every row kept, and retention removes exactly the rows older than the
// window, also where an older file's rows are out of time order.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import Database from 'better-sqlite3';
import { EventLog } from '../../src/events/sqlite/log.js';
import { ACME, appendOne, GLOBEX, logFile } from './helpers.js';

const DAY = 86_400_000;
const NOW = Date.now();
const ago = (days: number) => new Date(NOW - days * DAY).toISOString();

function opened(who: { tenant: string; principal: string }, sessionId: string) {
  return { type: 'tool.session.opened' as const, ...who, sessionId, payload: { sessionId, toolId: 'openwop:text.uppercase' } };
}

/**
 * A file as hosts made it with the `timestamp` index: the log's tables, the
 * index, and one row per entry of `ages` (days before now, in id order).
 */
async function fileWithTimeIndex(ages: number[]): Promise<string> {
  const file = logFile();
  const log = EventLog.open(file, { synchronous: 'normal' });
  for (let i = 0; i < ages.length; i++) await appendOne(log, opened(i % 2 === 0 ? ACME : GLOBEX, `s${i}`));
  await log.close();
  const db = new Database(file);
  db.exec('CREATE INDEX tool_events_time ON tool_events (timestamp)');
  const age = db.prepare('UPDATE tool_events SET timestamp = ? WHERE session_id = ?');
  ages.forEach((days, i) => age.run(ago(days), `s${i}`));
  assert.equal(db.pragma('user_version', { simple: true }), 1);
  db.close();
  return file;
}

function side<T>(file: string, read: (db: Database.Database) => T): T {
  const db = new Database(file, { readonly: true });
  try {
    return read(db);
  } finally {
    db.close();
  }
}

const hasTimeIndex = (db: Database.Database) => db.prepare(`SELECT 1 FROM sqlite_master WHERE name = 'tool_events_time'`).get() !== undefined;
const rows = (db: Database.Database) => db.prepare('SELECT id, event_id, tenant, sequence, timestamp, session_id, payload FROM tool_events ORDER BY id').all() as Array<{ session_id: string; timestamp: string }>;
const unorderedBound = (db: Database.Database) => (db.prepare(`SELECT value FROM tool_event_meta WHERE key = 'timeUnorderedThroughId'`).get() as { value: string } | undefined)?.value;

/** The sessions `DELETE ... WHERE timestamp < cut` keeps, the reference result. */
const keptBy = (all: Array<{ session_id: string; timestamp: string }>, cut: string) => all.filter((r) => r.timestamp >= cut).map((r) => r.session_id);

test('a file made with the timestamp index opens with the index gone and every row kept; retention removes exactly the old rows', async () => {
  const file = await fileWithTimeIndex([40, 30, 20, 9, 8.5, 8, 7.5, 6.9, 3, 1, 0.5, 0]);
  const before = side(file, rows);

  let log = EventLog.open(file);
  try {
    side(file, (db) => {
      assert.equal(hasTimeIndex(db), false, 'the index is dropped at open');
      assert.deepEqual(rows(db), before, 'every row kept as it was');
      assert.equal(unorderedBound(db), undefined, 'rows in time order: nothing to remember');
    });
    assert.equal((await appendOne(log, opened(ACME, 'new'))).sequence, 6, 'the stream goes on');
  } finally {
    await log.close();
  }

  const atOpen = keptBy(side(file, rows), ago(7));
  log = EventLog.open(file, { retentionDays: 7 });
  try {
    assert.deepEqual(side(file, rows).map((r) => r.session_id), atOpen, 'exactly the rows older than 7 days are gone at open');
    // A clock moving on: each prune removes exactly what DELETE ... WHERE timestamp < cut would.
    for (const ahead of [0.05, 0.6, 1.05, 4.2, 6.6, 7.5]) {
      const at = NOW + ahead * DAY;
      const reference = keptBy(side(file, rows), new Date(at - 7 * DAY).toISOString());
      const removed = await log.prune(at);
      const kept = side(file, rows).map((r) => r.session_id);
      assert.deepEqual(kept, reference, `exact ${ahead} days on`);
      assert.ok(removed >= 0);
    }
    assert.deepEqual(side(file, rows), [], 'a week on, nothing is left');
    assert.equal((await appendOne(log, opened(ACME, 'after'))).sequence, 7);
  } finally {
    await log.close();
  }
});

test('an older file whose rows are out of time order: the bound is kept and retention stays exact until those rows are gone', async () => {
  // Two writers' commits and a clock set back left these out of order.
  const ages = [30, 31, 3, 29, 8, 2, 1.5, 1];
  const file = await fileWithTimeIndex(ages);
  const before = side(file, rows);

  let log = EventLog.open(file, { retentionDays: 9.5 });
  try {
    const expected = keptBy(before, ago(9.5));
    side(file, (db) => {
      assert.equal(hasTimeIndex(db), false);
      assert.deepEqual(rows(db).map((r) => r.session_id), expected, 'exactly the rows older than 9.5 days are gone at open');
      assert.equal(unorderedBound(db), String((db.prepare(`SELECT id FROM tool_events WHERE session_id = 's4'`).get() as { id: number }).id), 'the last row below an earlier one bounds the unordered rows');
    });
    // New rows are in order after the old ones; retention by a moving cut stays exact.
    for (let i = 0; i < 3; i++) await appendOne(log, opened(ACME, `n${i}`));
    const cutAt = NOW + (9.5 - 4.5) * DAY;
    const reference = keptBy(side(file, rows), new Date(cutAt - 9.5 * DAY).toISOString());
    assert.equal(await log.prune(cutAt), 1, 's4 (8 days old) goes');
    assert.deepEqual(side(file, rows).map((r) => r.session_id), reference);
    assert.deepEqual(reference, ['s2', 's5', 's6', 's7', 'n0', 'n1', 'n2']);
    assert.notEqual(side(file, unorderedBound), undefined, 's2 (3 days old, before the out-of-order s4) is still there');
  } finally {
    await log.close();
  }

  // Reopened (the index gone, the bound read back) and pruned past every old row: the bound is forgotten.
  log = EventLog.open(file, { retentionDays: 1 });
  try {
    const reference = keptBy(side(file, rows), ago(1));
    assert.deepEqual(side(file, rows).map((r) => r.session_id), reference);
    assert.deepEqual(reference, ['n0', 'n1', 'n2']);
    assert.equal(side(file, unorderedBound), undefined, 'no unordered row left: the bound is cleared');
  } finally {
    await log.close();
  }
});

test('a timestamp never goes below the newest row, whatever the clock says', async () => {
  const file = logFile();
  const log = EventLog.open(file);
  try {
    await appendOne(log, opened(ACME, 'a'));
    // A row from a clock that ran ahead and was set back since.
    const ahead = new Date(Date.now() + DAY).toISOString();
    const db = new Database(file);
    db.prepare(`UPDATE tool_events SET timestamp = ? WHERE session_id = 'a'`).run(ahead);
    db.close();
    const next = await appendOne(log, opened(GLOBEX, 'b'));
    assert.equal(next.timestamp, ahead, 'the newest row bounds the next commit');
    assert.deepEqual(side(file, rows).map((r) => r.timestamp), [ahead, ahead]);
    assert.equal(await log.prune(Date.now()), 0, 'nothing is older than the cut of a log without retention');
  } finally {
    await log.close();
  }
});
