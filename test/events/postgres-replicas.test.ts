// Several PostgreSQL event stores on one database, as replicas would have
// them: concurrent appends keep every tenant's stream gap-free and complete,
// a subscriber on any store sees every store's events once and in order, and
// a cursor from one store resumes on another.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import fc from 'fast-check';
import type { ToolEvent } from '../../src/events/event-types.js';
import { PostgresEventStore } from '../../src/events/postgres/store.js';
import { PG_SKIP, startPostgres, type PgServer } from '../helpers/postgres.js';
import { opened, returned, until } from './store-conformance.js';

let server: PgServer;
before(async () => {
  if (!PG_SKIP) server = await startPostgres({ fast: true });
});
after(async () => {
  await server?.close();
});
const skip = PG_SKIP ? { skip: PG_SKIP } : {};

async function replicas(n: number, pollIntervalMs = 1000): Promise<PostgresEventStore[]> {
  const url = await server.newDatabase();
  return Promise.all(Array.from({ length: n }, () => PostgresEventStore.open({ url, pollIntervalMs, poolSize: 4 })));
}

const TENANTS = ['acme', 'globex', 'initech'];

test('three stores appending concurrently: every tenant stream is gap-free and complete; subscribers on every store see every event once, in order', { ...skip, timeout: 120_000 }, async () => {
  const stores = await replicas(3);
  const seen = stores.map(() => new Map<string, ToolEvent[]>());
  const unsubscribe = stores.flatMap((store, i) =>
    TENANTS.map((tenant) => {
      seen[i].set(tenant, []);
      return store.subscribe(tenant, (e) => seen[i].get(tenant)!.push(e));
    }),
  );
  try {
    const acknowledged: ToolEvent[] = [];
    // 3 stores × 300 appends of 1–2 events, many in flight at once.
    await Promise.all(
      stores.map(async (store, s) => {
        const inFlight: Array<Promise<void>> = [];
        for (let i = 0; i < 300; i++) {
          const tenant = TENANTS[(i + s) % TENANTS.length];
          const sessionId = `r${s}-${i}`;
          const batch = i % 2 ? [opened(tenant, sessionId), returned(tenant, sessionId, i)] : [opened(tenant, sessionId)];
          inFlight.push(store.append(batch).then((events) => void acknowledged.push(...events)));
          if (inFlight.length >= 16) await inFlight.shift();
        }
        await Promise.all(inFlight);
      }),
    );
    for (const tenant of TENANTS) {
      const mine = acknowledged.filter((e) => e.tenant === tenant).map((e) => e.sequence).sort((a, b) => a - b);
      assert.deepEqual(mine, mine.map((_, i) => i), `${tenant}: acknowledged sequences 0..n-1, no gap, no duplicate`);
      const stored = await stores[0].readAfterSerialized(tenant, -1, 10_000);
      assert.deepEqual(stored.map((e) => e.sequence), mine, `${tenant}: the store holds exactly what was acknowledged`);
      for (let i = 0; i < stores.length; i++) {
        await until(() => seen[i].get(tenant)!.length >= mine.length);
        assert.deepEqual(seen[i].get(tenant)!.map((e) => e.sequence), mine, `store ${i} delivered ${tenant}'s events once, in order`);
        assert.deepEqual(seen[i].get(tenant)!.map((e) => JSON.stringify(e)), stored.map((e) => e.json));
      }
    }
  } finally {
    for (const u of unsubscribe) u();
    await Promise.all(stores.map((s) => s.close()));
  }
});

test('any interleaving of appends from three stores numbers each tenant 0..n-1 (property)', { ...skip, timeout: 180_000 }, async () => {
  const stores = await replicas(3);
  try {
    let round = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ store: fc.integer({ min: 0, max: 2 }), tenant: fc.constantFrom('a', 'b'), size: fc.integer({ min: 1, max: 4 }), delay: fc.integer({ min: 0, max: 3 }) }), { minLength: 1, maxLength: 30 }),
        async (plan) => {
          const prefix = `p${round++}-`;
          const results = await Promise.all(
            plan.map(async ({ store, tenant, size, delay }, i) => {
              if (delay) await new Promise((r) => setTimeout(r, delay));
              return stores[store].append(Array.from({ length: size }, (_, k) => opened(prefix + tenant, `s${i}-${k}`)));
            }),
          );
          for (const tenant of ['a', 'b']) {
            const sequences = results.flat().filter((e) => e.tenant === prefix + tenant).map((e) => e.sequence).sort((x, y) => x - y);
            assert.deepEqual(sequences, sequences.map((_, i) => i));
          }
          // Each append's own events are consecutive, in the order given.
          for (const events of results) {
            for (let k = 1; k < events.length; k++) assert.equal(events[k].sequence, events[k - 1].sequence + 1);
          }
        },
      ),
      { numRuns: 40 },
    );
  } finally {
    await Promise.all(stores.map((s) => s.close()));
  }
});

test('a subscriber on one store gets another store\'s events without notifications, by the poll (bounded delay)', { ...skip, timeout: 30_000 }, async () => {
  const url = await server.newDatabase();
  const reader = await PostgresEventStore.open({ url, pollIntervalMs: 200 });
  try {
    const seen: number[] = [];
    reader.subscribe('acme', (e) => seen.push(e.sequence));
    // Appends that notify on another channel: the reader hears nothing and must poll.
    const silent = await PostgresEventStore.open({ url, channel: 'elsewhere', pollIntervalMs: 200 });
    try {
      const started = Date.now();
      await silent.append([opened('acme', 's1'), opened('acme', 's2')]);
      await until(() => seen.length === 2, 5000);
      assert.ok(Date.now() - started < 2000, 'within a few poll intervals');
      assert.deepEqual(seen, [0, 1]);
    } finally {
      await silent.close();
    }
  } finally {
    await reader.close();
  }
});

test('a cursor taken on one store resumes on another', skip, async () => {
  const [a, b] = await replicas(2);
  try {
    const first = await a.append([opened('acme', 's1'), opened('acme', 's2')]);
    await b.append([opened('acme', 's3')]);
    const cursor = first[1].sequence;
    assert.deepEqual((await b.readAfterSerialized('acme', cursor, 10)).map((e) => e.sequence), [2]);
    assert.equal(await b.lastSequence('acme'), 2);
    assert.equal(a.logId, b.logId);
  } finally {
    await a.close();
    await b.close();
  }
});
