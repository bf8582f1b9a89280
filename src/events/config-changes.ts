// The admin API's changes, kept in the event store's database so that every
// replica applies the same changes in the same order and a replica started
// later reads them (docs/admin.md "Replicas"). One table of changes, each
// setting or removing one resource, numbered in commit order. A change is
// stored only if no change of the same resource was stored after the one its
// writer had applied: of two replicas that accepted the same If-Match, the
// second gets a conflict.
import type Database from 'better-sqlite3';
import type pg from 'pg';

export interface ConfigChange {
  kind: string;
  id: string;
  /** The resource as JSON; null: removed. */
  value: unknown;
  who: string;
}

export interface StoredConfigChange extends ConfigChange {
  seq: number;
  at: string;
}

export interface ConfigChangeStore {
  /** Stores `change` unless its resource changed after `knownSeq`; resolves to its sequence, or undefined for such a conflict. */
  appendChange(change: ConfigChange, knownSeq: number): Promise<number | undefined>;
  /** Every change after `seq`, in order. */
  readChangesAfter(seq: number): Promise<StoredConfigChange[]>;
}

export const SQLITE_CONFIG_CHANGES_TABLE = `
  CREATE TABLE IF NOT EXISTS toolhost_config_changes (
    seq   INTEGER PRIMARY KEY AUTOINCREMENT,
    kind  TEXT NOT NULL,
    id    TEXT NOT NULL,
    value TEXT,
    who   TEXT NOT NULL,
    at    TEXT NOT NULL
  );
  CREATE INDEX IF NOT EXISTS toolhost_config_changes_resource ON toolhost_config_changes (kind, id, seq);`;

export const POSTGRES_CONFIG_CHANGES_TABLE = `
  CREATE TABLE toolhost_config_changes (
    seq   bigserial PRIMARY KEY,
    kind  text NOT NULL,
    id    text NOT NULL,
    value text,
    who   text NOT NULL,
    at    timestamptz NOT NULL DEFAULT now()
  );
  CREATE INDEX toolhost_config_changes_resource ON toolhost_config_changes (kind, id, seq);`;

/** Held for the length of one append, so sequences are committed in order and a reader never skips one. */
const APPEND_LOCK_KEY = '8390876182755355509';

interface Row {
  seq: number | string;
  kind: string;
  id: string;
  value: string | null;
  who: string;
  at: string | Date;
}

const stored = (r: Row): StoredConfigChange => ({
  seq: Number(r.seq),
  kind: r.kind,
  id: r.id,
  value: r.value === null ? null : (JSON.parse(r.value) as unknown),
  who: r.who,
  at: r.at instanceof Date ? r.at.toISOString() : r.at,
});

export function sqliteConfigChanges(db: Database.Database): ConfigChangeStore {
  const conflict = db.prepare<[string, string, number]>('SELECT 1 FROM toolhost_config_changes WHERE kind = ? AND id = ? AND seq > ? LIMIT 1');
  const insert = db.prepare<[string, string, string | null, string, string]>('INSERT INTO toolhost_config_changes (kind, id, value, who, at) VALUES (?, ?, ?, ?, ?)');
  const after = db.prepare<[number], Row>('SELECT seq, kind, id, value, who, at FROM toolhost_config_changes WHERE seq > ? ORDER BY seq');
  const append = db.transaction((c: ConfigChange, knownSeq: number): number | undefined => {
    if (conflict.get(c.kind, c.id, knownSeq) !== undefined) return undefined;
    return Number(insert.run(c.kind, c.id, c.value === null ? null : JSON.stringify(c.value), c.who, new Date().toISOString()).lastInsertRowid);
  });
  return {
    appendChange: async (c, knownSeq) => append.immediate(c, knownSeq),
    readChangesAfter: async (seq) => after.all(seq).map(stored),
  };
}

export function postgresConfigChanges(pool: pg.Pool): ConfigChangeStore {
  return {
    async appendChange(c, knownSeq) {
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        try {
          await client.query('SELECT pg_advisory_xact_lock($1::bigint)', [APPEND_LOCK_KEY]);
          const clash = await client.query('SELECT 1 FROM toolhost_config_changes WHERE kind = $1 AND id = $2 AND seq > $3 LIMIT 1', [c.kind, c.id, knownSeq]);
          if (clash.rowCount !== 0) {
            await client.query('ROLLBACK');
            return undefined;
          }
          const { rows } = await client.query<{ seq: string }>('INSERT INTO toolhost_config_changes (kind, id, value, who) VALUES ($1, $2, $3, $4) RETURNING seq', [
            c.kind,
            c.id,
            c.value === null ? null : JSON.stringify(c.value),
            c.who,
          ]);
          await client.query('COMMIT');
          return Number(rows[0].seq);
        } catch (err) {
          await client.query('ROLLBACK').catch(() => {});
          throw err;
        }
      } finally {
        client.release();
      }
    },
    async readChangesAfter(seq) {
      const { rows } = await pool.query<Row>('SELECT seq, kind, id, value, who, at FROM toolhost_config_changes WHERE seq > $1 ORDER BY seq', [seq]);
      return rows.map(stored);
    },
  };
}
