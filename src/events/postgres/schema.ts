// The PostgreSQL event store's tables and their migrations (docs/contract.md "Tool
// sessions": one durable, ordered log per tenant, here shared by every
// replica). Several replicas usually start together against one database, so
// migrating runs under a session-level advisory lock: the first replica to
// take it applies what is missing, each step in its own transaction recorded
// in `toolhost_schema_migrations`; the others wait for the lock, then find
// nothing left to do. A database migrated by a newer host (a version this one
// does not know) is refused rather than written with the wrong assumptions.
import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { POSTGRES_CONFIG_CHANGES_TABLE } from '../config-changes.js';
import { GRANTS_MIGRATION_SQL } from './grant-table.js';

/** 'toolhost' in ASCII, as the advisory lock's key: any fixed number would do, this one is unlikely to be another program's. */
export const MIGRATION_LOCK_KEY = '8390876182755355508';

interface Migration {
  version: number;
  sql: string;
}

const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    sql: `
      CREATE TABLE toolhost_event_streams (
        tenant        text PRIMARY KEY,
        last_sequence bigint NOT NULL
      );
      CREATE TABLE toolhost_events (
        id         bigserial PRIMARY KEY,   -- insertion order across tenants (retention by count)
        tenant     text NOT NULL,
        sequence   bigint NOT NULL,
        event_id   uuid NOT NULL UNIQUE,
        type       text NOT NULL,
        ts         timestamptz NOT NULL,    -- retention by age
        session_id text NOT NULL,
        json       text NOT NULL,           -- the event's wire JSON, served as stored
        UNIQUE (tenant, sequence)
      );
      CREATE INDEX toolhost_events_session ON toolhost_events (tenant, session_id, sequence);
      CREATE INDEX toolhost_events_ts ON toolhost_events (ts);
      CREATE TABLE toolhost_event_meta (
        key   text PRIMARY KEY,
        value text NOT NULL
      );`,
  },
  { version: 2, sql: POSTGRES_CONFIG_CHANGES_TABLE },
  { version: 3, sql: GRANTS_MIGRATION_SQL },
];

export const SCHEMA_VERSION = MIGRATIONS[MIGRATIONS.length - 1].version;

/**
 * Brings the database to SCHEMA_VERSION (once, whoever else migrates at the
 * same time) and returns the log's identity: a random id made with the
 * tables, the same for every replica.
 */
export async function migrate(pool: pg.Pool): Promise<{ logId: string; applied: number[] }> {
  const client = await pool.connect();
  const applied: number[] = [];
  try {
    await client.query('SELECT pg_advisory_lock($1::bigint)', [MIGRATION_LOCK_KEY]);
    try {
      await client.query(`CREATE TABLE IF NOT EXISTS toolhost_schema_migrations (
        version    integer PRIMARY KEY,
        applied_at timestamptz NOT NULL DEFAULT now()
      )`);
      const { rows } = await client.query<{ version: number | null }>('SELECT max(version) AS version FROM toolhost_schema_migrations');
      const current = rows[0]?.version ?? 0;
      if (current > SCHEMA_VERSION) {
        throw new Error(`the event store's schema is at version ${current}, newer than this host understands (${SCHEMA_VERSION}); run a newer toolhost`);
      }
      for (const migration of MIGRATIONS) {
        if (migration.version <= current) continue;
        await client.query('BEGIN');
        try {
          await client.query(migration.sql);
          await client.query('INSERT INTO toolhost_schema_migrations (version) VALUES ($1)', [migration.version]);
          await client.query('COMMIT');
        } catch (err) {
          await client.query('ROLLBACK').catch(() => {});
          throw err;
        }
        applied.push(migration.version);
      }
      await client.query(`INSERT INTO toolhost_event_meta (key, value) VALUES ('logId', $1) ON CONFLICT (key) DO NOTHING`, [randomUUID()]);
      const meta = await client.query<{ value: string }>(`SELECT value FROM toolhost_event_meta WHERE key = 'logId'`);
      return { logId: meta.rows[0].value, applied };
    } finally {
      await client.query('SELECT pg_advisory_unlock($1::bigint)', [MIGRATION_LOCK_KEY]).catch(() => {});
    }
  } finally {
    // Ended, not pooled: a lock an unlock failed to release goes with the session.
    client.release(true);
  }
}
