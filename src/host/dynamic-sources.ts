// Creates the sources that connect to something outside the host (MCP
// servers, OpenAPI connectors) from their config sections.
import type { LoadedConfig } from '../config/load.js';
import { createConnectorSource, type ConnectorToolSource } from '../sources/connector/index.js';
import { createMcpSource, type McpToolSource } from '../sources/mcp/index.js';
import type { SourceContext } from '../sources/source-context.js';

export interface DynamicSources {
  mcp: McpToolSource[];
  connectors: ConnectorToolSource[];
}

export function createDynamicSources(loaded: LoadedConfig, ctx: SourceContext): DynamicSources {
  const sources = loaded.config.sources ?? {};
  return {
    mcp: (sources.mcp ?? []).map((c) => createMcpSource(c, ctx)),
    connectors: (sources.connectors ?? []).map((c) => createConnectorSource(c, ctx)),
  };
}
