// The `loosened` list of a compact schema (docs/compact-view.md, "Limits"):
// one line per loosening, `pointer: what`, in the order they happened,
// without repeats, bounded by a final count of what did not fit.
import { escapePointerSegment } from '../../util/json.js';
import { MAX_LOOSENED_NOTES } from './limits.js';

export class LoosenedNotes {
  private readonly notes: string[] = [];
  private readonly seen = new Set<string>();
  private extra = 0;

  /** Record a loosening at a JSON pointer ('' is the root). */
  at(pointer: string, message: string): void {
    if (this.notes.length >= MAX_LOOSENED_NOTES) {
      this.extra++;
      return;
    }
    const text = `${pointer || '/'}: ${message}`;
    if (this.seen.has(text)) return;
    this.seen.add(text);
    this.notes.push(text);
  }

  /** Record a loosening at a path of unescaped segments (the pointer is only built when the note is kept). */
  atPath(path: readonly string[], message: string): void {
    if (this.notes.length >= MAX_LOOSENED_NOTES) {
      this.extra++;
      return;
    }
    let pointer = '';
    for (const seg of path) pointer += '/' + escapePointerSegment(seg);
    this.at(pointer, message);
  }

  list(): string[] {
    return this.extra ? [...this.notes, `… and ${this.extra} more`] : [...this.notes];
  }
}
