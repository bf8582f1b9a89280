// Principals' upstream secrets at rest: AES-256-GCM sealing bound to its row,
// key rotation (the newest key seals, any configured key opens, re-sealing
// moves every row to the newest), and the grant table in both event stores:
// the SQLite log's file and a real PostgreSQL database, read with SQL to see
// that only ciphertext is stored.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import pino from 'pino';
import { principalKey, type Principal } from '../../src/auth/principal.js';
import { EventLog } from '../../src/events/sqlite/log.js';
import { PostgresEventStore } from '../../src/events/postgres/store.js';
import type { EventStore } from '../../src/events/store.js';
import { decodeKey, Keyring, SealError } from '../../src/upstream/cipher.js';
import { UpstreamCredentials } from '../../src/upstream/credentials.js';
import { PG_SKIP, startPostgres, type PgServer } from '../helpers/postgres.js';
import { tempDir } from '../helpers/server.js';

const K1 = { id: 'k1', key: Buffer.alloc(32, 1) };
const K2 = { id: 'k2', key: Buffer.alloc(32, 2) };
const SECRET = 'a-principal-secret-3e9d1c';
const logger = pino({ level: 'silent' });
const alice: Principal = { id: 'alice', tenant: 'acme', scopes: new Set(), kind: 'api-key', key: principalKey('api-key', 'acme', 'alice') };
const bob: Principal = { id: 'bob', tenant: 'acme', scopes: new Set(), kind: 'api-key', key: principalKey('api-key', 'acme', 'bob') };
const sources = new Map([['mcp:who', { config: { mode: 'per-principal' as const } }]]);

describe('sealing', () => {
  test('opens what it sealed, only for the same row and unaltered', () => {
    const ring = new Keyring([K1]);
    const { keyId, sealed } = ring.seal(SECRET, 'acme\0alice\0mcp:who');
    assert.equal(keyId, 'k1');
    assert.ok(!sealed.includes(SECRET) && !sealed.includes(Buffer.from(SECRET).toString('base64url')));
    assert.equal(ring.open(keyId, sealed, 'acme\0alice\0mcp:who'), SECRET);
    assert.throws(() => ring.open(keyId, sealed, 'acme\0bob\0mcp:who'), SealError, 'moved to another principal\'s row');
    const flipped = Buffer.from(sealed, 'base64url');
    flipped[20] ^= 1;
    assert.throws(() => ring.open(keyId, flipped.toString('base64url'), 'acme\0alice\0mcp:who'), SealError);
    assert.throws(() => ring.open('k9', sealed, 'acme\0alice\0mcp:who'), /not configured/);
    assert.notEqual(ring.seal(SECRET, 'x').sealed, ring.seal(SECRET, 'x').sealed, 'a fresh IV each time');
  });

  test('keys are 32 bytes, in hex or base64', () => {
    assert.equal(decodeKey('ab'.repeat(32), 'k').length, 32);
    assert.equal(decodeKey(Buffer.alloc(32, 9).toString('base64'), 'k').length, 32);
    assert.throws(() => decodeKey('c2hvcnQ=', '/upstreamCredentials/keys/0/secret'), /\/upstreamCredentials\/keys\/0\/secret: a sealing key must be 32 bytes/);
  });
});

/** Stores secrets under k1, rotates to k2 (k1 still opens), re-seals, drops k1; `raw` reads the table with SQL. */
async function rotation(store: EventStore, raw: () => Promise<{ principal: string; key_id: string; sealed: string }[]>): Promise<void> {
  const table = store.grants!();
  const old = new UpstreamCredentials({ sources, table, keyring: new Keyring([K1]), logger });
  await old.setSecret('mcp:who', alice, SECRET);
  await old.setSecret('mcp:who', bob, `${SECRET}-bob`);
  const secretOf = async (c: UpstreamCredentials, p: Principal) => {
    const r = await c.forCall('mcp:who', p);
    assert.ok(r && 'credential' in r, JSON.stringify(r));
    return r.credential.headers.Authorization;
  };
  const rotated = new UpstreamCredentials({ sources, table, keyring: new Keyring([K2, K1]), logger });
  assert.equal(await secretOf(rotated, alice), `Bearer ${SECRET}`, 'an older key still opens');
  assert.deepEqual((await raw()).map((r) => r.key_id), ['k1', 'k1']);
  assert.equal(await rotated.resealAll(), 2);
  const rows = await raw();
  assert.deepEqual(rows.map((r) => `${r.principal} ${r.key_id}`), ['api-key:alice k2', 'api-key:bob k2']);
  for (const r of rows) assert.ok(!JSON.stringify(r).includes(SECRET), 'only ciphertext in the table');
  const newOnly = new UpstreamCredentials({ sources, table, keyring: new Keyring([K2]), logger });
  assert.equal(await secretOf(newOnly, alice), `Bearer ${SECRET}`);
  assert.equal(await secretOf(newOnly, bob), `Bearer ${SECRET}-bob`);
  // A row copied into another principal's place does not open for that principal.
  const [a] = rows;
  await table.put({ ...(await table.get('acme', 'api-key:alice', 'mcp:who'))!, principal: 'api-key:bob', sealed: a.sealed });
  const stolen = await newOnly.forCall('mcp:who', bob);
  assert.ok(stolen && 'connect' in stolen, 'a copied sealed value asks to connect, never opens');
  assert.equal(await newOnly.remove('mcp:who', alice), true);
  assert.ok(await newOnly.forCall('mcp:who', alice).then((r) => r && 'connect' in r));
}

test('SQLite: rotation and re-sealing; the table holds ciphertext only', async () => {
  const file = join(tempDir(), 'events.sqlite');
  const log = EventLog.open(file);
  const Database = (await import('better-sqlite3')).default;
  const reader = new Database(file, { readonly: true });
  try {
    await rotation(log, async () => reader.prepare('SELECT principal, key_id, sealed FROM upstream_grants ORDER BY principal').all() as never);
  } finally {
    reader.close();
    await log.close();
  }
});

describe('PostgreSQL', { skip: PG_SKIP }, () => {
  let server: PgServer;
  before(async () => {
    server = await startPostgres({ fast: true });
  });
  after(async () => {
    await server?.close();
  });

  test('migration 3 makes the grant table; rotation and re-sealing; ciphertext only', async () => {
    const url = await server.newDatabase();
    const store = await PostgresEventStore.open({ url });
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      await rotation(store, async () => (await client.query('SELECT principal, key_id, sealed FROM toolhost_upstream_grants ORDER BY principal')).rows);
      const versions = (await client.query('SELECT version FROM toolhost_schema_migrations ORDER BY version')).rows.map((r) => r.version);
      assert.deepEqual(versions, [1, 2, 3]);
    } finally {
      await client.end();
      await store.close();
    }
  });
});
