// Retention by age for the event log (log.ts, `retentionDays`; docs/config.md
// "events"). Rows are kept in time order by `id` (schema.ts "Time order"),
// so the events older than the cut are exactly those below the first row
// at or after it, found by a binary search over `id` (about 2·log2(rows)
// page reads) and deleted as one `id` range: no index on `timestamp` to
// keep up on every commit. Rows of an older file that may be out of order
// (at or below `unorderedThrough`) are each compared with the cut instead.
import type { Statements } from './schema.js';

type PruneStatements = Pick<Statements, 'firstFrom' | 'idRange' | 'pruneBelowId' | 'pruneUnorderedOlderThan'>;

/** The smallest `id` in [from, last] whose timestamp is not before `cut`; last + 1 when none is. */
function firstNotOlder(sql: PruneStatements, from: number, last: number, cut: string): number {
  // Invariant: every row in [from, lo) is older than the cut; every row at or above hi is not.
  let lo = from;
  let hi = last + 1;
  while (lo < hi) {
    const mid = lo + Math.floor((hi - lo) / 2);
    const row = sql.firstFrom.get(mid, hi);
    if (row === undefined || row.timestamp >= cut) hi = mid;
    else lo = row.id + 1;
  }
  return lo;
}

/**
 * Deletes every row whose timestamp is before `cut` (ISO 8601, ms, UTC: it
 * sorts as text); returns how many went. `unorderedThrough` is the last id
 * that may be out of time order, if any.
 */
export function pruneOlderThan(sql: PruneStatements, cut: string, unorderedThrough: number | undefined): number {
  let removed = 0;
  if (unorderedThrough !== undefined) removed += sql.pruneUnorderedOlderThan.run(unorderedThrough, cut).changes;
  const { lo: first, hi: last } = sql.idRange.get()!;
  if (first === null || last === null) return removed;
  const from = unorderedThrough === undefined ? first : Math.max(first, unorderedThrough + 1);
  const end = firstNotOlder(sql, from, last, cut);
  if (end > from) removed += sql.pruneBelowId.run(from, end).changes;
  return removed;
}
