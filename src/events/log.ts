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
// Durability. The database runs in WAL mode. `append` resolves only after its
// transaction has committed: the transaction's frames have been appended to
// the `-wal` file with write(2). Data handed to write(2) sits in the page
// cache, which belongs to the kernel, not to our process, so a killed process
// (SIGKILL, OOM kill, crash) loses nothing committed: the next open replays
// the WAL. What reaches the disk before `append` resolves is `synchronous`
// (`events.synchronous`):
// - `full` (the default): a commit holding any ordinary append runs with
//   SQLite's synchronous=FULL: the WAL is fsync'd (fdatasync) before the
//   commit returns, so an acknowledged event survives a power loss or kernel
//   crash. The WAL is one file written in order, so that fsync also covers
//   every frame written before it, by any connection or process.
//   A write-ahead append (`{ writeAhead: true }`: a call's record made before
//   its tool runs, see session.ts) is committed with synchronous=NORMAL:
//   written, not yet fsync'd. It is fsync'd by the next ordinary commit (its
//   call's answer record at the latest) or by a sync DEFERRED_SYNC_MS after
//   its commit, whichever comes first. So a power loss loses no event of a
//   call whose answer went out, and at most the write-ahead records of calls
//   started in the last DEFERRED_SYNC_MS whose answers had not gone out.
// - `normal`: every commit runs with synchronous=NORMAL; the WAL is fsync'd
//   only at checkpoints. A process kill still loses nothing committed; a
//   power loss or kernel crash may lose the last commits, acknowledged ones
//   included.
// Either way the file stays consistent (WAL frames are checksummed and a torn
// tail is discarded), and readers (GET /events, subscribers) see an event
// once it is committed, which for a write-ahead record under `full` is up to
// DEFERRED_SYNC_MS before it is on disk: after a power loss in that window,
// its sequence number is handed out again to another event.
//
// Group commit (group-commit.ts). One fsync costs far more than the rows it
// makes durable, so appends are queued and the queue is committed as one
// IMMEDIATE transaction on a later turn of the event loop: concurrent calls
// share one commit and one fsync; each caller's promise settles after it.
// A group is stored all or none: if its transaction fails, every append in
// it is refused. Subscribers get the events after the commit, once each, in
// sequence order (subscribers.ts).
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
// enforces it: every event type has a fixed set of payload keys (below) and
// `append` refuses anything else, so arguments, results or credentials cannot
// be logged by accident.
import { existsSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { randomUUID } from 'node:crypto';
import type Database from 'better-sqlite3';
import { checkEvent, type AppendInput, type SerializedEvent, type ToolEvent } from './event-types.js';
import { GroupCommitQueue, type GroupCommitStats, type GroupTrigger, type PendingAppend } from './group-commit.js';
import { classifyFailure, FileIdentity, WriteGuard, type AppendFailure, type EventLogHealth } from './log-health.js';
import { BUSY_TIMEOUT_MS, openDatabase, prepareStatements, type EventRow, type Statements } from './sqlite-schema.js';
import type { AppendOptions, EventStore } from './store.js';
import { Subscribers } from './subscribers.js';

export { EventLogUnavailableError, type AppendFailure, type EventLogHealth } from './log-health.js';
export * from './event-types.js';
export type { GroupCommitStats, GroupTrigger } from './group-commit.js';

/** What is fsync'd before an append resolves (see "Durability" above). */
export type EventSynchronous = 'full' | 'normal';

export interface EventLogOptions {
  /** `full` (default): fsync'd before append resolves; `normal`: fsync'd only at checkpoints. */
  synchronous?: EventSynchronous;
  /** When queued appends are committed (group-commit.ts; default `immediate`). */
  groupTrigger?: GroupTrigger;
  /** Events older than this many days are pruned (at open and periodically). Unset: kept by age forever. */
  retentionDays?: number;
  /** At most this many events are kept in the file, all tenants together; the oldest go first. Unset: no cap. */
  maxEvents?: number;
  /** How often retention runs while the log is open (default 60 000 ms). Only matters with a retention option. */
  pruneIntervalMs?: number;
  /** How often the file's identity is checked, a failing log probed and other writers' events delivered, while no append comes (default 1000 ms). */
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
/** The longest a committed write-ahead record waits for its fsync under `full` (see "Durability" above). */
export const DEFERRED_SYNC_MS = 10;
const DAY_MS = 86_400_000;

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

/** Refuses option values no store could honour (the PostgreSQL store checks its retention options here too). */
export function checkOptions(options: EventLogOptions): void {
  const { retentionDays, maxEvents, pruneIntervalMs, checkIntervalMs, synchronous, groupTrigger } = options;
  if (retentionDays !== undefined && !(typeof retentionDays === 'number' && Number.isFinite(retentionDays) && retentionDays > 0)) {
    throw new RangeError('retentionDays must be a positive number');
  }
  if (maxEvents !== undefined && !(Number.isSafeInteger(maxEvents) && maxEvents > 0)) throw new RangeError('maxEvents must be a positive integer');
  if (pruneIntervalMs !== undefined && !(Number.isSafeInteger(pruneIntervalMs) && pruneIntervalMs > 0)) throw new RangeError('pruneIntervalMs must be a positive integer');
  if (checkIntervalMs !== undefined && !(Number.isSafeInteger(checkIntervalMs) && checkIntervalMs > 0)) throw new RangeError('checkIntervalMs must be a positive integer');
  if (synchronous !== undefined && synchronous !== 'full' && synchronous !== 'normal') throw new RangeError('synchronous must be "full" or "normal"');
  if (groupTrigger !== undefined && groupTrigger !== 'immediate' && groupTrigger !== 'microtask') throw new RangeError('groupTrigger must be "immediate" or "microtask"');
}

export class EventLog implements EventStore {
  private readonly timer: NodeJS.Timeout | undefined;
  private readonly checkTimer: NodeJS.Timeout;
  private deferredSync: NodeJS.Timeout | undefined;
  private closed = false;
  private readonly guard: WriteGuard;
  private readonly sql: Statements;
  private readonly queue: GroupCommitQueue;
  private readonly subscribers: Subscribers;
  private readonly insertGroup: (group: readonly PendingAppend[], timestamp: string) => ToolEvent[][];
  /** The connection's current synchronous setting, switched per group under `full`. */
  private syncMode: 'FULL' | 'NORMAL' | undefined;
  /** Committed frames not yet fsync'd (write-ahead groups under `full`). */
  private unsynced = false;
  private readonly counts: GroupCommitStats = { groups: 0, appends: 0, events: 0, syncedGroups: 0 };

  private constructor(
    private readonly db: Database.Database,
    private readonly options: EventLogOptions,
    /** This log's identity (see the head of this file). */
    readonly logId: string,
    identity: FileIdentity | undefined,
  ) {
    this.guard = new WriteGuard(logId, identity, options);
    this.sql = prepareStatements(db);
    this.queue = new GroupCommitQueue((group) => this.commitGroup(group), options.groupTrigger);
    this.subscribers = new Subscribers(
      (tenant) => this.lastSequenceNow(tenant),
      (tenant, after, limit) => this.sql.selectAfter.all(tenant, after, limit).map(toEvent),
    );
    const { bumpStream, insertEvent } = this.sql;
    const tx = db.transaction((group: readonly PendingAppend[], timestamp: string): ToolEvent[][] =>
      group.map((pending) =>
        pending.events.map((event) => {
          const { last_sequence: sequence } = bumpStream.get(event.tenant)!;
          const eventId = randomUUID();
          const payload = JSON.stringify(event.payload);
          insertEvent.run(eventId, event.tenant, sequence, event.type, timestamp, event.principal, event.sessionId, payload);
          return { eventId, type: event.type, sequence, timestamp, tenant: event.tenant, principal: event.principal, sessionId: event.sessionId, payload: JSON.parse(payload) as ToolEvent['payload'] };
        }),
      ),
    );
    // IMMEDIATE: take the write lock before reading the streams' last sequences.
    this.insertGroup = tx.immediate;
    this.setSync(options.synchronous === 'normal' ? 'NORMAL' : 'FULL');

    if (options.retentionDays !== undefined || options.maxEvents !== undefined) {
      this.pruneNow();
      this.timer = setInterval(() => {
        try {
          this.pruneNow();
        } catch {
          // A busy or full disk now is retried at the next tick; appends report their own failures.
        }
      }, options.pruneIntervalMs ?? DEFAULT_PRUNE_INTERVAL_MS);
      this.timer.unref();
    }
    this.checkTimer = setInterval(() => this.check(), options.checkIntervalMs ?? DEFAULT_CHECK_INTERVAL_MS);
    this.checkTimer.unref();
  }

  /** Opens (creating if needed) the log in `file`, then prunes by the retention options. */
  static open(file: string, options: EventLogOptions = {}): EventLog {
    checkOptions(options);
    const onDisk = file !== ':memory:' && file !== '';
    if (onDisk && options.createIfMissing === false && !existsSync(file)) {
      throw new Error(`${file}: the event log does not exist and events.createIfMissing is false (a deleted log would restart every stream at sequence 0)`);
    }
    if (onDisk) mkdirSync(dirname(file), { recursive: true });
    const { db, logId } = openDatabase(file);
    try {
      return new EventLog(db, options, logId, onDisk ? new FileIdentity(file) : undefined);
    } catch (err) {
      db.close();
      throw err;
    }
  }

  /**
   * Appends the events as one commit, shared with every other append queued
   * in the same turn (see "Group commit" above), and resolves to them with
   * their eventId, sequence and timestamp once that commit is done (and
   * fsync'd, see "Durability"). Rejects with a TypeError for an event that
   * is not content-free (nothing of this append is queued then), and with an
   * EventLogUnavailableError when the group could not be stored (nothing of
   * it is stored; see "Faults" above).
   */
  append(events: readonly AppendInput[], options: AppendOptions = {}): Promise<ToolEvent[]> {
    if (this.closed) return Promise.reject(new Error('the event log is closed'));
    try {
      for (const event of events) checkEvent(event);
    } catch (err) {
      return Promise.reject(err);
    }
    if (events.length === 0) return Promise.resolve([]);
    // A copy: what the caller does with its array after this does not change what is stored.
    const queued = events.map((e) => ({ type: e.type, tenant: e.tenant, principal: e.principal, sessionId: e.sessionId, payload: { ...e.payload } }));
    return new Promise((resolve, reject) => this.queue.enqueue({ events: queued, writeAhead: options.writeAhead === true, resolve, reject }));
  }

  /** How appends have been grouped into commits since the log was opened. */
  groupStats(): GroupCommitStats {
    return { ...this.counts };
  }

  private commitGroup(group: PendingAppend[]): void {
    const refuseAll = (failure: AppendFailure) => {
      for (const pending of group) pending.reject(this.guard.refuse(failure));
    };
    if (this.closed) {
      for (const pending of group) pending.reject(new Error('the event log is closed'));
      return;
    }
    const lost = this.guard.lostFile();
    if (lost) return refuseAll(lost);
    const durable = this.options.synchronous !== 'normal' && group.some((p) => !p.writeAhead);
    let stored: ToolEvent[][];
    try {
      if (this.options.synchronous !== 'normal') this.setSync(durable ? 'FULL' : 'NORMAL');
      stored = this.insertGroup(group, new Date().toISOString());
    } catch (err) {
      return refuseAll(classifyFailure(err));
    }
    this.guard.succeeded();
    this.counts.groups++;
    this.counts.appends += group.length;
    if (durable) {
      this.counts.syncedGroups++;
      this.unsynced = false;
      clearTimeout(this.deferredSync);
      this.deferredSync = undefined;
    } else if (this.options.synchronous !== 'normal') {
      this.unsynced = true;
      this.deferredSync ??= setTimeout(() => this.syncDeferred(), DEFERRED_SYNC_MS);
    }
    for (const events of stored) {
      this.counts.events += events.length;
      this.subscribers.deliver(events);
    }
    group.forEach((pending, i) => pending.resolve(stored[i]));
  }

  /** Makes committed write-ahead frames durable when no ordinary commit has done it in time. */
  private syncDeferred(): void {
    this.deferredSync = undefined;
    if (!this.unsynced || this.closed) return;
    try {
      this.setSync('FULL');
      this.sql.probe.run(new Date().toISOString());
      this.unsynced = false;
    } catch {
      // Retried shortly; an append meanwhile reports the fault itself.
      this.deferredSync = setTimeout(() => this.syncDeferred(), DEFERRED_SYNC_MS);
    }
  }

  private setSync(mode: 'FULL' | 'NORMAL'): void {
    if (this.syncMode === mode) return;
    this.db.pragma(`synchronous = ${mode}`);
    this.syncMode = mode;
  }

  /** Whether events can be written now, and if not why and since when. */
  health(): EventLogHealth {
    return this.guard.health();
  }

  /** The periodic check (see "Faults" above), and delivery of other writers' events; the timer calls it, and so may a test. */
  check(): void {
    if (this.closed) return;
    this.guard.check(() => {
      // The probe runs on a timer: it must not hold the event loop waiting for another writer's lock.
      this.db.pragma('busy_timeout = 0');
      try {
        this.sql.probe.run(new Date().toISOString());
      } finally {
        this.db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
      }
    });
    try {
      this.subscribers.catchUp();
    } catch {
      // A read failing now is retried at the next tick.
    }
  }

  /** Every event of one session, in order; [] for an unknown session or another tenant's. */
  async readSession(tenant: string, sessionId: string): Promise<ToolEvent[]> {
    return this.sql.selectSession.all(tenant, sessionId).map(toEvent);
  }

  /** Up to `limit` events of the tenant's stream with sequence > after, ascending. */
  async readAfter(tenant: string, after: number, limit: number): Promise<ToolEvent[]> {
    const n = Math.max(0, Math.floor(limit));
    if (n === 0 || Number.isNaN(after)) return [];
    return this.sql.selectAfter.all(tenant, Math.floor(after), n).map(toEvent);
  }

  /** readSession, each event as its wire JSON text. */
  async readSessionSerialized(tenant: string, sessionId: string): Promise<string[]> {
    return this.sql.selectSessionJson.all(tenant, sessionId);
  }

  /** readAfter, each event as its wire JSON text (with its sequence and type, for cursors and SSE frames). */
  async readAfterSerialized(tenant: string, after: number, limit: number): Promise<SerializedEvent[]> {
    const n = Math.max(0, Math.floor(limit));
    if (n === 0 || Number.isNaN(after)) return [];
    return this.sql.selectAfterJson.all(tenant, Math.floor(after), n);
  }

  /** The tenant stream's last sequence so far (also when retention pruned that event); -1 for an empty stream. */
  async lastSequence(tenant: string): Promise<number> {
    return this.lastSequenceNow(tenant);
  }

  private lastSequenceNow(tenant: string): number {
    return this.sql.selectLast.get(tenant)?.last_sequence ?? -1;
  }

  /**
   * Calls `listener` with each event of the tenant's stream committed after
   * this call, once each, in sequence order: this log's appends right after
   * their commit, another process's (same file) when this log next commits or
   * checks (every checkIntervalMs). Returns the unsubscribe function.
   */
  subscribe(tenant: string, listener: (e: ToolEvent) => void): () => void {
    return this.subscribers.add(tenant, listener);
  }

  /** How many subscriptions are live (for one tenant, or all). */
  subscriberCount(tenant?: string): number {
    return this.subscribers.count(tenant);
  }

  /**
   * Applies the retention options now and resolves to how many events were
   * removed. Stream sequences are not affected: a pruned stream goes on from
   * its last sequence.
   */
  async prune(now: number = Date.now()): Promise<number> {
    return this.pruneNow(now);
  }

  private pruneNow(now: number = Date.now()): number {
    if (this.closed) return 0;
    let removed = 0;
    const { retentionDays, maxEvents } = this.options;
    if (retentionDays !== undefined) removed += this.sql.pruneOlderThan.run(new Date(now - retentionDays * DAY_MS).toISOString()).changes;
    if (maxEvents !== undefined) removed += this.sql.pruneBeyondCount.run(maxEvents).changes;
    return removed;
  }

  /**
   * Commits what is still queued, then stops the timers, drops every
   * subscription and closes the database (a clean close checkpoints the WAL,
   * which fsyncs it). Idempotent.
   */
  async close(): Promise<void> {
    this.closeNow();
  }

  private closeNow(): void {
    if (this.closed) return;
    this.queue.flush();
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    clearInterval(this.checkTimer);
    clearTimeout(this.deferredSync);
    this.subscribers.clear();
    this.db.close();
  }
}
