// The PostgreSQL event store against a real PostgreSQL server: the guarantees
// every store gives (run against SQLite too), the same wire JSON as SQLite,
// migrations when several replicas start together, and what health shows.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import fc from 'fast-check';
import pg from 'pg';
import { EventLog } from '../../src/events/sqlite/log.js';
import { PostgresEventStore, type PostgresEventStoreOptions } from '../../src/events/postgres/store.js';
import type { EventStore } from '../../src/events/store.js';
import { PG_SKIP, startPostgres, type PgServer } from '../helpers/postgres.js';
import { logFile } from './helpers.js';
import { conformance, opened, returned } from './store-conformance.js';

let server: PgServer;
before(async () => {
  if (!PG_SKIP) server = await startPostgres({ fast: true });
});
after(async () => {
  await server?.close();
});

async function openPg(options: Omit<PostgresEventStoreOptions, 'url'> = {}, url?: string): Promise<PostgresEventStore> {
  return PostgresEventStore.open({ url: url ?? (await server.newDatabase()), pollIntervalMs: 200, ...options });
}

/** The SQLite log, the other EventStore. */
function sqliteStore(options: { maxEvents?: number; retentionDays?: number } = {}): EventStore {
  return EventLog.open(logFile(), options);
}

const skip = PG_SKIP ? { skip: PG_SKIP } : {};

for (const [name, body] of conformance('sqlite', async (options) => sqliteStore(options))) test(name, body);
for (const [name, body] of conformance('postgres', (options) => openPg(options))) test(name, skip, body);

test('postgres: an event is the same wire JSON as SQLite makes of it (any identifiers and durations)', { ...skip, timeout: 120_000 }, async () => {
  const pgStore = await openPg();
  const lite = sqliteStore();
  try {
    const id = fc.string({ minLength: 1, maxLength: 40, unit: 'binary' }).filter((s) => !s.includes('\u0000'));
    await fc.assert(
      fc.asyncProperty(id, id, fc.double({ min: 0, max: 1e12, noNaN: true }), async (sessionId, toolId, durationMs) => {
        const input = [opened('acme', sessionId, toolId), { ...returned('acme', sessionId, durationMs), payload: { sessionId, toolId, callId: toolId, status: 'ok', durationMs } }] as const;
        const [a, b] = await Promise.all([pgStore.append(input), lite.append(input)]);
        const fromPg = await pgStore.readAfterSerialized('acme', a[0].sequence - 1, 2);
        const fromLite = await lite.readAfterSerialized('acme', b[0].sequence - 1, 2);
        // Same event (same id, time and sequence) → the same bytes from both stores.
        const normalize = (json: string, from: { eventId: string; timestamp: string; sequence: number }, to: { eventId: string; timestamp: string; sequence: number }) =>
          json.replace(JSON.stringify(from.eventId), JSON.stringify(to.eventId)).replace(JSON.stringify(from.timestamp), JSON.stringify(to.timestamp)).replace(`"sequence":${from.sequence},`, `"sequence":${to.sequence},`);
        for (let i = 0; i < 2; i++) {
          assert.equal(normalize(fromLite[i].json, b[i], a[i]), fromPg[i].json);
          assert.equal(fromPg[i].json, JSON.stringify(a[i]));
        }
      }),
      { numRuns: 150 },
    );
  } finally {
    await pgStore.close();
    await lite.close();
  }
});

test('postgres: replicas starting together migrate once and share one logId', skip, async () => {
  const url = await server.newDatabase();
  const stores = await Promise.all(Array.from({ length: 4 }, () => openPg({}, url)));
  try {
    assert.equal(new Set(stores.map((s) => s.logId)).size, 1);
    const client = new pg.Client(url);
    await client.connect();
    try {
      const { rows } = await client.query('SELECT version FROM toolhost_schema_migrations ORDER BY version');
      assert.deepEqual(rows, [{ version: 1 }, { version: 2 }, { version: 3 }]);
    } finally {
      await client.end();
    }
    const again = await openPg({}, url);
    assert.equal(again.logId, stores[0].logId, 'a later start finds the same log');
    await again.close();
  } finally {
    await Promise.all(stores.map((s) => s.close()));
  }
});

test('postgres: a database migrated by a newer host is refused', skip, async () => {
  const url = await server.newDatabase();
  (await openPg({}, url)).close();
  const client = new pg.Client(url);
  await client.connect();
  await client.query('INSERT INTO toolhost_schema_migrations (version) VALUES (99)');
  await client.end();
  await assert.rejects(openPg({}, url), /schema is at version 99, newer than this host understands/);
});

test('postgres: health names the server and its round trip, never the password; a bad password fails without showing it', skip, async () => {
  const store = await openPg();
  try {
    await store.check();
    const health = store.health();
    assert.equal(health.writable, true);
    assert.equal(health.database?.state, 'reachable');
    assert.match(health.database?.server ?? '', /^127\.0\.0\.1:\d+\/toolhost_\d+$/);
    assert.equal(typeof health.database?.latencyMs, 'number');
    assert.ok(!JSON.stringify(health).includes(server.password));
  } finally {
    await store.close();
  }
  const wrong = server.url.replace(server.password, 'wrong-password-not-shown');
  const err = await openPg({}, wrong).then(
    () => assert.fail('opened with a wrong password'),
    (e: Error) => e,
  );
  assert.match(err.message, /password authentication failed/);
  assert.ok(!err.message.includes('wrong-password-not-shown'));
  assert.ok(!err.message.includes(server.password));
});

test('postgres: a big append is split into batches and still numbered without a gap', skip, async () => {
  const store = await openPg();
  try {
    const many = Array.from({ length: 2500 }, (_, i) => opened(i % 2 ? 'acme' : 'globex', `s${i}`));
    const results = await Promise.all([store.append(many.slice(0, 1200)), store.append(many.slice(1200))]);
    const acme = results.flat().filter((e) => e.tenant === 'acme').map((e) => e.sequence);
    assert.deepEqual(acme, Array.from({ length: 1250 }, (_, i) => i));
  } finally {
    await store.close();
  }
});
