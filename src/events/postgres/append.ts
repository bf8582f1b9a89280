// One group commit of the PostgreSQL event store (postgres/store.ts, "Sequences"
// and "Group commit"): the events of many appends, of any tenants, numbered in
// their tenants' streams and stored by one statement, hence one transaction
// and one WAL flush, which also notifies every replica of each stream's new
// last sequence (postgres/feed.ts).
import { timeOrderedId } from '../time-ordered-id.js';
import type pg from 'pg';
import type { AppendInput, ToolEvent } from '../event-types.js';

const RETRIES_ON_CONFLICT = 5;
/** A notify payload is limited to 8000 bytes; a longer tenant id is announced as '*' (read every stream). */
const NOTIFY_TENANT_BYTES = 7000;

// Stream rows are taken in tenant order (ORDER BY in the upsert), so two
// batches touching the same tenants wait for each other instead of deadlocking.
const APPEND = `
WITH input AS (
  SELECT * FROM unnest($1::text[], $2::int[], $3::uuid[], $4::text[], $5::timestamptz[], $6::text[], $7::text[], $8::text[])
    AS i(tenant, k, event_id, type, ts, session_id, head, tail)
), counts AS (
  SELECT tenant, count(*)::bigint AS n FROM input GROUP BY tenant
), bumped AS (
  INSERT INTO toolhost_event_streams AS s (tenant, last_sequence)
  SELECT tenant, n - 1 FROM counts ORDER BY tenant
  ON CONFLICT (tenant) DO UPDATE SET last_sequence = s.last_sequence + excluded.last_sequence + 1
  RETURNING s.tenant, s.last_sequence
), numbered AS (
  SELECT i.*, b.last_sequence - c.n + 1 + i.k AS sequence FROM input i JOIN bumped b USING (tenant) JOIN counts c USING (tenant)
), inserted AS (
  INSERT INTO toolhost_events (tenant, sequence, event_id, type, ts, session_id, json)
  SELECT tenant, sequence, event_id, type, ts, session_id, head || sequence::text || tail FROM numbered
)
SELECT b.tenant, b.last_sequence::float8 AS last,
  pg_notify($9, CASE WHEN octet_length(b.tenant) <= ${NOTIFY_TENANT_BYTES} THEN json_build_array(b.tenant, b.last_sequence)::text ELSE '*' END) AS notified
FROM bumped b`;

async function withRetry<T>(run: () => Promise<T>): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await run();
    } catch (err) {
      const code = (err as { code?: unknown }).code;
      // Both are rolled back by the server, so trying again cannot duplicate anything.
      if ((code === '40P01' || code === '40001') && attempt < RETRIES_ON_CONFLICT) continue;
      throw err;
    }
  }
}

/**
 * Stores every append's events in one statement and returns them as stored
 * (eventId, sequence, timestamp), per append, in the order given. Rejects
 * with what the server or the driver threw; nothing is stored then (unless
 * the connection dropped during the commit itself: see postgres/store.ts).
 */
export async function commitEvents(pool: pg.Pool, appends: ReadonlyArray<readonly AppendInput[]>, channel: string): Promise<ToolEvent[][]> {
  const timestamp = new Date().toISOString();
  const ordinal = new Map<string, number>();
  const stored: ToolEvent[][] = appends.map((events) =>
    events.map((e) => {
      const k = ordinal.get(e.tenant) ?? 0;
      ordinal.set(e.tenant, k + 1);
      return { eventId: timeOrderedId(), type: e.type, sequence: k, timestamp, tenant: e.tenant, principal: e.principal, sessionId: e.sessionId, payload: e.payload };
    }),
  );
  const all = stored.flat();
  // The wire JSON around the sequence, as JSON.stringify writes the ToolEvent: `{"eventId":…,"type":…,"sequence":` and `,"timestamp":…}`.
  const heads = all.map((e) => `{"eventId":${JSON.stringify(e.eventId)},"type":${JSON.stringify(e.type)},"sequence":`);
  const tails = all.map((e) => `,${JSON.stringify({ timestamp: e.timestamp, tenant: e.tenant, principal: e.principal, sessionId: e.sessionId, payload: e.payload }).slice(1)}`);
  const params = [
    all.map((e) => e.tenant),
    all.map((e) => e.sequence),
    all.map((e) => e.eventId),
    all.map((e) => e.type),
    all.map(() => timestamp),
    all.map((e) => e.sessionId),
    heads,
    tails,
    channel,
  ];
  const rows = await withRetry(async () => (await pool.query<{ tenant: string; last: number }>(APPEND, params)).rows);
  const firstOf = new Map<string, number>();
  for (const { tenant, last } of rows) firstOf.set(tenant, last - (ordinal.get(tenant) ?? 0) + 1);
  for (const e of all) e.sequence += firstOf.get(e.tenant)!;
  return stored;
}
