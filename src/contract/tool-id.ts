// The toolId grammar (docs/contract.md "ToolDescriptor", toolId form). The only
// place ids are built or read: `openwop:<typeId>`, `mcp:<serverId>.<toolName>`,
// `connector:<connectorId>.<action>`, `workflow:<id>`, `x-host-<vendor>-<name>`.
// Server, connector and vendor ids hold no separator of their own, so every id
// parses back into exactly the parts it was made from.

export type ToolIdParts =
  | { source: 'node-pack'; typeId: string }
  | { source: 'mcp'; serverId: string; toolName: string }
  | { source: 'connector'; connectorId: string; action: string }
  | { source: 'workflow'; workflowId: string }
  | { source: 'host-extension'; vendor: string; name: string };

export const MAX_TOOL_ID_LENGTH = 256;

/** Server, connector and vendor ids: lower-case, no `.`, so the id splits unambiguously. */
export const SOURCE_ID_PATTERN = /^[a-z0-9][a-z0-9_-]{0,62}$/;
/** Vendor ids also hold no `-`, which separates vendor from name in `x-host-<vendor>-<name>`. */
export const VENDOR_PATTERN = /^[a-z0-9]{1,32}$/;
/** A source's `mcpPrefix`: the front of its tools' MCP names, empty for none. */
export const MCP_PREFIX_PATTERN = /^[A-Za-z0-9_-]{0,32}$/;
/** The MCP tool-name grammar: 1 to 128 of letters, digits, `_`, `-`, `.`, `/`. */
export const MCP_TOOL_NAME_PATTERN = /^[A-Za-z0-9_./-]{1,128}$/;
/** Names after a prefix (typeIds, workflow ids, actions, extension names). */
export const NAME_PATTERN = /^[A-Za-z0-9_][A-Za-z0-9_./-]{0,127}$/;

function ok(parts: ToolIdParts): boolean {
  switch (parts.source) {
    case 'node-pack':
      return NAME_PATTERN.test(parts.typeId);
    case 'mcp':
      return SOURCE_ID_PATTERN.test(parts.serverId) && MCP_TOOL_NAME_PATTERN.test(parts.toolName);
    case 'connector':
      return SOURCE_ID_PATTERN.test(parts.connectorId) && NAME_PATTERN.test(parts.action);
    case 'workflow':
      return NAME_PATTERN.test(parts.workflowId);
    case 'host-extension':
      return VENDOR_PATTERN.test(parts.vendor) && NAME_PATTERN.test(parts.name);
  }
}

/** Builds the toolId, or returns null when a part is outside the grammar. */
export function formatToolId(parts: ToolIdParts): string | null {
  if (!ok(parts)) return null;
  let id: string;
  switch (parts.source) {
    case 'node-pack':
      id = `openwop:${parts.typeId}`;
      break;
    case 'mcp':
      id = `mcp:${parts.serverId}.${parts.toolName}`;
      break;
    case 'connector':
      id = `connector:${parts.connectorId}.${parts.action}`;
      break;
    case 'workflow':
      id = `workflow:${parts.workflowId}`;
      break;
    case 'host-extension':
      id = `x-host-${parts.vendor}-${parts.name}`;
      break;
  }
  return id.length <= MAX_TOOL_ID_LENGTH ? id : null;
}

function splitAtFirstDot(rest: string): [string, string] | null {
  const dot = rest.indexOf('.');
  return dot <= 0 ? null : [rest.slice(0, dot), rest.slice(dot + 1)];
}

/** Reads a toolId back into its parts, or null when it is not a well-formed id. */
export function parseToolId(id: string): ToolIdParts | null {
  if (id.length === 0 || id.length > MAX_TOOL_ID_LENGTH) return null;
  let parts: ToolIdParts | null = null;
  if (id.startsWith('openwop:')) {
    parts = { source: 'node-pack', typeId: id.slice(8) };
  } else if (id.startsWith('mcp:')) {
    const split = splitAtFirstDot(id.slice(4));
    if (split) parts = { source: 'mcp', serverId: split[0], toolName: split[1] };
  } else if (id.startsWith('connector:')) {
    const split = splitAtFirstDot(id.slice(10));
    if (split) parts = { source: 'connector', connectorId: split[0], action: split[1] };
  } else if (id.startsWith('workflow:')) {
    parts = { source: 'workflow', workflowId: id.slice(9) };
  } else if (id.startsWith('x-host-')) {
    const rest = id.slice(7);
    const dash = rest.indexOf('-');
    if (dash > 0) parts = { source: 'host-extension', vendor: rest.slice(0, dash), name: rest.slice(dash + 1) };
  }
  return parts && ok(parts) ? parts : null;
}
