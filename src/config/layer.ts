// Changes made through the admin API, kept as a layer over the config file:
// each entry sets or removes one resource (an MCP server, a connector, a
// tenant, the policy's rule list). The effective config is the file with the
// layer applied, so a reloaded file keeps the API's changes on top, and the
// same layer applied by every replica gives every replica the same config.
import type { HostConfigFile } from './schema.js';

export const RESOURCE_KINDS = ['mcp', 'connectors', 'tenants', 'policy-rules'] as const;
export type ResourceKind = (typeof RESOURCE_KINDS)[number];

export interface LayerEntry {
  kind: ResourceKind;
  /** The resource's id (a tenant id, a source id); `""` for the policy's rule list. */
  id: string;
  /** The resource as the config file would hold it; null: removed. */
  value: unknown;
}

export type ConfigLayer = ReadonlyMap<string, LayerEntry>;

export function layerKey(kind: ResourceKind, id: string): string {
  return `${kind}/${id}`;
}

/** The layer with one more change (the latest change of a resource wins). */
export function withChange(layer: ConfigLayer, entry: LayerEntry): Map<string, LayerEntry> {
  const next = new Map(layer);
  const key = layerKey(entry.kind, entry.id);
  next.delete(key);
  next.set(key, entry);
  return next;
}

/** The effective config: `file` with every change of `layer` applied, in order. `file` is not modified. */
export function applyLayer(file: HostConfigFile, layer: ConfigLayer): HostConfigFile {
  const config = structuredClone(file) as HostConfigFile & Record<string, unknown>;
  for (const entry of layer.values()) applyEntry(config, entry);
  return config;
}

function applyEntry(config: HostConfigFile, { kind, id, value }: LayerEntry): void {
  if (kind === 'tenants') {
    const tenants = { ...config.tenants } as Record<string, unknown>;
    if (value === null) delete tenants[id];
    else tenants[id] = value;
    config.tenants = tenants as HostConfigFile['tenants'];
    return;
  }
  if (kind === 'policy-rules') {
    const policy = { ...(config.policy ?? {}) } as Record<string, unknown>;
    if (value === null) delete policy.rules;
    else policy.rules = value;
    config.policy = policy as HostConfigFile['policy'];
    return;
  }
  const sources = { ...(config.sources ?? {}) } as Record<string, { id: unknown }[] | undefined>;
  const list = [...(sources[kind] ?? [])];
  const at = list.findIndex((e) => e.id === id);
  if (value === null) {
    if (at >= 0) list.splice(at, 1);
  } else if (at >= 0) list[at] = value as { id: unknown };
  else list.push(value as { id: unknown });
  sources[kind] = list;
  config.sources = sources as HostConfigFile['sources'];
}

/** One resource of the effective config, or undefined when it does not exist. */
export function resourceOf(config: HostConfigFile, kind: ResourceKind, id: string): unknown {
  if (kind === 'tenants') return Object.hasOwn(config.tenants, id) ? config.tenants[id] : undefined;
  if (kind === 'policy-rules') return config.policy?.rules ?? [];
  return (config.sources?.[kind] as { id: unknown }[] | undefined)?.find((e) => e.id === id);
}

/** Every resource of a kind, by id. */
export function resourcesOf(config: HostConfigFile, kind: Exclude<ResourceKind, 'policy-rules'>): [string, unknown][] {
  if (kind === 'tenants') return Object.entries(config.tenants);
  return ((config.sources?.[kind] ?? []) as { id: string }[]).map((e) => [e.id, e]);
}

/** Where a resource lives in the config file, as a JSON pointer (to map a problem's place onto the request body). */
export function pointerOf(config: HostConfigFile, kind: ResourceKind, id: string): string | undefined {
  if (kind === 'tenants') return `/tenants/${id.replaceAll('~', '~0').replaceAll('/', '~1')}`;
  if (kind === 'policy-rules') return '/policy/rules';
  const at = ((config.sources?.[kind] ?? []) as { id: unknown }[]).findIndex((e) => e.id === id);
  return at < 0 ? undefined : `/sources/${kind}/${at}`;
}
