// Where upstream credentials (a principal's own API key, OAuth grants) are
// kept: a table in the event store's database, so every replica sharing that
// store sees the same grants and a restart keeps them. The table holds what
// the upstream layer hands it: an opaque sealed value (ciphertext, made and
// opened above this layer) and non-secret metadata (scopes, expiry, state).
// Nothing here can read a credential.
import type Database from 'better-sqlite3';

export interface GrantRow {
  tenant: string;
  /** The principal's stable key within its tenant (kind and id). */
  principal: string;
  /** The source the credential is for (`mcp:<id>`, `connector:<id>`). */
  source: string;
  /** `static` (a secret the principal supplied) or `oauth` (a grant). */
  kind: string;
  /** The id of the key that sealed `sealed`. */
  keyId: string;
  /** The sealed credential (ciphertext and tag, base64url). */
  sealed: string;
  /** Non-secret JSON: scopes, expiry, state. */
  meta: string;
  /** ISO 8601 UTC. */
  updatedAt: string;
}

export interface GrantTable {
  get(tenant: string, principal: string, source: string): Promise<GrantRow | undefined>;
  /** Every grant of one principal. */
  list(tenant: string, principal: string): Promise<GrantRow[]>;
  /** Grants sealed with a key other than `keyId` (for re-sealing after a key rotation), at most `limit`. */
  sealedWithOther(keyId: string, limit: number): Promise<GrantRow[]>;
  put(row: GrantRow): Promise<void>;
  /** Replaces a row only if it still holds `previousSealed` (a concurrent writer wins otherwise); true when replaced. */
  replace(row: GrantRow, previousSealed: string): Promise<boolean>;
  delete(tenant: string, principal: string, source: string): Promise<boolean>;
}

const COLUMNS = 'tenant, principal, source, kind, key_id AS keyId, sealed, meta, updated_at AS updatedAt';

/** The SQLite log's grant table, created on first use in the log's own file. */
export function sqliteGrantTable(db: Database.Database): GrantTable {
  db.exec(`
    CREATE TABLE IF NOT EXISTS upstream_grants (
      tenant     TEXT NOT NULL,
      principal  TEXT NOT NULL,
      source     TEXT NOT NULL,
      kind       TEXT NOT NULL,
      key_id     TEXT NOT NULL,
      sealed     TEXT NOT NULL,
      meta       TEXT NOT NULL,
      updated_at TEXT NOT NULL,
      PRIMARY KEY (tenant, principal, source)
    ) WITHOUT ROWID;`);
  const get = db.prepare<[string, string, string], GrantRow>(`SELECT ${COLUMNS} FROM upstream_grants WHERE tenant = ? AND principal = ? AND source = ?`);
  const list = db.prepare<[string, string], GrantRow>(`SELECT ${COLUMNS} FROM upstream_grants WHERE tenant = ? AND principal = ? ORDER BY source`);
  const other = db.prepare<[string, number], GrantRow>(`SELECT ${COLUMNS} FROM upstream_grants WHERE key_id <> ? LIMIT ?`);
  const put = db.prepare<GrantRow>(
    `INSERT INTO upstream_grants (tenant, principal, source, kind, key_id, sealed, meta, updated_at)
     VALUES (@tenant, @principal, @source, @kind, @keyId, @sealed, @meta, @updatedAt)
     ON CONFLICT (tenant, principal, source) DO UPDATE SET kind = excluded.kind, key_id = excluded.key_id,
       sealed = excluded.sealed, meta = excluded.meta, updated_at = excluded.updated_at`,
  );
  const replace = db.prepare<GrantRow & { previous: string }>(
    `UPDATE upstream_grants SET kind = @kind, key_id = @keyId, sealed = @sealed, meta = @meta, updated_at = @updatedAt
     WHERE tenant = @tenant AND principal = @principal AND source = @source AND sealed = @previous`,
  );
  const del = db.prepare<[string, string, string]>('DELETE FROM upstream_grants WHERE tenant = ? AND principal = ? AND source = ?');
  return {
    get: async (tenant, principal, source) => get.get(tenant, principal, source),
    list: async (tenant, principal) => list.all(tenant, principal),
    sealedWithOther: async (keyId, limit) => other.all(keyId, limit),
    put: async (row) => void put.run(row),
    replace: async (row, previous) => replace.run({ ...row, previous }).changes > 0,
    delete: async (tenant, principal, source) => del.run(tenant, principal, source).changes > 0,
  };
}
