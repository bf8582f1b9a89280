// WAL checkpoints off the event loop (docs/architecture.md "Checkpoints"; docs/contract.md
// "Tool sessions": a durable log). SQLite copies the WAL back into the
// database file every 1,000 pages by default, inside the commit that
// crosses the mark, and a checkpoint fsyncs both files: on better-sqlite3
// that is the main thread, held for the length of two fsyncs (a commit's
// p99 was 11 ms with them and 4.3 ms without, docs/benchmarks.md "The event
// log inside a call"). So the log's own connection runs with
// `wal_autocheckpoint = 0`, and this class asks a worker thread, with a
// connection of its own to the same file, to run a PASSIVE checkpoint once
// about as many frames have been committed (PASSIVE never waits for a
// reader or writer: commits go on while it copies). The WAL then starts
// again from its beginning, as it does with SQLite's own checkpoints, so it
// stays about that size. It does so only at a commit that begins when
// every frame has been copied: under a steady stream of commits a
// checkpoint running beside them may never catch up with the end. So once
// the WAL holds twice the threshold, commits are held (their appends wait
// in the queue, the event loop runs on) for one checkpoint of what is left,
// and the next commit starts the WAL again.
//
// A worker that fails (cannot open the file, a checkpoint throws, the
// thread dies) never takes the host down: the failure is reported once,
// the worker is ended, and the log turns SQLite's own checkpoints back on,
// so the WAL stays bounded at the cost of the latency above.
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/** Frames committed between two checkpoints, as SQLite's default `wal_autocheckpoint`. */
export const CHECKPOINT_FRAMES = 1000;
/** How many WAL frames a commit of `events` writes, about (docs/benchmarks.md "The event log inside a call"). */
const framesOf = (events: number) => 5 + events / 2;
/** The longest commits are held for a checkpoint: a worker stuck on a slow disk must not stop the calls. */
const HOLD_MS = 250;
/** How long close() waits for the worker's last checkpoint before ending it. */
const CLOSE_WAIT_MS = 10_000;

// CommonJS, run with `eval`: no file to find next to the compiled or the TypeScript source.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const failed = (err) => parentPort.postMessage({ op: 'failed', code: String((err && err.code) || 'UNKNOWN'), message: String((err && err.message) || err) });
let db;
try {
  db = new Database(workerData.file, { fileMustExist: true });
  db.pragma('synchronous = NORMAL');
} catch (err) {
  failed(err);
}
parentPort.on('message', (message) => {
  try {
    if (message === 'close') {
      // The last connection to close checkpoints the whole WAL (and removes it).
      if (db !== undefined) db.close();
      db = undefined;
      parentPort.close();
    } else if (db !== undefined) {
      const [row] = db.pragma('wal_checkpoint(PASSIVE)');
      parentPort.postMessage({ op: 'checkpointed', busy: row.busy, log: row.log, checkpointed: row.checkpointed });
    }
  } catch (err) {
    failed(err);
  }
});
`;

type FromWorker = { op: 'checkpointed'; busy: number; log: number; checkpointed: number } | { op: 'failed'; code: string; message: string };

/** What the worker reported, for groupStats() and the tests. */
export interface CheckpointStats {
  /** Checkpoints the worker completed. */
  checkpoints: number;
  /** WAL frames they copied into the database file. */
  checkpointedFrames: number;
  /** Checkpoints run with commits held, the WAL not having started again since the last ones. */
  heldCheckpoints: number;
}

export interface CheckpointFailure {
  code: string;
  message: string;
}

/** Holds and releases the log's commits (GroupCommitQueue). */
export interface CommitGate {
  hold(): void;
  release(): void;
}

export class CheckpointWorker {
  private worker: Worker | undefined;
  private frames = 0;
  private inFlight = false;
  /** Commits are held for the checkpoint in flight; released at its answer or after HOLD_MS. */
  private holding: NodeJS.Timeout | undefined;
  private closing: Promise<void> | undefined;
  readonly stats: CheckpointStats = { checkpoints: 0, checkpointedFrames: 0, heldCheckpoints: 0 };

  constructor(
    file: string,
    /** Called once, when the worker cannot checkpoint any more (it has been ended). */
    private readonly onFailure: (failure: CheckpointFailure) => void,
    private readonly gate: CommitGate,
    private readonly threshold = CHECKPOINT_FRAMES,
  ) {
    const driver = createRequire(import.meta.url).resolve('better-sqlite3');
    const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { file, driver } });
    this.worker = worker;
    worker.unref();
    worker.on('message', (message: FromWorker) => this.received(message));
    worker.on('error', (err) => this.fail({ code: String((err as { code?: unknown }).code ?? 'WORKER_ERROR'), message: err.message }));
    worker.on('exit', (code) => {
      if (this.worker === worker && this.closing === undefined) this.fail({ code: 'WORKER_EXIT', message: `the checkpoint worker exited (code ${code})` });
    });
  }

  /** Whether checkpoints run in the worker (false after a failure or close). */
  get running(): boolean {
    return this.worker !== undefined && this.closing === undefined;
  }

  /** Counts a commit's frames; asks for a checkpoint once about `threshold` frames were committed since the last request. */
  committed(events: number): void {
    if (this.worker === undefined || this.closing !== undefined) return;
    this.frames += framesOf(events);
    if (this.frames < this.threshold || this.inFlight) return;
    this.frames = 0;
    this.inFlight = true;
    this.worker.postMessage('checkpoint');
  }

  /** Lets the worker close its connection (the last one to close checkpoints the WAL) and end; resolves once it has. */
  close(): Promise<void> {
    const worker = this.worker;
    if (worker === undefined) return Promise.resolve();
    this.releaseGate();
    this.closing ??= new Promise<void>((resolve) => {
      // Awaited: the process stays up until the worker has checkpointed and ended.
      worker.ref();
      const timer = setTimeout(() => void worker.terminate(), CLOSE_WAIT_MS);
      timer.unref();
      worker.once('exit', () => {
        clearTimeout(timer);
        this.worker = undefined;
        resolve();
      });
      worker.postMessage('close');
    });
    return this.closing;
  }

  private received(message: FromWorker): void {
    if (message.op === 'failed') return this.fail({ code: message.code, message: message.message });
    this.inFlight = false;
    this.stats.checkpoints++;
    this.stats.checkpointedFrames += message.checkpointed;
    if (this.holding !== undefined) return this.releaseGate();
    if (message.log >= 2 * this.threshold && this.worker !== undefined && this.closing === undefined) {
      // Not started again since the last checkpoints: copy the rest with no commit beside it.
      this.holding = setTimeout(() => this.releaseGate(), HOLD_MS);
      this.holding.unref();
      this.gate.hold();
      this.inFlight = true;
      this.stats.heldCheckpoints++;
      this.worker.postMessage('checkpoint');
    }
  }

  private releaseGate(): void {
    if (this.holding === undefined) return;
    clearTimeout(this.holding);
    this.holding = undefined;
    this.gate.release();
  }

  private fail(failure: CheckpointFailure): void {
    const worker = this.worker;
    if (worker === undefined || this.closing !== undefined) return;
    this.worker = undefined;
    this.releaseGate();
    void worker.terminate();
    try {
      this.onFailure(failure);
    } catch {
      // Reporting must not throw into the worker's events.
    }
  }
}
