// The PostgreSQL store's grant table (grant-table.ts says what it holds):
// created by the store's migration 3, shared by every replica of the store.
import type pg from 'pg';
import type { GrantRow, GrantTable } from '../grant-table.js';

const COLUMNS = `tenant, principal, source, kind, key_id AS "keyId", sealed, meta, to_char(updated_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS "updatedAt"`;

export const GRANTS_MIGRATION_SQL = `
  CREATE TABLE toolhost_upstream_grants (
    tenant     text NOT NULL,
    principal  text NOT NULL,
    source     text NOT NULL,
    kind       text NOT NULL,
    key_id     text NOT NULL,
    sealed     text NOT NULL,
    meta       text NOT NULL,
    updated_at timestamptz NOT NULL,
    PRIMARY KEY (tenant, principal, source)
  );`;

export function postgresGrantTable(pool: pg.Pool): GrantTable {
  const values = (r: GrantRow) => [r.tenant, r.principal, r.source, r.kind, r.keyId, r.sealed, r.meta, r.updatedAt];
  return {
    async get(tenant, principal, source) {
      const { rows } = await pool.query<GrantRow>(`SELECT ${COLUMNS} FROM toolhost_upstream_grants WHERE tenant = $1 AND principal = $2 AND source = $3`, [tenant, principal, source]);
      return rows[0];
    },
    async list(tenant, principal) {
      const { rows } = await pool.query<GrantRow>(`SELECT ${COLUMNS} FROM toolhost_upstream_grants WHERE tenant = $1 AND principal = $2 ORDER BY source`, [tenant, principal]);
      return rows;
    },
    async sealedWithOther(keyId, limit) {
      const { rows } = await pool.query<GrantRow>(`SELECT ${COLUMNS} FROM toolhost_upstream_grants WHERE key_id <> $1 LIMIT $2`, [keyId, limit]);
      return rows;
    },
    async put(row) {
      await pool.query(
        `INSERT INTO toolhost_upstream_grants (tenant, principal, source, kind, key_id, sealed, meta, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
         ON CONFLICT (tenant, principal, source) DO UPDATE SET kind = excluded.kind, key_id = excluded.key_id,
           sealed = excluded.sealed, meta = excluded.meta, updated_at = excluded.updated_at`,
        values(row),
      );
    },
    async replace(row, previous) {
      const res = await pool.query(
        `UPDATE toolhost_upstream_grants SET kind = $4, key_id = $5, sealed = $6, meta = $7, updated_at = $8
         WHERE tenant = $1 AND principal = $2 AND source = $3 AND sealed = $9`,
        [...values(row), previous],
      );
      return (res.rowCount ?? 0) > 0;
    },
    async delete(tenant, principal, source) {
      const res = await pool.query('DELETE FROM toolhost_upstream_grants WHERE tenant = $1 AND principal = $2 AND source = $3', [tenant, principal, source]);
      return (res.rowCount ?? 0) > 0;
    },
  };
}
