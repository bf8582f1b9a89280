// Making committed events durable without holding the event loop (log.ts
// "Durability"; docs/contract.md "Tool sessions": a durable log). better-sqlite3
// runs SQLite on the main thread, so with synchronous=FULL every commit would
// stop the whole host for one fdatasync of the WAL. Instead the log commits
// with synchronous=NORMAL (frames written, not synced) and asks this class to
// fdatasync the `-wal` file on libuv's thread pool. fdatasync acts on the
// file, not on the descriptor, so it flushes every frame written before it,
// by this connection or another. One sync runs at a time; requests made
// while it runs are answered together by the next one: a second level of
// group commit, for the disk.
import { closeSync, fdatasync, openSync } from 'node:fs';

interface Waiter {
  resolve(): void;
  reject(err: unknown): void;
}

export class WalSync {
  private readonly fd: number;
  private running = false;
  private waiting: Waiter[] = [];
  private idle: Array<() => void> = [];
  private closed = false;

  constructor(walFile: string) {
    // Read-only is enough: fdatasync needs a descriptor, not write access.
    this.fd = openSync(walFile, 'r');
  }

  /** Resolves once an fdatasync begun after this call has completed, i.e. once everything written before it is on disk. */
  request(): Promise<void> {
    if (this.closed) return Promise.reject(new Error('the event log is closed'));
    return new Promise((resolve, reject) => {
      this.waiting.push({ resolve, reject });
      if (!this.running) this.start();
    });
  }

  /** Waits for the sync in progress and those asked for, then closes the descriptor. */
  async close(): Promise<void> {
    if (this.closed) return;
    if (this.running) await new Promise<void>((resolve) => this.idle.push(resolve));
    this.closed = true;
    closeSync(this.fd);
  }

  private start(): void {
    const batch = this.waiting;
    this.waiting = [];
    this.running = true;
    fdatasync(this.fd, (err) => {
      this.running = false;
      for (const waiter of batch) {
        if (err) waiter.reject(err);
        else waiter.resolve();
      }
      if (this.waiting.length > 0) this.start();
      else for (const resolve of this.idle.splice(0)) resolve();
    });
  }
}
