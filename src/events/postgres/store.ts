// The tool-session event store in PostgreSQL, shared by every replica of the
// host (docs/contract.md "Tool sessions": a durable, ordered, per-tenant log; the
// guarantees are listed in store.ts and are the SQLite log's, log.ts).
//
// Sequences. Each tenant's stream row (`toolhost_event_streams`) holds its last
// sequence. An append is one statement, hence one transaction: it upserts the
// stream rows of the tenants it touches, in tenant order, `RETURNING` the new
// last sequences, inserts the events numbered below them, and notifies. The
// row lock serializes one tenant's appenders across every replica, so the
// stream has no gap and no duplicate, and its events commit in sequence order;
// taking the locks in one order keeps two batches from deadlocking (a deadlock
// or serialization failure, which PostgreSQL rolls back, is retried).
//
// Group commit. Appends that arrive while a commit is on the wire are queued
// and go together in the next statement (up to MAX_BATCH events): one round
// trip and one WAL flush for many callers, each promise resolved after that
// commit. With `synchronous_commit` at its default (on), a commit is flushed
// to the server's WAL before the server answers, so an acknowledged event
// survives a crash of the database server.
//
// Wire JSON. Each event's JSON is made here, with JSON.stringify of the same
// object the SQLite log serializes, and stored as text; the statement only
// splices the sequence in. Reads serve the stored bytes.
//
// Faults. A timer probes the server (`SELECT 1`, its round trip shown in
// health). While the server cannot be reached, health says `unreachable` and
// appends are refused at once with EventLogUnavailableError (no call waits
// for a connect timeout); the probe clears it by itself when the server
// answers again. Any other refused append is tried again by the next append.
// A commit whose answer is lost (the connection dropped during it) is refused
// although it may have committed: no event is ever acknowledged without being
// committed, but a refused one can exist. Reads while unreachable reject with
// EventLogUnavailableError too. No error, log line or health field carries the
// connection URL or its password.
import pg from 'pg';
import { checkEvent, type AppendInput, type SerializedEvent, type ToolEvent } from '../event-types.js';
import { checkOptions, type EventLogOptions } from '../log-options.js';
import { EventLogUnavailableError, WriteGuard, type AppendFailure, type DatabaseHealth, type EventLogHealth, type WriteGuardHooks } from '../log-health.js';
import { commitEvents } from './append.js';
import { LiveFeed } from './feed.js';
import { classifyPgFailure, describeServer, scrubber } from './errors.js';
import { migrate } from './schema.js';
import { postgresConfigChanges, type ConfigChangeStore } from '../config-changes.js';
import { EventStoreOpenError, type EventStore } from '../store.js';

export { EventStoreOpenError };
import type { GrantTable } from '../grant-table.js';
import { postgresGrantTable } from './grant-table.js';

/** The retention and probe options mean what they mean for the SQLite log (log.ts). */
export interface PostgresEventStoreOptions extends Pick<EventLogOptions, 'retentionDays' | 'maxEvents' | 'pruneIntervalMs' | 'checkIntervalMs'>, WriteGuardHooks {
  /** postgres://user:password@host:port/database?…: resolved, never logged. */
  url: string;
  /** Connections in the pool (default 10), plus one for LISTEN. */
  poolSize?: number;
  /** The NOTIFY channel every replica listens on (default `toolhost_events`). */
  channel?: string;
  /** The safety-net read of every subscribed stream (default 1000 ms). */
  pollIntervalMs?: number;
  /** How long getting a connection may take before the server counts as unreachable (default 3000 ms). */
  connectTimeoutMs?: number;
}


export const DEFAULT_CHANNEL = 'toolhost_events';
const DEFAULT_POOL_SIZE = 10;
const DEFAULT_POLL_INTERVAL_MS = 1000;
const DEFAULT_CHECK_INTERVAL_MS = 1000;
const DEFAULT_PRUNE_INTERVAL_MS = 60_000;
const DEFAULT_CONNECT_TIMEOUT_MS = 3000;
/** Events per statement at most; more waiting go in the next one. */
const MAX_BATCH = 1000;
const DAY_MS = 86_400_000;


interface Pending {
  events: readonly AppendInput[];
  resolve: (stored: ToolEvent[]) => void;
  reject: (err: unknown) => void;
}

export class PostgresEventStore implements EventStore {
  readonly configChanges: ConfigChangeStore;
  private readonly guard: WriteGuard;
  private readonly queue: Pending[] = [];
  private committing = false;
  private probing = false;
  private closed = false;
  private readonly timers: NodeJS.Timeout[] = [];
  private database: DatabaseHealth;
  private readonly scrub: (text: string) => string;

