// One group commit's transaction (docs/architecture.md "Group commit"; docs/contract.md
// "Tool sessions": per-tenant streams, consecutive sequences). What a commit
// costs is mostly the pages it dirties, each written to the WAL: one stream
// bump per tenant and group, then one INSERT per event into a table with
// three indexes. Event and session ids grow with time (time-ordered-id.ts),
// so the indexes on them take a group's rows on their last pages instead of
// one random page per row. One multi-row INSERT per group measured no
// cheaper than a prepared INSERT per row (docs/benchmarks.md "The event log
// inside a call"). The group's timestamp is taken under the write lock and
// never below the newest row's, so rows stay in time order by `id` whatever
// the clock or another writer did (schema.ts "Time order").
import type Database from 'better-sqlite3';
import type { ToolEvent } from '../event-types.js';
import { timeOrderedId } from '../time-ordered-id.js';
import type { PendingAppend } from './group-commit.js';
import type { Statements } from './schema.js';

/** The group's events stored, in order, per pending append. */
export type InsertGroup = (group: readonly PendingAppend[]) => ToolEvent[][];

/** The transaction that stores one group (under IMMEDIATE: the write lock is taken before the streams are read). */
export function insertGroupTransaction(db: Database.Database, sql: Pick<Statements, 'bumpStream' | 'insertEvent' | 'lastTimestamp'>): InsertGroup {
  const { bumpStream, insertEvent, lastTimestamp } = sql;
  const tx = db.transaction((group: readonly PendingAppend[]): ToolEvent[][] => {
    const now = new Date().toISOString();
    const newest = lastTimestamp.get();
    // ISO 8601 in UTC with milliseconds sorts as text.
    const timestamp = newest !== undefined && newest > now ? newest : now;
    // One bump per tenant and group: its events take the reserved sequences in order.
    const next = new Map<string, number>();
    for (const pending of group) for (const event of pending.events) next.set(event.tenant, (next.get(event.tenant) ?? 0) + 1);
    for (const [tenant, n] of next) next.set(tenant, bumpStream.get(tenant, n, n)!.last_sequence - n + 1);
    return group.map((pending) =>
      pending.events.map((event): ToolEvent => {
        const sequence = next.get(event.tenant)!;
        next.set(event.tenant, sequence + 1);
        const eventId = timeOrderedId();
        insertEvent.run(eventId, event.tenant, sequence, event.type, timestamp, event.principal, event.sessionId, JSON.stringify(event.payload));
        // The payload is the log's own checked copy (log.ts `append`), stored as its JSON text: no need to parse that text back.
        return { eventId, type: event.type, sequence, timestamp, tenant: event.tenant, principal: event.principal, sessionId: event.sessionId, payload: event.payload };
      }),
    );
  });
  return tx.immediate;
}
