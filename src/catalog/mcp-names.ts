// MCP-safe tool names for the MCP front door (docs/mcp.md "Names"): MCP
// clients and LLM providers accept roughly `[A-Za-z0-9_-]{1,64}`, toolIds
// hold `:` `.` `/`. The readable form replaces `:` with `__` and every other
// disallowed character with `_`. Where that is ambiguous among the given ids
// (two give the same form) or too long, every id involved gets a hash suffix
// instead, so no name depends on the order tools were read in. The front door
// names one caller view's ids at a time (CallerView.mcpNames): a tool the
// caller cannot see never renames one of its tools. Reversal goes through the
// same map, never by parsing the name.
import { createHash } from 'node:crypto';

export const MAX_MCP_NAME_LENGTH = 64;
const HASH_CHARS = 8;

export function readableMcpName(toolId: string): string {
  return toolId.replace(/:/g, '__').replace(/[^A-Za-z0-9_-]/g, '_');
}

function hashedName(toolId: string, readable: string): string {
  const hash = createHash('sha256').update(toolId).digest('hex').slice(0, HASH_CHARS);
  return `${readable.slice(0, MAX_MCP_NAME_LENGTH - HASH_CHARS - 1)}_${hash}`;
}

export interface McpNameMap {
  byToolId: ReadonlyMap<string, string>;
  byName: ReadonlyMap<string, string>;
}

export function assignMcpNames(toolIds: readonly string[]): McpNameMap {
  const readable = new Map(toolIds.map((id) => [id, readableMcpName(id)]));
  const count = new Map<string, number>();
  for (const r of readable.values()) count.set(r, (count.get(r) ?? 0) + 1);
  const byToolId = new Map<string, string>();
  const byName = new Map<string, string>();
  for (const [id, r] of readable) {
    let name = r.length <= MAX_MCP_NAME_LENGTH && count.get(r) === 1 ? r : hashedName(id, r);
    // A hashed name could still meet a readable one or another hash: lengthen the hash until unique.
    for (let extra = 1; byName.has(name); extra++) name = `${hashedName(id, r).slice(0, MAX_MCP_NAME_LENGTH - extra)}${extra}`;
    byToolId.set(id, name);
    byName.set(name, id);
  }
  return { byToolId, byName };
}
