// Creates the sources that connect to something outside the host (MCP
// servers, OpenAPI connectors) from their config sections.
import type { LoadedConfig } from '../config/load.js';
import { createConnectorSource, type ConnectorSourceConfig, type ConnectorToolSource } from '../sources/connector/index.js';
import { createMcpSource, type McpSourceConfig, type McpToolSource } from '../sources/mcp/index.js';
import type { SourceContext } from '../sources/source-context.js';

export interface DynamicSources {
  mcp: McpToolSource[];
  connectors: ConnectorToolSource[];
}

export function createDynamicSources(loaded: LoadedConfig, ctx: SourceContext): DynamicSources {
  const sources = loaded.config.sources ?? {};
  return {
    mcp: ((sources.mcp ?? []) as unknown as McpSourceConfig[]).map((c) => createMcpSource(c, ctx)),
    connectors: ((sources.connectors ?? []) as unknown as ConnectorSourceConfig[]).map((c) => createConnectorSource(c, ctx)),
  };
}
