// How a catalog entry looks on the MCP front door (docs/mcp.md "tools/list"): the
// MCP-safe name, the host's own four hints plus a title as annotations (never
// the upstream's), and the standard or compact input schema.
//
// The compact profile is not bound by the published CompactToolDescriptor
// schema: its input schema is the compact view's plus the top-level
// `required` list (MCP clients and models read it there), and it carries no
// `outputSchema` (an SDK client compiles a validator for each one it lists,
// which makes listing a large catalog slow; compact sessions want it small).
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { compactRequired } from '../catalog/compact-descriptor.js';
import { profiledTool } from '../catalog/profiles/profiled.js';
import type { ProfileId } from '../catalog/profiles/rules.js';
import type { CallerView, ToolEntry } from '../catalog/snapshot.js';

export const DEFAULT_PAGE_SIZE = 100;
const EMPTY_OBJECT_SCHEMA = { type: 'object' as const, properties: {} };

export function toMcpTool(entry: ToolEntry, name: string, compact: boolean, profile?: ProfileId): Tool {
  const d = entry.tool.descriptor;
  if (profile !== undefined) return profiledMcpTool(entry, name, profile);
  // MCP requires a top-level object schema; the compact form always is one.
  // Each schema is read once: one held as text is parsed on each read (util/json-text.ts).
  const input = compact ? undefined : d.inputSchema;
  const standard = input?.type === 'object' ? input : undefined;
  const inputSchema = (compact ? compactProfileSchema(entry) : standard ?? entry.compactDescriptor.inputSchema) ?? EMPTY_OBJECT_SCHEMA;
  const tool: Tool = {
    name,
    inputSchema: inputSchema as Tool['inputSchema'],
    annotations: { ...(d.title !== undefined ? { title: d.title } : {}), ...d.annotations },
  };
  if (d.title !== undefined) tool.title = d.title;
  const description = compact ? entry.compactDescriptor.description : d.description;
  if (description !== undefined) tool.description = description;
  const output = compact ? undefined : d.outputSchema;
  if (output?.type === 'object') tool.outputSchema = output as Tool['outputSchema'];
  return tool;
}

/** A provider profile's tool: its schema and description, the marker in `_meta` (docs/compact-view.md "Provider profiles"). */
function profiledMcpTool(entry: ToolEntry, name: string, profile: ProfileId): Tool {
  const d = entry.tool.descriptor;
  const p = profiledTool(d, profile).descriptor;
  const tool: Tool = {
    name,
    inputSchema: (p.inputSchema ?? EMPTY_OBJECT_SCHEMA) as Tool['inputSchema'],
    annotations: { ...(d.title !== undefined ? { title: d.title } : {}), ...d.annotations },
    _meta: { 'toolhost/profile': p.profile },
  };
  if (d.title !== undefined) tool.title = d.title;
  if (p.description !== undefined) tool.description = p.description;
  return tool;
}

function compactProfileSchema(entry: ToolEntry): Record<string, unknown> | undefined {
  const schema = entry.compactDescriptor.inputSchema;
  if (schema === undefined) return undefined;
  const required = compactRequired(entry.tool.descriptor);
  return required.length === 0 ? schema : { ...schema, required: [...required] };
}

/** Cursor = the last toolId of the previous page, so a catalog swap between pages neither repeats nor skips a surviving tool. */
export function encodeCursor(toolId: string): string {
  return Buffer.from(toolId, 'utf8').toString('base64url');
}

export function listPage(view: CallerView, cursor: string | undefined, pageSize: number, compact: boolean, profile?: ProfileId): { tools: Tool[]; nextCursor?: string } {
  const after = cursor === undefined ? undefined : Buffer.from(cursor, 'base64url').toString('utf8');
  const entries = view.entries;
  let start = 0;
  if (after !== undefined) {
    // Entries are sorted by toolId (byte order): binary search for the first id after the cursor.
    let lo = 0;
    let hi = entries.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (entries[mid].tool.descriptor.toolId <= after) lo = mid + 1;
      else hi = mid;
    }
    start = lo;
  }
  const page = entries.slice(start, start + pageSize);
  const names = view.mcpNames.byToolId;
  const tools = page.map((e) => toMcpTool(e, names.get(e.tool.descriptor.toolId)!, compact, profile));
  const more = start + pageSize < entries.length;
  return more ? { tools, nextCursor: encodeCursor(page[page.length - 1].tool.descriptor.toolId) } : { tools };
}
