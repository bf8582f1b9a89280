// The PostgreSQL event store when its server goes away: the server is stopped
// like a crash (`pg_ctl stop -m immediate`, no shutdown checkpoint; fsync on)
// in the middle of a run of appends and started again. Every acknowledged
// append is still there, health went unreachable and came back by itself,
// appends were refused (not hung) meanwhile, and the password appears nowhere.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { EventLogUnavailableError } from '../../src/events/log-health.js';
import type { EventLogHealth } from '../../src/events/log-health.js';
import type { ToolEvent } from '../../src/events/event-types.js';
import { PostgresEventStore } from '../../src/events/postgres/store.js';
import { PG_SKIP, startPostgres, type PgServer } from '../helpers/postgres.js';
import { opened, until } from './store-conformance.js';

let server: PgServer;
before(async () => {
  // Durable settings: this test is about what survives a crash.
  if (!PG_SKIP) server = await startPostgres({ fast: false });
});
after(async () => {
  await server?.close();
});
const skip = PG_SKIP ? { skip: PG_SKIP } : {};

test('a database crash mid-run loses no acknowledged event; the store says unreachable, refuses, and recovers by itself', { ...skip, timeout: 120_000 }, async () => {
  const url = await server.newDatabase();
  const changes: EventLogHealth[] = [];
  const store = await PostgresEventStore.open({ url, checkIntervalMs: 100, pollIntervalMs: 200, connectTimeoutMs: 1000, onHealthChange: (h) => changes.push(h) });
  const other = await PostgresEventStore.open({ url, pollIntervalMs: 200 });
  const live: number[] = [];
  other.subscribe('acme', (e) => live.push(e.sequence));
  const acknowledged: ToolEvent[] = [];
  const refusals: EventLogUnavailableError[] = [];
  let stop = false;
  try {
    const writers = Array.from({ length: 8 }, async (_, w) => {
      for (let i = 0; !stop; i++) {
        try {
          acknowledged.push(...(await store.append([opened('acme', `w${w}-${i}`)])));
        } catch (err) {
          assert.ok(err instanceof EventLogUnavailableError, `refused with EventLogUnavailableError, got ${String(err)}`);
          refusals.push(err);
          await new Promise((r) => setTimeout(r, 20));
        }
      }
    });
    await until(() => acknowledged.length >= 300, 30_000);
    await server.crash();
    await until(() => store.health().writable === false, 10_000);
    const down = store.health();
    assert.equal(down.reason, 'unreachable');
    assert.equal(down.database?.state, 'unreachable');
    const refusedBefore = refusals.length;
    await until(() => refusals.length > refusedBefore + 5, 10_000);
    // Refused as unavailable (how fast is not a test's to say on a shared machine).
    await assert.rejects(store.append([opened('acme', 'while-down')]), EventLogUnavailableError);
    await assert.rejects(store.readAfterSerialized('acme', -1, 10), EventLogUnavailableError);
    const countAtRestart = acknowledged.length;
    await server.restart();
    await until(() => store.health().writable, 15_000);
    await until(() => acknowledged.length > countAtRestart + 100, 30_000);
    stop = true;
    await Promise.all(writers);

    assert.ok(changes.some((h) => !h.writable) && changes.at(-1)!.writable, 'health went unavailable, then writable again');
    for (const h of [...changes, down, store.health()]) assert.ok(!JSON.stringify(h).includes(server.password), 'no password in health');
    for (const r of refusals) assert.ok(!r.message.includes(server.password), 'no password in a refusal');

    const stored = new Set((await store.readAfterSerialized('acme', -1, 100_000)).map((e) => JSON.parse(e.json).eventId as string));
    const lost = acknowledged.filter((e) => !stored.has(e.eventId));
    assert.deepEqual(lost, [], 'every acknowledged event survived the crash');
    const sequences = (await store.readAfterSerialized('acme', -1, 100_000)).map((e) => e.sequence);
    assert.deepEqual(sequences, sequences.map((_, i) => i), 'the stream is still gap-free');
    // The other store's subscriber caught up across the outage (its LISTEN connection was reopened).
    await until(() => live.length === sequences.length, 15_000);
    assert.deepEqual(live, sequences);
  } finally {
    stop = true;
    await store.close();
    await other.close();
  }
});
