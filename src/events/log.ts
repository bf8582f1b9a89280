// The durable, ordered tool-session event log (CONTRACT.md "Tool sessions";
// seed "Views and sessions"). Every event a tool session produces is appended
// here, to a SQLite database, before the call that produced it goes on.
//
// Event names. We emit the seed's names, `tool.session.opened` and
// `tool.session.closed`. The openwop v2 event code map spells the same two
// events `tool.session-opened` and `tool.session-closed`; a consumer keyed on
// the code map maps one to the other. The call
// events `agent.toolCalled` / `agent.toolReturned` are spelled the same in both.
//
// Streams. Each tenant is one stream: its `sequence` starts at 0 and grows by
// exactly 1 per event of that tenant, so `after=` cursors are tenant-local and
// a tenant never learns how busy another one is. The last sequence of every
// stream lives in its own table (`tool_event_streams`), bumped in the same
// transaction as the insert, so a stream never goes backwards: not across
// restarts, not after retention has pruned every event of a tenant, and not
// when two processes share the file (the bump and the insert run under one
// IMMEDIATE transaction, i.e. under SQLite's write lock).
//
// Durability. `append` is synchronous and returns only after its transaction
// has committed. The database runs in WAL mode with `synchronous=NORMAL`: a
// commit appends the transaction's frames to the `-wal` file with write(2)
// before `append` returns; it does not fsync on every commit (only at
// checkpoints). Data handed to write(2) sits in the operating system's page
// cache, which belongs to the kernel, not to our process, so a killed process
// (SIGKILL, OOM kill, crash) loses nothing that was committed: the next open
// replays the WAL. What NORMAL gives up against FULL is only the last few
// commits on a power loss or kernel crash, and even then the database stays
// consistent (WAL frames are checksummed and a torn tail is discarded).
//
// Faults (src/events/log-health.ts). Before each write, and on a timer while
// idle, the log checks that its file and `-wal` are still the ones it opened
// (device and inode): a deleted or replaced file is `file_lost` for good, and
// nothing more is written into a file no restart would see. Any other failed
// write refuses that append until a write (an append, or the timer's probe)
// succeeds again. `health()` says which; the hooks let the host log and count.
//
// Identity. Each database gets a random `logId` at creation, stored in the
// file: another logId means another log whose streams start again at 0.
// `createIfMissing: false` makes a missing file an error instead.
//
// Content-free. A payload holds identifiers, status and duration only. The log
// enforces it: every event type has a fixed set of payload keys (event-shape.ts) and
// `append` refuses anything else, so arguments, results or credentials cannot
// be logged by accident.
import { existsSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { randomUUID } from 'node:crypto';
import Database from 'better-sqlite3';
import { classifyFailure, FileIdentity, WriteGuard, type AppendFailure, type EventLogHealth } from './log-health.js';
import { checkId, checkPayload, checkRetention, TOOL_EVENT_TYPES, type AppendInput, type SerializedEvent, type ToolEvent, type ToolEventType } from './event-shape.js';

export { EventLogUnavailableError, type AppendFailure, type EventLogHealth } from './log-health.js';
export {
  RETURN_STATUSES,
  SESSION_OUTCOMES,
  TOOL_EVENT_TYPES,
  type AppendInput,
  type ReturnStatus,
  type SerializedEvent,
  type SessionOutcome,
  type ToolEvent,
  type ToolEventType,
} from './event-shape.js';

export interface EventLogOptions {
  /** Events older than this many days are pruned (at open and periodically). Unset: kept by age forever. */
  retentionDays?: number;
  /** At most this many events are kept in the file, all tenants together; the oldest go first. Unset: no cap. */
  maxEvents?: number;
  /** How often retention runs while the log is open (default 60 000 ms). Only matters with a retention option. */
  pruneIntervalMs?: number;
  /** How often the file's identity is checked, and a failing log probed, while no append comes (default 1000 ms). */
  checkIntervalMs?: number;
  /** False: a missing file is an error at open, not a new empty log (default true). */
  createIfMissing?: boolean;
  /** Called for every refused append (after the log's own bookkeeping; a throw here is ignored). */
  onAppendFailure?: (failure: AppendFailure) => void;
  /** Called when the log becomes unwritable or writable again. */
  onHealthChange?: (health: EventLogHealth) => void;
}

const DEFAULT_PRUNE_INTERVAL_MS = 60_000;
const DEFAULT_CHECK_INTERVAL_MS = 1000;
/** How long an append waits for another writer's lock before it is refused as `busy`. */
const BUSY_TIMEOUT_MS = 5000;
const DAY_MS = 86_400_000;
const SCHEMA_VERSION = 1;

interface EventRow {
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

function toEvent(row: EventRow): ToolEvent {
  return {
    eventId: row.event_id,
    type: row.type,
    sequence: row.sequence,
    timestamp: row.timestamp,
    tenant: row.tenant,
    principal: row.principal,
    sessionId: row.session_id,
    payload: JSON.parse(row.payload) as ToolEvent['payload'],
  };
}

export class EventLog {
  private readonly listeners = new Map<string, Set<(e: ToolEvent) => void>>();
  private readonly timer: NodeJS.Timeout | undefined;
  private readonly checkTimer: NodeJS.Timeout | undefined;
  private closed = false;
  private readonly guard: WriteGuard;
  private readonly probe: Database.Statement<[string]>;

  private readonly bumpStream: Database.Statement<[string], { last_sequence: number }>;
  private readonly insertEvent: Database.Statement<[string, string, number, string, string, string, string, string]>;
  private readonly selectSession: Database.Statement<[string, string], EventRow>;
  private readonly selectAfter: Database.Statement<[string, number, number], EventRow>;
  private readonly selectLast: Database.Statement<[string], { last_sequence: number }>;
  private readonly selectAfterJson: Database.Statement<[string, number, number], SerializedEvent>;
  private readonly selectSessionJson: Database.Statement<[string, string], string>;
  private readonly appendTx: (event: AppendInput, eventId: string, timestamp: string) => ToolEvent;

  private constructor(
    private readonly db: Database.Database,
    private readonly options: EventLogOptions,
    /** This log's identity (see the head of this file). */
    readonly logId: string,
    identity: FileIdentity | undefined,
  ) {
    this.guard = new WriteGuard(logId, identity, options);
    this.probe = db.prepare(
      `INSERT INTO tool_event_meta (key, value) VALUES ('lastProbe', ?)
       ON CONFLICT (key) DO UPDATE SET value = excluded.value`,
    );
    this.bumpStream = db.prepare(
      `INSERT INTO tool_event_streams (tenant, last_sequence) VALUES (?, 0)
       ON CONFLICT (tenant) DO UPDATE SET last_sequence = last_sequence + 1
       RETURNING last_sequence`,
    );
    this.insertEvent = db.prepare(
      `INSERT INTO tool_events (event_id, tenant, sequence, type, timestamp, principal, session_id, payload)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    this.selectSession = db.prepare(
      `SELECT event_id, type, sequence, timestamp, tenant, principal, session_id, payload
       FROM tool_events WHERE tenant = ? AND session_id = ? ORDER BY sequence`,
    );
    this.selectAfter = db.prepare(
      `SELECT event_id, type, sequence, timestamp, tenant, principal, session_id, payload
       FROM tool_events WHERE tenant = ? AND sequence > ? ORDER BY sequence LIMIT ?`,
    );
    this.selectLast = db.prepare('SELECT last_sequence FROM tool_event_streams WHERE tenant = ?');
    this.selectAfterJson = db.prepare(
      `SELECT sequence, type, ${EVENT_JSON} AS json
       FROM tool_events WHERE tenant = ? AND sequence > ? ORDER BY sequence LIMIT ?`,
    );
    this.selectSessionJson = db
      .prepare<[string, string], string>(`SELECT ${EVENT_JSON} FROM tool_events WHERE tenant = ? AND session_id = ? ORDER BY sequence`)
      .pluck();
    const tx = db.transaction((event: AppendInput, eventId: string, timestamp: string): ToolEvent => {
      const { last_sequence: sequence } = this.bumpStream.get(event.tenant)!;
      const payload = JSON.stringify(event.payload);
      this.insertEvent.run(eventId, event.tenant, sequence, event.type, timestamp, event.principal, event.sessionId, payload);
      return {
        eventId,
        type: event.type,
        sequence,
        timestamp,
        tenant: event.tenant,
        principal: event.principal,
        sessionId: event.sessionId,
        payload: JSON.parse(payload) as ToolEvent['payload'],
      };
    });
    // IMMEDIATE: take the write lock before reading the stream's last sequence.
    this.appendTx = tx.immediate;

    if (options.retentionDays !== undefined || options.maxEvents !== undefined) {
      this.prune();
      this.timer = setInterval(() => {
        try {
          this.prune();
        } catch {
          // A busy or full disk now is retried at the next tick; appends report their own failures.
        }
      }, options.pruneIntervalMs ?? DEFAULT_PRUNE_INTERVAL_MS);
      this.timer.unref();
    }
    if (identity !== undefined) {
      this.checkTimer = setInterval(() => this.check(), options.checkIntervalMs ?? DEFAULT_CHECK_INTERVAL_MS);
      this.checkTimer.unref();
    }
  }

  /** Opens (creating if needed) the log in `file`, then prunes by the retention options. */
  static open(file: string, options: EventLogOptions = {}): EventLog {
    checkRetention(options);
    const onDisk = file !== ':memory:' && file !== '';
    if (onDisk && options.createIfMissing === false && !existsSync(file)) {
      throw new Error(`${file}: the event log does not exist and events.createIfMissing is false (a deleted log would restart every stream at sequence 0)`);
    }
    if (onDisk) mkdirSync(dirname(file), { recursive: true });
    const db = new Database(file);
    try {
      db.pragma('journal_mode = WAL');
      // See the head of this file: committed data survives a process kill.
      db.pragma('synchronous = NORMAL');
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
        CREATE INDEX IF NOT EXISTS tool_events_time ON tool_events (timestamp);
        CREATE TABLE IF NOT EXISTS tool_event_streams (
          tenant        TEXT PRIMARY KEY,
          last_sequence INTEGER NOT NULL
        ) WITHOUT ROWID;
        CREATE TABLE IF NOT EXISTS tool_event_meta (
          key   TEXT PRIMARY KEY,
          value TEXT NOT NULL
        ) WITHOUT ROWID;
        PRAGMA user_version = ${SCHEMA_VERSION};
      `);
      db.prepare(`INSERT INTO tool_event_meta (key, value) VALUES ('logId', ?) ON CONFLICT (key) DO NOTHING`).run(randomUUID());
      const { value: logId } = db.prepare(`SELECT value FROM tool_event_meta WHERE key = 'logId'`).get() as { value: string };
      return new EventLog(db, options, logId, onDisk ? new FileIdentity(file) : undefined);
    } catch (err) {
      db.close();
      throw err;
    }
  }

  /**
   * Appends one event and returns it with its eventId, sequence and timestamp.
   * Synchronous: when it returns, the event is committed (durable against a
   * process kill) and has been handed to the tenant's subscribers. Throws a
   * TypeError for a payload that is not content-free, and an
   * EventLogUnavailableError when the event could not be stored (nothing is
   * stored then; see "Faults" at the head of this file).
   */
  append(event: AppendInput): ToolEvent {
    if (this.closed) throw new Error('the event log is closed');
    if (!TOOL_EVENT_TYPES.includes(event.type)) throw new TypeError(`unknown event type ${String(event.type)}`);
    checkId('tenant', event.tenant);
    checkId('principal', event.principal);
    checkId('sessionId', event.sessionId);
    checkPayload(event.type, event.sessionId, event.payload);
    this.guard.beforeWrite();
    let stored: ToolEvent;
    try {
      stored = this.appendTx(event, randomUUID(), new Date().toISOString());
    } catch (err) {
      throw this.guard.refuse(classifyFailure(err));
    }
    this.guard.succeeded();
    const listeners = this.listeners.get(stored.tenant);
    if (listeners) {
      for (const listener of [...listeners]) {
        try {
          listener(stored);
        } catch {
          // The event is already durable; one broken subscriber must not fail the
          // call that produced it, nor starve the other subscribers.
        }
      }
    }
    return stored;
  }

  /** Whether events can be written now, and if not why and since when. */
  health(): EventLogHealth {
    return this.guard.health();
  }

  /** The periodic check (see "Faults" above); the timer calls it, and so may a test. */
  check(): void {
    if (this.closed) return;
    this.guard.check(() => {
      // The probe runs on a timer: it must not hold the event loop waiting for another writer's lock.
      this.db.pragma('busy_timeout = 0');
      try {
        this.probe.run(new Date().toISOString());
      } finally {
        this.db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
      }
    });
  }

  /** Every event of one session, in order; [] for an unknown session or another tenant's. */
  readSession(tenant: string, sessionId: string): ToolEvent[] {
    return this.selectSession.all(tenant, sessionId).map(toEvent);
  }

  /** Up to `limit` events of the tenant's stream with sequence > after, ascending. */
  readAfter(tenant: string, after: number, limit: number): ToolEvent[] {
    const n = Math.max(0, Math.floor(limit));
    if (n === 0 || Number.isNaN(after)) return [];
    return this.selectAfter.all(tenant, Math.floor(after), n).map(toEvent);
  }

  /** readSession, each event as its wire JSON text. */
  readSessionSerialized(tenant: string, sessionId: string): string[] {
    return this.selectSessionJson.all(tenant, sessionId);
  }

  /** readAfter, each event as its wire JSON text (with its sequence and type, for cursors and SSE frames). */
  readAfterSerialized(tenant: string, after: number, limit: number): SerializedEvent[] {
    const n = Math.max(0, Math.floor(limit));
    if (n === 0 || Number.isNaN(after)) return [];
    return this.selectAfterJson.all(tenant, Math.floor(after), n);
  }

  /** The tenant stream's last sequence so far (also when retention pruned that event); -1 for an empty stream. */
  lastSequence(tenant: string): number {
    return this.selectLast.get(tenant)?.last_sequence ?? -1;
  }

  /**
   * Calls `listener` synchronously with each event appended to the tenant's
   * stream through this EventLog (not events another process appends to the
   * same file). Returns the unsubscribe function.
   */
  subscribe(tenant: string, listener: (e: ToolEvent) => void): () => void {
    let set = this.listeners.get(tenant);
    if (!set) this.listeners.set(tenant, (set = new Set()));
    const entry = (e: ToolEvent) => listener(e);
    set.add(entry);
    return () => {
      const current = this.listeners.get(tenant);
      if (!current) return;
      current.delete(entry);
      if (current.size === 0) this.listeners.delete(tenant);
    };
  }

  /** How many subscriptions are live (for one tenant, or all). */
  subscriberCount(tenant?: string): number {
    if (tenant !== undefined) return this.listeners.get(tenant)?.size ?? 0;
    let n = 0;
    for (const set of this.listeners.values()) n += set.size;
    return n;
  }

  /**
   * Applies the retention options now and returns how many events were
   * removed. Stream sequences are not affected: a pruned stream goes on from
   * its last sequence.
   */
  prune(now: number = Date.now()): number {
    if (this.closed) return 0;
    let removed = 0;
    const { retentionDays, maxEvents } = this.options;
    if (retentionDays !== undefined) {
      const cutoff = new Date(now - retentionDays * DAY_MS).toISOString();
      removed += this.db.prepare('DELETE FROM tool_events WHERE timestamp < ?').run(cutoff).changes;
    }
    if (maxEvents !== undefined) {
      removed += this.db
        .prepare('DELETE FROM tool_events WHERE id <= (SELECT id FROM tool_events ORDER BY id DESC LIMIT 1 OFFSET ?)')
        .run(maxEvents).changes;
    }
    return removed;
  }

  /** Stops retention, drops every subscription and closes the database. Idempotent. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    if (this.checkTimer) clearInterval(this.checkTimer);
    this.listeners.clear();
    this.db.close();
  }
}
