// Turning untrusted `tools/list` entries into RawTools. An MCP server is an
// upstream we do not control: names outside the grammar are skipped, long
// descriptions truncated, oversized or too-deep schemas left out (never cut,
// a cut schema would mean something else), duplicates lose to the first
// entry. Annotations and any other self-description are never read, apart
// from a display title; classification is the host's (RawTool.derived stays
// undefined).
import type { JsonObject } from '../../contract/descriptor.js';
import { MCP_TOOL_NAME_PATTERN, formatToolId } from '../../contract/tool-id.js';
import type { RawTool } from '../raw-tool.js';

export const MAX_TITLE_LENGTH = 256;

export interface ToolLimits {
  maxDescriptionLength: number;
  maxSchemaBytes: number;
  maxSchemaDepth: number;
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Truncates to at most `max` characters (code points), marking the cut with an ellipsis. */
export function truncateText(s: string, max: number): string {
  if (s.length <= max) return s;
  const chars = Array.from(s);
  if (chars.length <= max) return s;
  return `${chars.slice(0, Math.max(0, max - 1)).join('')}…`;
}

/** True when the value nests objects/arrays deeper than `max` (the top object is depth 1). */
export function deeperThan(value: unknown, max: number): boolean {
  const stack: Array<[unknown, number]> = [[value, 1]];
  while (stack.length > 0) {
    const [v, d] = stack.pop()!;
    if (typeof v !== 'object' || v === null) continue;
    if (d > max) return true;
    const children = Array.isArray(v) ? v : Object.values(v);
    for (const c of children) if (typeof c === 'object' && c !== null) stack.push([c, d + 1]);
  }
  return false;
}

/** A bounded, detached copy of a schema, or a reason it is left out. */
export function boundSchema(value: unknown, limits: ToolLimits): { schema: JsonObject } | { reason: string } {
  if (!isPlainObject(value)) return { reason: `is not a JSON object (${Array.isArray(value) ? 'array' : value === null ? 'null' : typeof value})` };
  if (deeperThan(value, limits.maxSchemaDepth)) return { reason: `nests deeper than ${limits.maxSchemaDepth} levels` };
  let json: string | undefined;
  try {
    json = JSON.stringify(value);
  } catch {
    return { reason: 'is not serializable' };
  }
  if (json === undefined) return { reason: 'is not serializable' };
  const bytes = Buffer.byteLength(json, 'utf8');
  if (bytes > limits.maxSchemaBytes) return { reason: `is ${bytes} bytes, over the ${limits.maxSchemaBytes} byte limit` };
  return { schema: JSON.parse(json) as JsonObject };
}

/** A printable, bounded rendering of an untrusted name for warnings. */
export function showName(name: unknown): string {
  const s = typeof name === 'string' ? JSON.stringify(name) : name === undefined ? 'undefined' : JSON.stringify(name) ?? typeof name;
  return truncateText(s, 80);
}

/**
 * Collects RawTools from `tools/list` pages of one server, in listing order.
 * `issues` holds one line per skipped entry or dropped part, for warnings.
 */
export class ToolCollector {
  readonly tools: RawTool[] = [];
  /** MCP tool name for each collected tool, same order as `tools`. */
  readonly names: string[] = [];
  readonly issues: string[] = [];
  private readonly seen = new Set<string>();

  constructor(
    private readonly serverId: string,
    private readonly limits: ToolLimits,
  ) {}

  get size(): number {
    return this.tools.length;
  }

  add(entry: unknown, index: number): void {
    if (!isPlainObject(entry)) {
      this.issues.push(`entry #${index} skipped: not an object`);
      return;
    }
    const name = entry.name;
    if (typeof name !== 'string' || !MCP_TOOL_NAME_PATTERN.test(name)) {
      this.issues.push(`tool ${showName(name)} skipped: name outside the MCP tool-name grammar`);
      return;
    }
    const toolId = formatToolId({ source: 'mcp', serverId: this.serverId, toolName: name });
    if (toolId === null) {
      this.issues.push(`tool ${showName(name)} skipped: no valid toolId can be formed`);
      return;
    }
    if (this.seen.has(name)) {
      this.issues.push(`tool ${showName(name)} skipped: duplicate name (the first one is kept)`);
      return;
    }
    this.seen.add(name);

    const tool: RawTool = { source: 'mcp', toolId, origin: `mcp server ${this.serverId}` };

    // Display title only: tool.title, else annotations.title. Nothing else
    // from annotations is read.
    const annotations = isPlainObject(entry.annotations) ? entry.annotations : undefined;
    const title = typeof entry.title === 'string' ? entry.title : typeof annotations?.title === 'string' ? annotations.title : undefined;
    if (title !== undefined && title.trim() !== '') tool.title = truncateText(title.trim(), MAX_TITLE_LENGTH);

    if (typeof entry.description === 'string') {
      if (entry.description !== '') tool.description = truncateText(entry.description, this.limits.maxDescriptionLength);
      if (entry.description.length > this.limits.maxDescriptionLength && tool.description !== entry.description) {
        this.issues.push(`tool ${showName(name)}: description truncated to ${this.limits.maxDescriptionLength} characters`);
      }
    } else if (entry.description !== undefined) {
      this.issues.push(`tool ${showName(name)}: description left out (not a string)`);
    }

    for (const key of ['inputSchema', 'outputSchema'] as const) {
      const value = entry[key];
      if (value === undefined) continue;
      const bounded = boundSchema(value, this.limits);
      if ('schema' in bounded) tool[key] = bounded.schema;
      else this.issues.push(`tool ${showName(name)}: ${key} left out, it ${bounded.reason}`);
    }

    this.tools.push(tool);
    this.names.push(name);
  }

  /** Drops the last collected tool (used when a bound is exceeded). */
  pop(): void {
    const name = this.names.pop();
    this.tools.pop();
    if (name !== undefined) this.seen.delete(name);
  }
}
