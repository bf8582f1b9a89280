// Wires the MCP sources' resources and prompts to the front door: one items
// store fed by every MCP server's lists (each change swaps a new snapshot),
// the tenants' `resources:` / `prompts:` rules, and the read size cap.
import { compileItemRules, ItemsStore, type ItemRules } from '../catalog/mcp-items.js';
import type { Policy } from '../classify/policy.js';
import type { LoadedConfig } from '../config/load.js';
import { DEFAULT_MAX_RESOURCE_BYTES, type ItemDeps } from '../invoke/mcp-items.js';
import type { McpItems, McpToolSource } from '../sources/mcp/index.js';
import type { SourceRegistry } from '../sources/registry.js';

export function itemDeps(loaded: LoadedConfig, sources: SourceRegistry, policy: Policy, rest: Pick<ItemDeps, 'events' | 'metrics' | 'tracing'>): ItemDeps {
  const { config } = loaded;
  const rules = new Map<string, ItemRules>(Object.entries(config.tenants).map(([id, t]) => [id, compileItemRules(t.resources, t.prompts)]));
  const store = new ItemsStore(rules, policy);
  const servers = new Map<string, McpItems>();
  for (const source of sources.list) {
    if (source.kind !== 'mcp') continue;
    const { items } = source as McpToolSource;
    servers.set(items.serverId, items);
    items.onChange(() => store.set(items.serverId, items.lists()));
    store.set(items.serverId, items.lists());
  }
  return { store, servers, maxResourceBytes: config.mcp?.maxResourceBytes ?? DEFAULT_MAX_RESOURCE_BYTES, ...rest };
}
