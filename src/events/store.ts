// What the host needs of a tool-session event store (docs/contract.md "Tool
// sessions": a durable, ordered, per-tenant log), whatever engine keeps it:
// a SQLite file on one machine (log.ts), or a PostgreSQL database shared by
// every replica. Everything that can touch the disk or the network is
// asynchronous, so a store may commit many callers' events together.
//
// Guarantees every implementation gives:
// - `append` resolves only after its events are committed; its events get
//   consecutive sequences in the tenant's stream, in the order given, and are
//   stored all or none. A refused append rejects with EventLogUnavailableError
//   and stores nothing.
// - Each tenant's stream has one strictly increasing `sequence` from 0, no
//   gaps and no duplicates, whoever appends (other processes, other replicas).
// - `subscribe` delivers every event of the tenant's stream appended after it
//   was called, from every writer of the store, once each, in sequence order.
import type { EventLogHealth } from './log-health.js';
import type { AppendInput, SerializedEvent, ToolEvent } from './event-types.js';
import type { ConfigChangeStore } from './config-changes.js';
import type { GrantTable } from './grant-table.js';

export interface AppendOptions {
  /**
   * A write-ahead record (a call's record made before its tool runs): it must
   * be committed before append resolves, but a store may make it durable
   * with the next ordinary commit instead of its own (SQLite: written to the
   * WAL, fsync'd by the call's answer record or shortly after; PostgreSQL:
   * what `synchronous_commit = off` does for one transaction). A store that
   * ignores the option makes it durable at once, which is never wrong.
   */
  writeAhead?: boolean;
}

export interface EventStore {
  /** Appends the events (one tenant's or several) as one commit and returns them with eventId, sequence and timestamp. */
  append(events: readonly AppendInput[], options?: AppendOptions): Promise<ToolEvent[]>;
  /** Every event of one session, in order, as wire JSON; [] for an unknown session or another tenant's. */
  readSessionSerialized(tenant: string, sessionId: string): Promise<string[]>;
  /** Up to `limit` events of the tenant's stream with sequence > after, ascending, as wire JSON. */
  readAfterSerialized(tenant: string, after: number, limit: number): Promise<SerializedEvent[]>;
  /** The tenant stream's last sequence so far (also when retention pruned that event); -1 for an empty stream. */
  lastSequence(tenant: string): Promise<number>;
  /** Live events of the tenant's stream from every writer of the store; returns the unsubscribe function. */
  subscribe(tenant: string, listener: (event: ToolEvent) => void): () => void;
  /** How many subscriptions are live (for one tenant, or all). */
  subscriberCount(tenant?: string): number;
  /** Whether events can be written now, and if not why and since when. */
  health(): EventLogHealth;
  /** Applies the retention options now; resolves to how many events were removed. */
  prune(now?: number): Promise<number>;
  /** The admin API's stored changes, in the same database (config-changes.ts). */
  readonly configChanges?: ConfigChangeStore;
  /** The table of upstream credentials in the same database (grant-table.ts); absent in stores without one. */
  grants?(): GrantTable;
  /** Stops timers and subscriptions and releases the engine. Idempotent. */
  close(): Promise<void>;
}

/**
 * A store that cannot be opened, said in one line for a person (the CLI
 * prints the message, never a stack): a database unreachable, refused
 * credentials, a newer schema (the message names the server, never the URL),
 * or a log file that is missing where it must exist.
 */
export class EventStoreOpenError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'EventStoreOpenError';
  }
}

/** A live reader's subscription and where it starts (openTail). */
export interface Tail {
  /** Every event with a greater sequence reaches the listener; events at or below it may too, and are the reader's to skip. */
  start: number;
  unsubscribe(): void;
}

/**
 * Subscribes, then reads the stream's end. Resolve this before telling a
 * client its stream is open (GET /events/stream answers 200 after it): an
 * event committed after that is above `start`, so it is never skipped.
 * Reading the end after answering would start past events the client may
 * already have caused.
 */
export async function openTail(store: EventStore, tenant: string, listener: (event: ToolEvent) => void): Promise<Tail> {
  const unsubscribe = store.subscribe(tenant, listener);
  try {
    return { start: await store.lastSequence(tenant), unsubscribe };
  } catch (err) {
    unsubscribe();
    throw err;
  }
}
