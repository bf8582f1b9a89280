// The bench host's configuration, shared by the orchestrator (which writes it
// as YAML for serve()) and the in-process build benchmark (which hands the
// same policy and tenants to a CatalogStore).
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import type { PolicyConfig } from '../src/classify/policy.js';
import { tenantGlobs } from './tools.js';

export const SERVER_ID = 'bench';
export const TENANTS = ['all', 'mid', 'small'] as const;
export type TenantName = (typeof TENANTS)[number];

/** A fresh API key per tenant for one bench process, and its bearer header. */
export function benchKeys(): { keys: Record<TenantName, string>; auth: (t: TenantName) => string } {
  const keys = Object.fromEntries(TENANTS.map((t) => [t, `bench-${t}-${randomBytes(16).toString('hex')}`])) as Record<TenantName, string>;
  return { keys, auth: (t) => `Bearer ${keys[t]}` };
}

/** A realistic host policy: reads, destructive operations behind approval and a scope, defaults for the rest. */
export const POLICY: PolicyConfig = {
  defaults: { mcp: { egress: 'host-mediated', replayPolicy: 'non-deterministic' } },
  rules: [
    {
      match: ['mcp:bench.*_get_*', 'mcp:bench.*_list_*', 'mcp:bench.*_search_*', 'mcp:bench.*_export_*'],
      safetyTier: 'read',
      replayPolicy: 'idempotent',
      latencyHint: 'low',
    },
    { match: ['mcp:bench.*_delete_*', 'mcp:bench.*_archive_*'], safetyTier: 'write', approval: 'always', scopes: ['catalog.destructive'] },
    { match: 'mcp:bench.k8s_*', costHint: 'high', latencyHint: 'high' },
  ],
};

/** Every bench principal holds the scope the destructive rule asks for, so tenant sizes stay 10,000 / 1,000 / 50. */
export const PRINCIPAL_SCOPES = ['catalog.destructive', 'unrelated.scope'];

export const REPO_ROOT = fileURLToPath(new URL('..', import.meta.url));
export const UPSTREAM = fileURLToPath(new URL('./upstream.ts', import.meta.url));

export interface BenchConfigOptions {
  tools: number;
  pageSize: number;
  controlFile: string;
  keyHashes: Record<TenantName, string>;
  audit: boolean;
}

export function benchConfig(o: BenchConfigOptions): object {
  const globs = tenantGlobs(SERVER_ID);
  return {
    auth: { audit: o.audit },
    mcp: { enabled: true },
    tenants: Object.fromEntries(TENANTS.map((t) => [t, { description: `bench tenant ${t}`, tools: globs[t], rateLimit: false }])),
    principals: TENANTS.map((t) => ({ id: `bench-${t}`, tenant: t, scopes: PRINCIPAL_SCOPES, keyHash: o.keyHashes[t] })),
    policy: POLICY,
    sources: {
      mcp: [
        {
          id: SERVER_ID,
          transport: 'stdio',
          command: process.execPath,
          // BENCH_PROFILE=DIR: the upstream writes its CPU profile there when it exits.
          args: [...(process.env.BENCH_PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROFILE}`] : []), '--import', 'tsx', UPSTREAM, '--tools', String(o.tools), '--page-size', String(o.pageSize), '--control-file', o.controlFile],
          cwd: REPO_ROOT,
          connectTimeoutMs: 120_000,
          pageTimeoutMs: 30_000,
          maxTools: Math.max(10_000, o.tools),
          // Reads come from list_changed; keep periodic re-reads out of the measurements.
          refreshIntervalMs: 0,
        },
      ],
    },
  };
}
