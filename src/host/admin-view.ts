// How the admin API shows configuration and change: resources with literal
// values that may be credentials masked (an MCP server's `env` and `headers`
// values without a `${VAR}` reference), strong ETags made from the resource's
// JSON, problems mapped onto JSON pointers of the request body, and what a
// change does to each tenant's tools.
import { createHash } from 'node:crypto';
import type { CatalogSnapshot } from '../catalog/snapshot.js';
import type { ResourceKind } from '../config/layer.js';
import type { HostConfigFile } from '../config/schema.js';

/** What a masked value reads as; written back unchanged, it keeps the value it stands for. */
export const MASKED = '(masked)';
const MASKED_MAPS = ['env', 'headers'] as const;

/** The resource as the admin API answers it: no literal credential. */
export function masked(kind: ResourceKind, value: unknown): unknown {
  if (kind !== 'mcp' || typeof value !== 'object' || value === null) return value;
  const out: Record<string, unknown> = { ...(value as Record<string, unknown>) };
  for (const key of MASKED_MAPS) {
    const map = out[key];
    if (typeof map !== 'object' || map === null) continue;
    out[key] = Object.fromEntries(Object.entries(map).map(([k, v]) => [k, typeof v === 'string' && v.includes('${') ? v : MASKED]));
  }
  return out;
}

/** A whole config as the admin API and `toolhost config export` show it: MCP servers' literal values masked. */
export function maskedConfig(config: HostConfigFile): HostConfigFile {
  const sources = config.sources === undefined ? undefined : { ...config.sources, mcp: config.sources.mcp?.map((e) => masked('mcp', e) as typeof e) };
  return { ...config, ...(sources ? { sources } : {}) };
}

/** A written resource with each masked value put back from the resource it replaces. */
export function unmasked(kind: ResourceKind, value: unknown, before: unknown): unknown {
  if (kind !== 'mcp' || typeof value !== 'object' || value === null) return value;
  const out: Record<string, unknown> = { ...(value as Record<string, unknown>) };
  const prior = (before ?? {}) as Record<string, Record<string, unknown> | undefined>;
  for (const key of MASKED_MAPS) {
    const map = out[key];
    if (typeof map !== 'object' || map === null) continue;
    out[key] = Object.fromEntries(Object.entries(map).map(([k, v]) => [k, v === MASKED && prior[key]?.[k] !== undefined ? prior[key]![k] : v]));
  }
  return out;
}

/** A digest of a value's JSON: audit records carry it instead of the value. */
export function digestOf(value: unknown): string | null {
  return value === undefined ? null : `sha256:${createHash('sha256').update(JSON.stringify(value)).digest('hex')}`;
}

/** The strong ETag of a resource (absent: the ETag of "no such resource", which an If-Match never matches). */
export function etagOf(value: unknown): string {
  return `"${createHash('sha256').update(JSON.stringify(value ?? null)).digest('base64url').slice(0, 27)}"`;
}

export interface Problem {
  /** Where in the request body (or, with `in: "config"`, in the effective config). */
  pointer: string;
  in: 'body' | 'config';
  message: string;
}

/** Config problems (`place: /pointer: message`) as pointers into the body written at `at`, or into the config. */
export function problemsOf(lines: readonly string[], at: string | undefined): Problem[] {
  return lines.map((line) => {
    const m = /^.*?:\d+:\d+: (\/[^:]*): (.*)$/s.exec(line);
    if (m === null) return { pointer: '', in: 'config', message: line.replace(/^[^:]*: /, '') };
    const [, pointer, message] = m;
    if (at !== undefined && (pointer === at || pointer.startsWith(`${at}/`))) return { pointer: pointer.slice(at.length), in: 'body', message };
    return { pointer: pointer === '/' ? '' : pointer, in: 'config', message };
  });
}

export interface TenantDiff {
  added: string[];
  removed: string[];
  /** Tools whose tier or approval changed: `toolId: before -> after`. */
  reclassified: { toolId: string; before: string; after: string }[];
}

/** Per tenant, what a caller holding every scope would gain, lose, or see classified differently. */
export function catalogDiff(before: CatalogSnapshot, after: CatalogSnapshot, tenants: readonly string[]): Record<string, TenantDiff> {
  const out: Record<string, TenantDiff> = {};
  const scopes = new Set([...before.entries, ...after.entries].flatMap((e) => e.tool.descriptor.auth?.scopes ?? []));
  const classes = (snapshot: CatalogSnapshot, tenant: string) =>
    new Map(snapshot.viewFor({ tenant, scopes }).entries.map((e) => [e.tool.descriptor.toolId, `${e.tool.descriptor.safetyTier}/${e.tool.descriptor.approval ?? 'never'}`]));
  for (const tenant of [...new Set(tenants)].sort()) {
    const old = classes(before, tenant);
    const next = classes(after, tenant);
    const diff: TenantDiff = {
      added: [...next.keys()].filter((id) => !old.has(id)),
      removed: [...old.keys()].filter((id) => !next.has(id)),
      reclassified: [...next].filter(([id, c]) => old.has(id) && old.get(id) !== c).map(([toolId, c]) => ({ toolId, before: old.get(toolId)!, after: c })),
    };
    if (diff.added.length + diff.removed.length + diff.reclassified.length > 0) out[tenant] = diff;
  }
  return out;
}
