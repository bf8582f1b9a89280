// A catalog store over generated tools (bench/tools.ts) from one list-only
// MCP source, for the catalog tests that build and refresh it directly.
import pino from 'pino';
import { CatalogStore } from '../../src/catalog/store.js';
import { compileTenant } from '../../src/catalog/visibility.js';
import { Policy } from '../../src/classify/policy.js';
import type { JsonObject } from '../../src/contract/descriptor.js';
import { createMetrics } from '../../src/observability/metrics.js';
import type { RawTool, ToolSource } from '../../src/sources/raw-tool.js';
import { makeTool } from '../../bench/tools.js';

export function generated(count: number): RawTool[] {
  return Array.from({ length: count }, (_, i) => {
    const t = makeTool(i, count);
    return { source: 'mcp', toolId: `mcp:bench.${t.name}`, origin: 'test', title: t.title, description: t.description, inputSchema: t.inputSchema as JsonObject };
  });
}

/** A store over a list-only source whose tools are `list()` at each build; one tenant `t` sees every tool. */
export function storeOf(list: () => RawTool[]): CatalogStore {
  const source: ToolSource = {
    id: 'mcp:bench',
    kind: 'mcp',
    start: async () => {},
    tools: list,
    health: () => ({ id: 'mcp:bench', kind: 'mcp', state: 'connected', toolCount: list().length }),
    stop: async () => {},
    owns: () => false,
    invoke: () => Promise.reject(new Error('this test calls no tool')),
  };
  return new CatalogStore({ sources: [source], policy: new Policy({}), tenants: new Map([['t', compileTenant('t', ['*'])]]), logger: pino({ level: 'silent' }), metrics: createMetrics() });
}
