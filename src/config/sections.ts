// The entry schemas of the dynamic sources (MCP servers, connectors), each
// defined beside its adapter.
export const sectionSchemas = {
  mcp: { type: 'object' },
  connectors: { type: 'object' },
};
