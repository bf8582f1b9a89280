// The durable, ordered tool-session event log (docs/contract.md "Tool
// sessions"): every event a tool session produces is appended here, to a
// SQLite database, before the call that produced it goes on. How it keeps
// that promise (per-tenant streams, what `events.synchronous` makes durable
// and when, group commit, checkpoints off the event loop, faults, the log's
// identity, content-free payloads) is docs/architecture.md "The SQLite event
// log"; the names used below (DEFERRED_SYNC_MS, write-ahead appends) are
// defined there.
import { existsSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { insertGroupTransaction, type InsertGroup } from './insert-group.js';
import type Database from 'better-sqlite3';
import { sqliteConfigChanges, type ConfigChangeStore } from '../config-changes.js';
import { checkEvent, type AppendInput, type SerializedEvent, type ToolEvent } from '../event-types.js';
import { GroupCommitQueue, type GroupCommitStats, type PendingAppend } from './group-commit.js';
import { classifyFailure, FileIdentity, WriteGuard, type AppendFailure, type EventLogHealth } from '../log-health.js';
import { BUSY_TIMEOUT_MS, clearUnordered, openDatabase, prepareStatements, type EventRow, type Statements } from './schema.js';
import { pruneOlderThan } from './prune-by-age.js';
import { EventStoreOpenError, type AppendOptions, type EventStore } from '../store.js';
import { checkOptions, type EventLogOptions } from '../log-options.js';
import { Subscribers } from '../subscribers.js';
import { sqliteGrantTable, type GrantTable } from '../grant-table.js';
import { WalSync } from './wal-sync.js';
import { CHECKPOINT_FRAMES, CheckpointWorker, type CheckpointFailure } from './checkpointer.js';

export { EventLogUnavailableError, type AppendFailure, type EventLogHealth } from '../log-health.js';
export * from '../event-types.js';
export type { GroupCommitStats, GroupTrigger } from './group-commit.js';
export type { EventLogOptions, EventSynchronous } from '../log-options.js';

const DEFAULT_PRUNE_INTERVAL_MS = 60_000;
const DEFAULT_CHECK_INTERVAL_MS = 1000;
/** The longest a committed write-ahead record waits for its fsync under `full` (docs/architecture.md, "Durability"). */
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

export class EventLog implements EventStore {
  readonly configChanges: ConfigChangeStore;
  private readonly timer: NodeJS.Timeout | undefined;
  private readonly checkTimer: NodeJS.Timeout;
  private deferredSync: NodeJS.Timeout | undefined;
  private closed = false;
  private readonly guard: WriteGuard;
  private readonly sql: Statements;
  private readonly queue: GroupCommitQueue;
  private readonly subscribers: Subscribers;
  private readonly insertGroup: InsertGroup;
  /** fdatasync of the WAL off the event loop; undefined under `normal` and for a database in memory. */
  private readonly walSync: WalSync | undefined;
  /** Committed frames not yet fsync'd (write-ahead groups under `full`). */
  private unsynced = false;
  private readonly counts: GroupCommitStats = { groups: 0, appends: 0, events: 0, syncedGroups: 0, deferredSyncs: 0 };
  /** WAL checkpoints in a worker thread (docs/architecture.md, "Checkpoints"); undefined for a database in memory and under `checkpoints: 'inline'`. */
  private readonly checkpointer: CheckpointWorker | undefined;
  private checkpointFault: { error: string; since: string } | undefined;

  private constructor(
    private readonly db: Database.Database,
    private readonly options: EventLogOptions,
    /** This log's identity (docs/architecture.md, "Identity"). */
    readonly logId: string,
    /** The last id whose row may be out of time order (schema.ts "Time order"); undefined once none is left. */
    private unorderedThrough: number | undefined,
    identity: FileIdentity | undefined,
    file: string | undefined,
  ) {
    this.guard = new WriteGuard(logId, identity, options);
    this.sql = prepareStatements(db);
    this.configChanges = sqliteConfigChanges(db);
    this.queue = new GroupCommitQueue((group) => this.commitGroup(group), options.groupTrigger);
    this.subscribers = new Subscribers(
      (tenant) => this.lastSequenceNow(tenant),
      (tenant, after, limit) => this.sql.selectAfter.all(tenant, after, limit).map(toEvent),
    );
    this.insertGroup = insertGroupTransaction(db, this.sql);
    // Every commit only writes; what `full` adds is the log's own fdatasync (docs/architecture.md, "Durability").
    db.pragma('synchronous = NORMAL');
    this.walSync = file !== undefined && options.synchronous !== 'normal' ? new WalSync(`${file}-wal`) : undefined;

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
    // Last: nothing after it may throw and leave the thread behind.
    if (file !== undefined && options.checkpoints !== 'inline') {
      db.pragma('wal_autocheckpoint = 0');
      // A burst the worker did not keep up with (its start, a slow disk) leaves no larger file behind once the WAL starts again.
      const pageSize = db.pragma('page_size', { simple: true }) as number;
      db.pragma(`journal_size_limit = ${4 * (options.checkpointFrames ?? CHECKPOINT_FRAMES) * pageSize}`);
      this.checkpointer = new CheckpointWorker(file, (failure) => this.checkpointsFailed(failure), this.queue, options.checkpointFrames);
    }
  }

  /** Opens (creating if needed) the log in `file`, then prunes by the retention options. */
  static open(file: string, options: EventLogOptions = {}): EventLog {
    checkOptions(options);
    const onDisk = file !== ':memory:' && file !== '';
    if (onDisk && options.createIfMissing === false && !existsSync(file)) {
      throw new EventStoreOpenError(`${file}: the event log does not exist and events.createIfMissing is false (a deleted log would restart every stream at sequence 0)`);
    }
    if (onDisk) mkdirSync(dirname(file), { recursive: true });
    const { db, logId, unorderedThrough } = openDatabase(file);
    try {
      return new EventLog(db, options, logId, unorderedThrough, onDisk ? new FileIdentity(file) : undefined, onDisk ? file : undefined);
    } catch (err) {
      db.close();
      throw err;
    }
  }

  /**
   * Appends the events as one commit, shared with every other append queued
   * in the same turn (docs/architecture.md, "Group commit"), and resolves to them with
   * their eventId, sequence and timestamp once that commit is done (and
   * fsync'd, see "Durability"). Rejects with a TypeError for an event that
   * is not content-free (nothing of this append is queued then), and with an
   * EventLogUnavailableError when the group could not be stored (nothing of
   * it is stored; see docs/architecture.md, "Faults").
   */
  append(events: readonly AppendInput[], options: AppendOptions = {}): Promise<ToolEvent[]> {
    if (this.closed) return Promise.reject(new Error('the event log is closed'));
    // A copy, checked: what the caller does with its objects while the append is queued changes nothing stored.
    let queued: AppendInput[];
    try {
      queued = events.map((e) => ({ type: e.type, tenant: e.tenant, principal: e.principal, sessionId: e.sessionId, payload: { ...e.payload } }));
      for (const event of queued) checkEvent(event);
    } catch (err) {
      return Promise.reject(err);
    }
    if (queued.length === 0) return Promise.resolve([]);
    return new Promise((resolve, reject) => this.queue.enqueue({ events: queued, writeAhead: options.writeAhead === true, resolve, reject }));
  }

  /** How appends have been grouped into commits since the log was opened. */
  groupStats(): GroupCommitStats {
    return { ...this.counts, deferredSyncPending: this.deferredSync !== undefined, ...this.checkpointer?.stats };
  }

  /** The checkpoint worker failed and was ended: SQLite's own checkpoints take over, in the commits (docs/architecture.md, "Checkpoints"). */
  private checkpointsFailed(failure: CheckpointFailure): void {
    this.checkpointFault = { error: `${failure.code}: ${failure.message}`, since: new Date().toISOString() };
    if (this.closed) return;
    try {
      this.options.onCheckpointFailure?.(failure);
    } catch {
      // A hook's throw must not stop the fallback below.
    }
    try {
      this.db.pragma(`wal_autocheckpoint = ${CHECKPOINT_FRAMES}`);
    } catch {
      // The next commit reports a failing database itself.
    }
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
    let stored: ToolEvent[][];
    try {
      stored = this.insertGroup(group);
    } catch (err) {
      return refuseAll(classifyFailure(err));
    }
    this.counts.groups++;
    this.counts.appends += group.length;
    let events = 0;
    for (const appended of stored) {
      events += appended.length;
      this.subscribers.deliver(appended);
    }
    this.counts.events += events;
    this.checkpointer?.committed(events);
    const settle = () => {
      this.guard.succeeded();
      group.forEach((pending, i) => pending.resolve(stored[i]));
    };
    if (this.walSync === undefined) return settle();
    if (group.every((p) => p.writeAhead)) {
      this.unsynced = true;
      this.deferredSync ??= setTimeout(() => this.syncDeferred(), DEFERRED_SYNC_MS);
      return settle();
    }
    // This sync covers every frame written so far, write-ahead ones included.
    this.unsynced = false;
    clearTimeout(this.deferredSync);
    this.deferredSync = undefined;
    this.counts.syncedGroups++;
    this.walSync.request().then(settle, (err: unknown) => refuseAll(classifyFailure(err)));
  }

  /** Makes committed write-ahead frames durable when no ordinary commit has done it in time. */
  private syncDeferred(): void {
    this.deferredSync = undefined;
    if (!this.unsynced || this.closed || this.walSync === undefined) return;
    this.unsynced = false;
    this.counts.deferredSyncs++;
    this.walSync.request().catch(() => {
      // Retried shortly; the next ordinary commit reports a failing disk itself.
      this.unsynced = true;
      if (!this.closed) this.deferredSync ??= setTimeout(() => this.syncDeferred(), DEFERRED_SYNC_MS);
    });
  }

  /** Whether events can be written now, and if not why and since when. */
  health(): EventLogHealth {
    const health = this.guard.health();
    if (this.checkpointFault) health.checkpoints = { thread: 'main', ...this.checkpointFault };
    return health;
  }

  /** The periodic check (docs/architecture.md, "Faults"), and delivery of other writers' events; the timer calls it, and so may a test. */
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
    if (retentionDays !== undefined) removed += pruneOlderThan(this.sql, new Date(now - retentionDays * DAY_MS).toISOString(), this.unorderedThrough);
    if (maxEvents !== undefined) removed += this.sql.pruneBeyondCount.run(maxEvents).changes;
    if (this.unorderedThrough !== undefined && removed > 0) {
      const { lo } = this.sql.idRange.get()!;
      if (lo === null || lo > this.unorderedThrough) {
        clearUnordered(this.db);
        this.unorderedThrough = undefined;
      }
    }
    return removed;
  }

  private grantTable?: GrantTable;

  /** Upstream credentials, in this log's file (grant-table.ts). */
  grants(): GrantTable {
    this.grantTable ??= sqliteGrantTable(this.db);
    return this.grantTable;
  }

  /**
   * Commits what is still queued, then stops the timers, drops every
   * subscription and closes the database (a clean close checkpoints the WAL,
   * which fsyncs it). Idempotent.
   */
  async close(): Promise<void> {
    if (this.closed) return;
    this.queue.flush();
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    clearInterval(this.checkTimer);
    clearTimeout(this.deferredSync);
    this.subscribers.clear();
    // Closed before the worker's connection: the last one to close checkpoints the WAL, off the event loop.
    this.db.close();
    await this.checkpointer?.close();
    await this.walSync?.close();
  }
}
