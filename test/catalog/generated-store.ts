// A catalog store over generated tools (bench/tools.ts) from one list-only
// MCP source, for the catalog tests that build and refresh it directly, and
// the host's HTTP app over such a store for those that also read it by HTTP.
import type { FastifyInstance } from 'fastify';
import pino from 'pino';
import { hashApiKey } from '../../src/auth/api-keys.js';
import { setUpAuth } from '../../src/auth/setup.js';
import { Body } from '../../src/catalog/body.js';
import { CatalogStore } from '../../src/catalog/store.js';
import { compileTenant } from '../../src/catalog/visibility.js';
import { Policy } from '../../src/classify/policy.js';
import type { JsonObject } from '../../src/contract/descriptor.js';
import { buildApp } from '../../src/http/app.js';
import { createMetrics } from '../../src/observability/metrics.js';
import type { RawTool, ToolSource } from '../../src/sources/raw-tool.js';
import { makeTool } from '../../bench/tools.js';
import { tempDir } from '../helpers/server.js';

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

/** The host's HTTP app (not listening) over `store`, with one principal `p` of tenant `t` whose API key is `key`; closing the app stops its auth. */
export function appOver(store: CatalogStore, key: string): FastifyInstance {
  const auth = setUpAuth({ tenants: new Map([['t', undefined]]), principals: [{ id: 'p', tenant: 't', keyHash: hashApiKey(key) }], configDir: tempDir(), logger: pino({ level: 'silent' }) });
  const app = buildApp({ store, authenticator: auth.authenticator, discoveryBody: Body.json('{}'), sourceHealth: () => [], metrics: createMetrics(), logger: pino({ level: 'silent' }) });
  app.addHook('onClose', async () => auth.stop());
  return app;
}
