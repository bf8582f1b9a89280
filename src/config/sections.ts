// The entry schemas of the dynamic sources (MCP servers, connectors), each
// defined beside its adapter.
import { connectorSourceConfigSchema } from '../sources/connector/config-schema.js';
import { mcpSourceConfigSchema } from '../sources/mcp/config-schema.js';

export const sectionSchemas = {
  mcp: mcpSourceConfigSchema as object,
  connectors: connectorSourceConfigSchema as object,
};