  private constructor(
    private readonly pool: pg.Pool,
    private readonly feed: LiveFeed,
    private readonly options: PostgresEventStoreOptions,
    /** The log's identity, the same on every replica (postgres/schema.ts). */
    readonly logId: string,
    server: string,
  ) {
    this.scrub = scrubber(options.url);
    this.configChanges = postgresConfigChanges(pool);
    this.guard = new WriteGuard(logId, undefined, options);
    this.database = { engine: 'postgres', server, state: 'reachable', checkedAt: new Date().toISOString() };
    const check = setInterval(() => void this.check(), options.checkIntervalMs ?? DEFAULT_CHECK_INTERVAL_MS);
    check.unref();
    this.timers.push(check);
    if (options.retentionDays !== undefined || options.maxEvents !== undefined) {
      const prune = setInterval(() => void this.prune().catch(() => {}), options.pruneIntervalMs ?? DEFAULT_PRUNE_INTERVAL_MS);
      prune.unref();
      this.timers.push(prune);
    }
  }

  /** Connects, migrates (once across replicas), starts listening and prunes; rejects when the server cannot be reached. */
  static async open(options: PostgresEventStoreOptions): Promise<PostgresEventStore> {
    checkOptions(options);
    const channel = options.channel ?? DEFAULT_CHANNEL;
    if (!/^[a-z_][a-z0-9_]{0,62}$/.test(channel)) throw new RangeError('channel must be a lower-case SQL identifier of at most 63 characters');
    const scrub = scrubber(options.url);
    const server = describeServer(options.url);
    const config: pg.PoolConfig = {
      connectionString: options.url,
      max: options.poolSize ?? DEFAULT_POOL_SIZE,
      connectionTimeoutMillis: options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS,
      application_name: 'toolhost',
    };
    const pool = new pg.Pool(config);
    // An idle connection the server dropped: the pool discards it; the probe reports the outage.
    pool.on('error', () => {});
    let feed: LiveFeed | undefined;
    try {
      const { logId } = await migrate(pool);
      feed = new LiveFeed({
        channel,
        pollIntervalMs: options.pollIntervalMs ?? DEFAULT_POLL_INTERVAL_MS,
        connect: () => new pg.Client({ connectionString: options.url, connectionTimeoutMillis: config.connectionTimeoutMillis, application_name: 'toolhost-listen' }),
        readAfter: (tenant, after, limit) => readAfter(pool, tenant, after, limit),
        readStreams: async () => (await pool.query<{ tenant: string; last: number }>('SELECT tenant, last_sequence::float8 AS last FROM toolhost_event_streams')).rows,
      });
      await feed.start();
      const store = new PostgresEventStore(pool, feed, { ...options, channel }, logId, server);
      await store.prune();
      return store;
    } catch (err) {
      await feed?.close();
      await pool.end().catch(() => {});
      throw new EventStoreOpenError(`event store ${server}: ${scrub(err instanceof Error ? err.message : String(err))}`);
    }
  }

  append(events: readonly AppendInput[]): Promise<ToolEvent[]> {
    if (this.closed) return Promise.reject(new Error('the event store is closed'));
    try {
      for (const event of events) checkEvent(event);
    } catch (err) {
      return Promise.reject(err);
    }
    if (events.length === 0) return Promise.resolve([]);
    const current = this.guard.health();
    if (current.reason === 'unreachable') {
      return Promise.reject(this.guard.refuse({ reason: 'unreachable', code: 'UNREACHABLE', message: current.error ?? 'the database cannot be reached' }));
    }
    return new Promise((resolve, reject) => {
      this.queue.push({ events, resolve, reject });
      if (!this.committing) queueMicrotask(() => void this.commitQueued());
    });
  }

  /** Commits what is queued, a batch at a time, until the queue is empty. */
  private async commitQueued(): Promise<void> {
    if (this.committing) return;
    this.committing = true;
    try {
      while (this.queue.length > 0) {
        const batch: Pending[] = [];
        let size = 0;
        while (this.queue.length > 0 && (batch.length === 0 || size + this.queue[0].events.length <= MAX_BATCH)) {
          const next = this.queue.shift()!;
          batch.push(next);
          size += next.events.length;
        }
        await this.commitBatch(batch);
      }
    } finally {
      this.committing = false;
    }
  }

  private async commitBatch(batch: Pending[]): Promise<void> {
    let stored: ToolEvent[][];
    try {
      stored = await commitEvents(this.pool, batch.map((p) => p.events), this.options.channel!);
    } catch (err) {
      const failure = this.classify(err);
      for (const p of batch) p.reject(this.guard.refuse(failure));
      return;
    }
    this.guard.succeeded();
    batch.forEach((p, i) => p.resolve(stored[i]));
    const byTenant = new Map<string, ToolEvent[]>();
    for (const e of stored.flat()) {
      const list = byTenant.get(e.tenant);
      if (list) list.push(e);
      else byTenant.set(e.tenant, [e]);
    }
    for (const [tenant, events] of byTenant) this.feed.appended(tenant, events);
  }

  private classify(err: unknown): AppendFailure {
    const failure = classifyPgFailure(err);
    return { ...failure, message: this.scrub(failure.message) };
  }

