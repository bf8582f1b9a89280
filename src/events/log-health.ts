// Whether the tool-session event log can be written, and why not (docs/contract.md
// "Tool sessions": a durable, ordered log). The log is only durable while the
// file it writes is the file on disk: a disk that is full, a file made
// read-only, or a file deleted or replaced under the open handle all make
// appends fail or, worse, land where no restart will find them. This module
// names those faults; `log.ts` tracks them and refuses calls while they last.
import { statSync } from 'node:fs';

/** Why appends fail. A fixed, small set: it is a metric label. */
export type AppendFailureReason = 'disk_full' | 'read_only' | 'io_error' | 'busy' | 'file_lost' | 'unreachable' | 'other';

export interface EventLogHealth {
  /** True while events can be written (and so tool calls accepted). */
  writable: boolean;
  /** The log's identity: a random id made when the file was created (see log.ts). */
  logId: string;
  /** While not writable: why, in the fixed reason set and in words. */
  reason?: AppendFailureReason;
  error?: string;
  /** While not writable: since when (ISO 8601). */
  since?: string;
  /** Appends refused since the log was opened. */
  failedAppends: number;
  /**
   * Present only when the SQLite log's checkpoint worker failed: WAL
   * checkpoints run in the commits on the main thread since (slower commits,
   * nothing lost), until the host restarts.
   */
  checkpoints?: { thread: 'main'; error: string; since: string };
  /** A log kept by a database server (PostgreSQL): where, and how its last probe went. Never the URL's credentials. */
  database?: DatabaseHealth;
}

export interface DatabaseHealth {
  engine: 'postgres';
  /** host:port/database, nothing more. */
  server: string;
  state: 'reachable' | 'unreachable';
  /** Round trip of the last successful probe (ms). */
  latencyMs?: number;
  /** When the server was last probed (ISO 8601). */
  checkedAt?: string;
}

/** One refused append, as handed to the log's `onAppendFailure` option. */
export interface AppendFailure {
  reason: AppendFailureReason;
  /** The SQLite result code (e.g. SQLITE_FULL) or our own code for a lost file. */
  code: string;
  message: string;
}

/**
 * Rejects `EventLog.append` (and any EventStore's) when the events could not
 * be stored. A tool call whose session cannot be recorded is refused with this
 * message, which says why without any detail of the call itself.
 */
export class EventLogUnavailableError extends Error {
  constructor(readonly failure: AppendFailure) {
    super(`the tool-session event log cannot be written (${describeReason(failure.reason)}: ${failure.message}); tool calls are refused until it can`);
    this.name = 'EventLogUnavailableError';
  }
}

function describeReason(reason: AppendFailureReason): string {
  switch (reason) {
    case 'disk_full':
      return 'disk full';
    case 'read_only':
      return 'read-only';
    case 'io_error':
      return 'I/O error';
    case 'busy':
      return 'locked by another writer';
    case 'file_lost':
      return 'file deleted or replaced';
    case 'unreachable':
      return 'database unreachable';
    default:
      return 'storage error';
  }
}

