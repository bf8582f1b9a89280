// What the tool table (tool-table.ts) filed and removed, in order, so a view
// that keeps its tools across a swap marks only the slots that changed
// (tool-index.ts) instead of all of them. Bounded: a view further behind than
// the log reaches marks all its slots again.
import type { PreparedTool } from './prepared.js';

/** A tool filed in a slot, or removed from it (with what it was filed with, for exact removal from a view's totals). */
export interface TableChange {
  readonly id: string;
  readonly slot: number;
  readonly prepared: PreparedTool;
  readonly added: boolean;
}

/** Changes logged at most. */
const LOG_LIMIT = 4096;

export class ChangeLog {
  private changes: TableChange[] = [];
  /** The version before the first change held. */
  private start = 0;

  /** The number of changes ever logged. */
  get version(): number {
    return this.start + this.changes.length;
  }

  push(change: TableChange): void {
    if (this.changes.length === LOG_LIMIT) {
      this.start += this.changes.length;
      this.changes = [];
    }
    this.changes.push(change);
  }

  /** The changes since `version`, in order; undefined when they are no longer held. */
  since(version: number): readonly TableChange[] | undefined {
    return version < this.start ? undefined : this.changes.slice(version - this.start);
  }
}
