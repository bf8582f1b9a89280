// What a config reload may change and what it may not, decided by comparing
// the running config with the candidate: the sections fixed at start (the
// listen address, the event store, ...) are kept as they are and named; an
// upstream source (MCP server, connector) whose entry is unchanged keeps its
// running instance, with its connection or child process.
import { isDeepStrictEqual } from 'node:util';
import type { HostConfigFile } from '../config/schema.js';

/**
 * Top-level sections read once at start: what they configure (the listening
 * socket, the event store, the Redis connection, the MCP front door, the
 * metrics registry, the auth layer's verifiers, the admin API's keys) is
 * built around them.
 */
export const FIXED_SECTIONS = ['server', 'events', 'redis', 'mcp', 'metrics', 'catalog', 'search', 'auth', 'admin'] as const;

/** The upstream kinds whose running instances a reload keeps when their entry is unchanged. */
export const UPSTREAM_KINDS = [
  { section: 'mcp', kind: 'mcp' },
  { section: 'connectors', kind: 'connector' },
] as const;

export interface FixedSettingsResult {
  /** The candidate with every fixed section as it runs now. */
  config: HostConfigFile;
  /** The fixed sections the candidate changed (refused, by name). */
  refused: string[];
}

/** Keeps the running value of each fixed section; lists the ones the candidate would change. */
export function keepFixedSettings(running: HostConfigFile, candidate: HostConfigFile): FixedSettingsResult {
  const config: Record<string, unknown> = { ...candidate };
  const refused: string[] = [];
  for (const key of FIXED_SECTIONS) {
    if (isDeepStrictEqual(running[key], candidate[key])) continue;
    refused.push(key);
    if (running[key] === undefined) delete config[key];
    else config[key] = running[key];
  }
  return { config: config as HostConfigFile, refused };
}

export interface UpstreamPlan {
  /** Source ids (`mcp:x`, `connector:y`) whose running instance is kept. */
  kept: Set<string>;
  /** The candidate with only the upstream entries that need a new instance (added or changed). */
  fresh: HostConfigFile;
}

/** Which upstream sources keep running as they are, and the config of those that must be (re)made. */
export function planUpstreams(running: HostConfigFile, candidate: HostConfigFile): UpstreamPlan {
  const kept = new Set<string>();
  const sources: Record<string, unknown> = { ...candidate.sources };
  for (const { section, kind } of UPSTREAM_KINDS) {
    const before = new Map((running.sources?.[section] ?? []).map((e) => [e.id, e as unknown]));
    const entries = candidate.sources?.[section] ?? [];
    const changed = entries.filter((e) => {
      const same = before.has(e.id) && isDeepStrictEqual(before.get(e.id), e);
      if (same) kept.add(`${kind}:${e.id}`);
      return !same;
    });
    if (candidate.sources?.[section] !== undefined) sources[section] = changed;
  }
  return { kept, fresh: { ...candidate, sources: sources as HostConfigFile['sources'] } };
}

/** Whether two values are equal as JSON (key order aside). */
export function sameValue(a: unknown, b: unknown): boolean {
  return isDeepStrictEqual(a, b);
}