/** Maps what SQLite (or the file system under it, or an fdatasync of the WAL) threw to an AppendFailure. */
export function classifyFailure(err: unknown): AppendFailure {
  const code = typeof (err as { code?: unknown })?.code === 'string' ? (err as { code: string }).code : 'UNKNOWN';
  const message = err instanceof Error ? err.message : String(err);
  let reason: AppendFailureReason = 'other';
  if (code === 'SQLITE_FULL') reason = 'disk_full';
  else if (code.startsWith('SQLITE_READONLY') || code === 'SQLITE_PERM' || code.startsWith('SQLITE_CANTOPEN')) reason = 'read_only';
  else if (code.startsWith('SQLITE_IOERR') || code.startsWith('SQLITE_CORRUPT')) reason = 'io_error';
  else if (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED')) reason = 'busy';
  // What fdatasync of the WAL reports (wal-sync.ts).
  else if (code === 'ENOSPC' || code === 'EDQUOT') reason = 'disk_full';
  else if (code === 'EROFS') reason = 'read_only';
  else if (code === 'EIO') reason = 'io_error';
  return { reason, code, message };
}

interface Identity {
  dev: number;
  ino: number;
}

/** The file's identity; 'missing' when the path names nothing; undefined when stat fails otherwise (no verdict). */
function identityOf(path: string): Identity | 'missing' | undefined {
  try {
    const s = statSync(path);
    return { dev: s.dev, ino: s.ino };
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    // Only a path that is gone proves the file gone; EACCES and the like say nothing about the open handle.
    return code === 'ENOENT' || code === 'ENOTDIR' ? 'missing' : undefined;
  }
}

/**
 * The device and inode of the database file and its `-wal` file as they were
 * when the log was opened. SQLite keeps writing through its open handles after
 * the path is unlinked or replaced, so every event written from then on would
 * vanish at the next restart. `changed()` answers with what moved, or
 * undefined while both paths still name the files the handles write.
 */
export class FileIdentity {
  private readonly db: Identity | undefined;
  private readonly wal: Identity | undefined;

  constructor(private readonly file: string) {
    const db = identityOf(file);
    const wal = identityOf(`${file}-wal`);
    this.db = typeof db === 'object' ? db : undefined;
    this.wal = typeof wal === 'object' ? wal : undefined;
  }

  changed(): string | undefined {
    // The words name the file's role, not its path: they reach the MCP client in the refusal.
    for (const [path, expected, role] of [
      [this.file, this.db, 'the database file'],
      [`${this.file}-wal`, this.wal, 'its -wal file'],
    ] as const) {
      if (expected === undefined) continue;
      const now = identityOf(path);
      if (now === undefined) continue;
      if (now === 'missing') return `${role} was deleted while the log had it open`;
      if (now.dev !== expected.dev || now.ino !== expected.ino) return `${role} was replaced by another file while the log had it open`;
    }
    return undefined;
  }
}

export interface WriteGuardHooks {
  onAppendFailure?: (failure: AppendFailure) => void;
  onHealthChange?: (health: EventLogHealth) => void;
}

/**
 * The log's writable state. `lostFile` says, before each write, that the
 * file is lost and nothing may be written; `refuse` turns what a write threw
 * into the error the caller gets; `succeeded` clears a passing fault;
 * `check` is the periodic look at the file and, while failing, a probe
 * write. A lost file stays lost: SQLite would go on writing into the
 * unlinked inode.
 */
export class WriteGuard {
  private fault: { failure: AppendFailure; since: string } | undefined;
  private failedAppends = 0;

  constructor(
    private readonly logId: string,
    private readonly identity: FileIdentity | undefined,
    private readonly hooks: WriteGuardHooks,
  ) {}

  health(): EventLogHealth {
    const health: EventLogHealth = { writable: this.fault === undefined, logId: this.logId, failedAppends: this.failedAppends };
    if (this.fault) {
      health.reason = this.fault.failure.reason;
      health.error = this.fault.failure.message;
      health.since = this.fault.since;
    }
    return health;
  }

  /** The lost file's failure when the log must not write at all (see FileIdentity), else undefined. */
  lostFile(): AppendFailure | undefined {
    return this.fileLost();
  }

  /** Counts and reports one refused append; returns the error to throw. */
  refuse(failure: AppendFailure): EventLogUnavailableError {
    this.failedAppends++;
    if (this.fault?.failure.reason !== failure.reason) this.setFault(failure);
    try {
      this.hooks.onAppendFailure?.(failure);
    } catch {
      // Reporting must not change what the caller is told.
    }
    return new EventLogUnavailableError(failure);
  }

  succeeded(): void {
    if (this.fault) this.setFault(undefined);
  }

  check(probe: () => void): void {
    const lost = this.fileLost();
    if (lost) {
      if (this.fault?.failure.reason !== 'file_lost') this.setFault(lost);
      return;
    }
    if (this.fault === undefined) return;
    try {
      probe();
      this.setFault(undefined);
    } catch (err) {
      const failure = classifyFailure(err);
      if (failure.reason !== this.fault.failure.reason) this.setFault(failure);
    }
  }

  /**
   * `check` for a store whose probe goes over the network: while failing,
   * runs the probe and clears the fault when it passes; `classify` names what
   * it threw.
   */
  async checkAsync(probe: () => Promise<void>, classify: (err: unknown) => AppendFailure): Promise<void> {
    if (this.fault === undefined) return;
    try {
      await probe();
      this.setFault(undefined);
    } catch (err) {
      const failure = classify(err);
      if (failure.reason !== this.fault?.failure.reason) this.setFault(failure);
    }
  }

  /** Marks the store failing without a refused append (a probe or a read found the database gone). */
  failing(failure: AppendFailure): void {
    if (this.fault?.failure.reason !== failure.reason) this.setFault(failure);
  }

  private fileLost(): AppendFailure | undefined {
    if (this.fault?.failure.reason === 'file_lost') return this.fault.failure;
    const what = this.identity?.changed();
    return what === undefined ? undefined : { reason: 'file_lost', code: 'FILE_LOST', message: `${what}; restart the host to open the log again` };
  }

  private setFault(failure: AppendFailure | undefined): void {
    const since = this.fault?.since ?? new Date().toISOString();
    this.fault = failure === undefined ? undefined : { failure, since };
    try {
      this.hooks.onHealthChange?.(this.health());
    } catch {
      // As above.
    }
  }
}

