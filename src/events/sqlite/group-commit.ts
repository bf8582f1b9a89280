// Group commit for the event log (log.ts; docs/contract.md "Tool sessions": a
// durable log). better-sqlite3 runs a transaction synchronously on the event
// loop, and a transaction costs far more than the rows it writes. So appends
// are queued, and the queue is committed as one transaction on a later turn:
// every append that arrived meanwhile (other requests' sessions) shares that
// transaction (and, under `full`, one fdatasync: wal-sync.ts), and each
// caller's promise settles after it.
//
// When the queue is committed is the trigger. `immediate` (the default) runs
// it in the event loop's check phase, after every I/O callback of the current
// turn: all requests read in one poll phase share a commit, and a lone caller
// waits only for the rest of its own turn. `microtask` commits as soon as the
// current callback's microtasks are done: no added wait at all, but only
// appends made from one callback can share a commit. docs/benchmarks.md
// ("Event log: group commit") has the two measured.
import type { AppendInput, ToolEvent } from '../event-types.js';

export type GroupTrigger = 'immediate' | 'microtask';

/** One caller's append waiting in the queue. */
export interface PendingAppend {
  events: readonly AppendInput[];
  /** A write-ahead record: committed, its fsync may ride on a later commit's (docs/architecture.md "Durability"). */
  writeAhead: boolean;
  resolve(stored: ToolEvent[]): void;
  reject(err: unknown): void;
}

/** What the queue has committed since it was made: how well appends were grouped. */
export interface GroupCommitStats {
  /** Transactions run (one per group). */
  groups: number;
  /** append() calls taken into groups. */
  appends: number;
  /** Events in them. */
  events: number;
  /** Groups that ended with an fsync of the WAL. */
  syncedGroups: number;
  /** Syncs run for write-ahead records no ordinary commit made durable in time. */
  deferredSyncs: number;
  /** Whether committed write-ahead records wait for a deferred sync now (none will run while this is false). */
  deferredSyncPending?: boolean;
  /** WAL checkpoints the checkpoint worker completed (checkpointer.ts; absent without one). */
  checkpoints?: number;
  /** WAL frames those checkpoints copied into the database file. */
  checkpointedFrames?: number;
  /** Of those, checkpoints run with commits held for them (checkpointer.ts). */
  heldCheckpoints?: number;
}

/** Bounds one transaction: a burst larger than this is committed in several groups, in order. */
export const MAX_GROUP_EVENTS = 1000;

export class GroupCommitQueue {
  private queue: PendingAppend[] = [];
  private scheduled = false;
  private held = false;

  constructor(
    /** Commits one group as one transaction and settles every member (never throws). */
    private readonly commit: (group: PendingAppend[]) => void,
    private readonly trigger: GroupTrigger = 'immediate',
  ) {}

  get length(): number {
    return this.queue.length;
  }

  enqueue(pending: PendingAppend): void {
    this.queue.push(pending);
    this.schedule();
  }

  /** Appends wait in the queue until release() (flush() still commits them): a checkpoint may catch up with the WAL's end meanwhile. */
  hold(): void {
    this.held = true;
  }

  release(): void {
    this.held = false;
    if (this.queue.length > 0) this.schedule();
  }

  private schedule(): void {
    if (this.scheduled || this.held) return;
    this.scheduled = true;
    if (this.trigger === 'microtask') queueMicrotask(() => this.flushUnlessHeld());
    else setImmediate(() => this.flushUnlessHeld());
  }

  private flushUnlessHeld(): void {
    this.scheduled = false;
    // release() schedules again.
    if (!this.held) this.flush();
  }

  /** Commits everything queued now, in order, one bounded group after another. */
  flush(): void {
    this.scheduled = false;
    while (this.queue.length > 0) {
      let events = 0;
      let take = 0;
      while (take < this.queue.length && (take === 0 || events + this.queue[take].events.length <= MAX_GROUP_EVENTS)) {
        events += this.queue[take].events.length;
        take++;
      }
      const group = this.queue.slice(0, take);
      this.queue = this.queue.slice(take);
      this.commit(group);
    }
  }
}
