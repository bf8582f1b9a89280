// Wires the MCP sources' resources and prompts to the front door: one items
// store fed by every MCP server's lists (each change swaps a new snapshot),
// the tenants' `resources:` / `prompts:` rules, and the read size cap.
import { compileItemRules, ItemsStore, type ItemRules } from '../catalog/resources-prompts.js';
import type { Policy } from '../classify/policy.js';
import type { LoadedConfig } from '../config/load.js';
import { DEFAULT_MAX_RESOURCE_BYTES, type ItemDeps } from '../invoke/resources-prompts.js';
import type { McpItems, McpToolSource } from '../sources/mcp/index.js';
import type { SourceRegistry } from '../sources/registry.js';
import type { ToolSource } from '../sources/raw-tool.js';

export function itemDeps(loaded: LoadedConfig, sources: SourceRegistry, policy: Policy, rest: Pick<ItemDeps, 'events' | 'metrics' | 'tracing'>): ItemDeps & { follow: ItemsFollower } {
  const store = new ItemsStore(rulesOf(loaded), policy);
  const servers = new Map<string, McpItems>();
  const follow: ItemsFollower = (next, list, nextPolicy) => {
    servers.clear();
    for (const source of list) {
      if (source.kind !== 'mcp') continue;
      const { items } = source as McpToolSource;
      servers.set(items.serverId, items);
    }
    store.reconfigure(rulesOf(next), nextPolicy, new Map([...servers].map(([id, items]) => [id, items.lists()])));
    for (const items of servers.values()) listen(items);
  };
  // A server's changes reach the store while it is one of the served servers (a removed one's late change is not).
  const listening = new WeakSet<McpItems>();
  const listen = (items: McpItems): void => {
    if (listening.has(items)) return;
    listening.add(items);
    items.onChange(() => {
      if (servers.get(items.serverId) === items) store.set(items.serverId, items.lists());
    });
  };
  follow(loaded, sources.list, policy);
  return { store, servers, maxResourceBytes: loaded.config.mcp?.maxResourceBytes ?? DEFAULT_MAX_RESOURCE_BYTES, ...rest, follow };
}

/** Applies a reloaded config's item rules and MCP servers to the running items store. */
export type ItemsFollower = (loaded: LoadedConfig, sources: readonly ToolSource[], policy: Policy) => void;

function rulesOf(loaded: LoadedConfig): Map<string, ItemRules> {
  return new Map(Object.entries(loaded.config.tenants).map(([id, t]) => [id, compileItemRules(t.resources, t.prompts)]));
}
