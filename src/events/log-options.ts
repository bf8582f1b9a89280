// The options of the SQLite event log (log.ts) and their checks; the host
// fills them from the `events` config section (docs/config.md).
import type { AppendFailure, EventLogHealth } from './log-health.js';
import type { GroupTrigger } from './sqlite/group-commit.js';

/** What is synced to disk before an append resolves (docs/architecture.md "Durability"). */
export type EventSynchronous = 'full' | 'normal';

export interface EventLogOptions {
  /** `full` (default): the WAL is fdatasync'd before an append resolves; `normal`: synced only at checkpoints. */
  synchronous?: EventSynchronous;
  /** Where WAL checkpoints run (sqlite/checkpointer.ts): `worker` (default), a thread with its own connection; `inline`, SQLite's own, in the commits. */
  checkpoints?: 'worker' | 'inline';
  /** WAL frames committed between two of the worker's checkpoints (default 1000, SQLite's own `wal_autocheckpoint`). */
  checkpointFrames?: number;
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
  /** Called once if the checkpoint worker fails and SQLite's own checkpoints take over (sqlite/checkpointer.ts). */
  onCheckpointFailure?: (failure: { code: string; message: string }) => void;
}

export function checkOptions(options: EventLogOptions): void {
  const { retentionDays, maxEvents, pruneIntervalMs, checkIntervalMs, synchronous, groupTrigger, checkpoints, checkpointFrames } = options;
  if (retentionDays !== undefined && !(typeof retentionDays === 'number' && Number.isFinite(retentionDays) && retentionDays > 0)) {
    throw new RangeError('retentionDays must be a positive number');
  }
  if (maxEvents !== undefined && !(Number.isSafeInteger(maxEvents) && maxEvents > 0)) throw new RangeError('maxEvents must be a positive integer');
  if (pruneIntervalMs !== undefined && !(Number.isSafeInteger(pruneIntervalMs) && pruneIntervalMs > 0)) throw new RangeError('pruneIntervalMs must be a positive integer');
  if (checkIntervalMs !== undefined && !(Number.isSafeInteger(checkIntervalMs) && checkIntervalMs > 0)) throw new RangeError('checkIntervalMs must be a positive integer');
  if (synchronous !== undefined && synchronous !== 'full' && synchronous !== 'normal') throw new RangeError('synchronous must be "full" or "normal"');
  if (checkpointFrames !== undefined && !(Number.isSafeInteger(checkpointFrames) && checkpointFrames > 0)) throw new RangeError('checkpointFrames must be a positive integer');
  if (checkpoints !== undefined && checkpoints !== 'worker' && checkpoints !== 'inline') throw new RangeError('checkpoints must be "worker" or "inline"');
  if (groupTrigger !== undefined && groupTrigger !== 'immediate' && groupTrigger !== 'microtask') throw new RangeError('groupTrigger must be "immediate" or "microtask"');
}

