// The SQLite file behind the event log (log.ts; docs/contract.md "Tool sessions"):
// opening it in WAL mode, its tables, and the prepared statements the log
// runs. Kept apart from the log's behaviour (group commit, faults,
// subscriptions) so each reads on its own.
//
// Time order. Rows are stored with `timestamp` never below the newest
// row's (taken under the write lock, see insert-group.ts), so the `id` order
// is the time order and retention by age (prune-by-age.ts) finds its cut by
// a binary search over `id`: no index on `timestamp`, which cost every
// commit about a fifth of its CPU (docs/benchmarks.md "The event log
// inside a call"). A file made before had that index; opening it drops
// the index and records up to which `id` its rows may be out of time order
// (two writers' commits, a clock set back), so retention stays exact there.
import { SQLITE_CONFIG_CHANGES_TABLE } from '../config-changes.js';
import { randomUUID } from 'node:crypto';
import Database from 'better-sqlite3';
import type { SerializedEvent, ToolEventType } from '../event-types.js';

/** How long an append waits for another writer's lock before it is refused as `busy`. */
export const BUSY_TIMEOUT_MS = 5000;
const SCHEMA_VERSION = 1;

export interface EventRow {
  event_id: string;
  type: ToolEventType;
  sequence: number;
  timestamp: string;
  tenant: string;
  principal: string;
  session_id: string;
  payload: string;
}

const EVENT_JSON = `json_object('eventId', event_id, 'type', type, 'sequence', sequence, 'timestamp', timestamp,
  'tenant', tenant, 'principal', principal, 'sessionId', session_id, 'payload', json(payload))`;
const EVENT_COLUMNS = 'event_id, type, sequence, timestamp, tenant, principal, session_id, payload';

/** Opens `file` in WAL mode and brings its schema up to date; returns the handle and the file's logId. */
export interface OpenedDatabase {
  db: Database.Database;
  logId: string;
  /** The last `id` whose row may be out of time order (made before rows were kept in time order); undefined: every row is in order. */
  unorderedThrough: number | undefined;
}

/** The meta key under which `unorderedThrough` is kept. */
const UNORDERED_KEY = 'timeUnorderedThroughId';

export function openDatabase(file: string): OpenedDatabase {
  const db = new Database(file);
  try {
    db.pragma('journal_mode = WAL');
    db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
    const version = db.pragma('user_version', { simple: true }) as number;
    if (version > SCHEMA_VERSION) throw new Error(`${file}: event log schema version ${version} is newer than this host understands (${SCHEMA_VERSION})`);
    db.exec(`
      CREATE TABLE IF NOT EXISTS tool_events (
        id         INTEGER PRIMARY KEY,          -- insertion order across tenants (retention by count)
        event_id   TEXT NOT NULL UNIQUE,
        tenant     TEXT NOT NULL,
        sequence   INTEGER NOT NULL,
        type       TEXT NOT NULL,
        timestamp  TEXT NOT NULL,                -- ISO 8601 UTC, ms precision: sorts as text
        principal  TEXT NOT NULL,
        session_id TEXT NOT NULL,
        payload    TEXT NOT NULL,
        UNIQUE (tenant, sequence)
      );
      CREATE INDEX IF NOT EXISTS tool_events_session ON tool_events (tenant, session_id, sequence);
      CREATE TABLE IF NOT EXISTS tool_event_streams (
        tenant        TEXT PRIMARY KEY,
        last_sequence INTEGER NOT NULL
      ) WITHOUT ROWID;
      CREATE TABLE IF NOT EXISTS tool_event_meta (
        key   TEXT PRIMARY KEY,
        value TEXT NOT NULL
      ) WITHOUT ROWID;
      ${SQLITE_CONFIG_CHANGES_TABLE}
      PRAGMA user_version = ${SCHEMA_VERSION};
    `);
    db.prepare(`INSERT INTO tool_event_meta (key, value) VALUES ('logId', ?) ON CONFLICT (key) DO NOTHING`).run(randomUUID());
    const { value: logId } = db.prepare(`SELECT value FROM tool_event_meta WHERE key = 'logId'`).get() as { value: string };
    return { db, logId, unorderedThrough: dropTimeIndex(db) };
  } catch (err) {
    db.close();
    throw err;
  }
}

/**
 * Drops the `timestamp` index of a file made before rows were kept in time
 * order, in one transaction with the record of how far its rows may be out
 * of order: the last row below the running maximum of the timestamps before
 * it. Every later row is at or above all earlier ones. Returns that bound
 * (read back from the meta table when the index is gone already).
 */