  /** A read that failed: unreachable marks the store so; every failure rejects with EventLogUnavailableError. */
  private async reading<T>(run: () => Promise<T>): Promise<T> {
    if (this.closed) throw new Error('the event store is closed');
    try {
      return await run();
    } catch (err) {
      const failure = this.classify(err);
      if (failure.reason === 'unreachable') this.guard.failing(failure);
      throw new EventLogUnavailableError(failure);
    }
  }

  readSessionSerialized(tenant: string, sessionId: string): Promise<string[]> {
    return this.reading(async () => {
      const { rows } = await this.pool.query<[string]>({
        text: 'SELECT json FROM toolhost_events WHERE tenant = $1 AND session_id = $2 ORDER BY sequence',
        values: [tenant, sessionId],
        rowMode: 'array',
      });
      return rows.map((r) => r[0]);
    });
  }

  readAfterSerialized(tenant: string, after: number, limit: number): Promise<SerializedEvent[]> {
    const n = Math.max(0, Math.floor(limit));
    if (n === 0 || Number.isNaN(after)) return Promise.resolve([]);
    return this.reading(() => readAfter(this.pool, tenant, Math.floor(after), n));
  }

  lastSequence(tenant: string): Promise<number> {
    return this.reading(async () => {
      const { rows } = await this.pool.query<{ last: number }>('SELECT last_sequence::float8 AS last FROM toolhost_event_streams WHERE tenant = $1', [tenant]);
      return rows[0]?.last ?? -1;
    });
  }

  subscribe(tenant: string, listener: (event: ToolEvent) => void): () => void {
    return this.feed.subscribe(tenant, listener);
  }

  subscriberCount(tenant?: string): number {
    return this.feed.subscriberCount(tenant);
  }

  health(): EventLogHealth {
    return { ...this.guard.health(), database: { ...this.database } };
  }

  /** Probes the server once (the timer calls it; so may a test). */
  async check(): Promise<void> {
    // One probe at a time: a slow one (a connect timing out) must not pile up behind the timer.
    if (this.closed || this.probing) return;
    this.probing = true;
    try {
      await this.probeOnce();
    } finally {
      this.probing = false;
    }
  }

  private async probeOnce(): Promise<void> {
    const started = performance.now();
    const probe = async () => {
      await this.pool.query('SELECT 1');
    };
    try {
      await probe();
      this.database = { ...this.database, state: 'reachable', latencyMs: Math.round((performance.now() - started) * 100) / 100, checkedAt: new Date().toISOString() };
      // A store refusing appends for another reason (a full disk, a read-only server) is writable again when a write passes.
      if (!this.guard.health().writable) await this.guard.checkAsync(() => this.probeWrite(), (e) => this.classify(e));
    } catch (err) {
      const failure = this.classify(err);
      this.database = { engine: 'postgres', server: this.database.server, state: 'unreachable', checkedAt: new Date().toISOString() };
      this.guard.failing(failure.reason === 'other' ? { ...failure, reason: 'unreachable' } : failure);
    }
  }

  private async probeWrite(): Promise<void> {
    await this.pool.query(
      `INSERT INTO toolhost_event_meta (key, value) VALUES ('lastProbe', now()::text) ON CONFLICT (key) DO UPDATE SET value = excluded.value`,
    );
  }

  async prune(now: number = Date.now()): Promise<number> {
    if (this.closed) return 0;
    let removed = 0;
    const { retentionDays, maxEvents } = this.options;
    if (retentionDays !== undefined) {
      const cutoff = new Date(now - retentionDays * DAY_MS).toISOString();
      removed += (await this.pool.query('DELETE FROM toolhost_events WHERE ts < $1', [cutoff])).rowCount ?? 0;
    }
    if (maxEvents !== undefined) {
      const result = await this.pool.query('DELETE FROM toolhost_events WHERE id <= (SELECT id FROM toolhost_events ORDER BY id DESC OFFSET $1 LIMIT 1)', [maxEvents]);
      removed += result.rowCount ?? 0;
    }
    return removed;
  }

  private grantTable?: GrantTable;

  /** Upstream credentials, in this store's database (grant-table.ts). */
  grants(): GrantTable {
    this.grantTable ??= postgresGrantTable(this.pool);
    return this.grantTable;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const timer of this.timers) clearInterval(timer);
    // Appends already queued still commit (their callers are waiting on them).
    while (this.committing || this.queue.length > 0) {
      if (!this.committing) await this.commitQueued();
      else await new Promise((r) => setTimeout(r, 5));
    }
    await this.feed.close();
    await this.pool.end().catch(() => {});
  }
}

function readAfter(pool: pg.Pool, tenant: string, after: number, limit: number): Promise<SerializedEvent[]> {
  return pool
    .query<SerializedEvent>('SELECT sequence::float8 AS sequence, type, json FROM toolhost_events WHERE tenant = $1 AND sequence > $2 ORDER BY sequence LIMIT $3', [tenant, after, limit])
    .then((r) => r.rows);
}