function dropTimeIndex(db: Database.Database): number | undefined {
  const hasIndex = db.prepare(`SELECT 1 FROM sqlite_master WHERE type = 'index' AND name = 'tool_events_time'`).get() !== undefined;
  const stored = () => {
    const row = db.prepare(`SELECT value FROM tool_event_meta WHERE key = '${UNORDERED_KEY}'`).get() as { value: string } | undefined;
    return row === undefined ? undefined : Number(row.value);
  };
  if (!hasIndex) return stored();
  return db.transaction(() => {
    const { last } = db
      .prepare(
        `SELECT max(id) AS last FROM (
           SELECT id, timestamp < max(timestamp) OVER (ORDER BY id ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS back FROM tool_events
         ) WHERE back`,
      )
      .get() as { last: number | null };
    // A bound recorded before (the index made again by an older host meanwhile) still holds for the rows it covers.
    const through = Math.max(last ?? -1, stored() ?? -1);
    if (through >= 0) db.prepare(`INSERT INTO tool_event_meta (key, value) VALUES ('${UNORDERED_KEY}', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value`).run(String(through));
    db.exec('DROP INDEX tool_events_time');
    return through >= 0 ? through : undefined;
  }).immediate();
}

/** Forgets the bound once no row at or below it is left (retention removed them). */
export function clearUnordered(db: Database.Database): void {
  db.prepare(`DELETE FROM tool_event_meta WHERE key = '${UNORDERED_KEY}'`).run();
}

/** Every statement the log runs, prepared once. */
export function prepareStatements(db: Database.Database) {
  return {
    probe: db.prepare<[string]>(
      `INSERT INTO tool_event_meta (key, value) VALUES ('lastProbe', ?)
       ON CONFLICT (key) DO UPDATE SET value = excluded.value`,
    ),
    /** Reserves the next `n` sequences of a stream (tenant, n, n); returns the last of them. */
    bumpStream: db.prepare<[string, number, number], { last_sequence: number }>(
      `INSERT INTO tool_event_streams (tenant, last_sequence) VALUES (?, ? - 1)
       ON CONFLICT (tenant) DO UPDATE SET last_sequence = last_sequence + ?
       RETURNING last_sequence`,
    ),
    insertEvent: db.prepare<[string, string, number, string, string, string, string, string]>(
      `INSERT INTO tool_events (event_id, tenant, sequence, type, timestamp, principal, session_id, payload)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
    ),
    selectSession: db.prepare<[string, string], EventRow>(`SELECT ${EVENT_COLUMNS} FROM tool_events WHERE tenant = ? AND session_id = ? ORDER BY sequence`),
    selectAfter: db.prepare<[string, number, number], EventRow>(`SELECT ${EVENT_COLUMNS} FROM tool_events WHERE tenant = ? AND sequence > ? ORDER BY sequence LIMIT ?`),
    selectLast: db.prepare<[string], { last_sequence: number }>('SELECT last_sequence FROM tool_event_streams WHERE tenant = ?'),
    selectAfterJson: db.prepare<[string, number, number], SerializedEvent>(
      `SELECT sequence, type, ${EVENT_JSON} AS json FROM tool_events WHERE tenant = ? AND sequence > ? ORDER BY sequence LIMIT ?`,
    ),
    selectSessionJson: db
      .prepare<[string, string], string>(`SELECT ${EVENT_JSON} FROM tool_events WHERE tenant = ? AND session_id = ? ORDER BY sequence`)
      .pluck(),
    /** The newest row's timestamp: a commit's is never below it (see "Time order" above). */
    lastTimestamp: db.prepare<[], string>('SELECT timestamp FROM tool_events ORDER BY id DESC LIMIT 1').pluck(),
    /** The first row with lo <= id < hi (retention's binary search). */
    firstFrom: db.prepare<[number, number], { id: number; timestamp: string }>('SELECT id, timestamp FROM tool_events WHERE id >= ? AND id < ? ORDER BY id LIMIT 1'),
    idRange: db.prepare<[], { lo: number | null; hi: number | null }>('SELECT (SELECT min(id) FROM tool_events) AS lo, (SELECT max(id) FROM tool_events) AS hi'),
    pruneBelowId: db.prepare<[number, number]>('DELETE FROM tool_events WHERE id >= ? AND id < ?'),
    /** Rows that may be out of time order, each compared: bounded by `id`, so it reads those rows only. */
    pruneUnorderedOlderThan: db.prepare<[number, string]>('DELETE FROM tool_events WHERE id <= ? AND timestamp < ?'),
    pruneBeyondCount: db.prepare<[number]>('DELETE FROM tool_events WHERE id <= (SELECT id FROM tool_events ORDER BY id DESC LIMIT 1 OFFSET ?)'),
  };
}

export type Statements = ReturnType<typeof prepareStatements>;
