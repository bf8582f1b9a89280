// Turning untrusted `tools/list` entries into RawTools. An MCP server is an
// upstream we do not control: names outside the grammar are skipped, long
// descriptions truncated, oversized or too-deep schemas left out (never cut,
// a cut schema would mean something else), duplicates lose to the first
// entry. Annotations and any other self-description are never read, apart
// from a display title; classification is the host's (RawTool.derived stays
// undefined).
//
// A re-read reuses what it can, so that a refresh costs what changed: an
// entry with the key of the previous read's entry of the same name (the
// same bytes, page-key.ts), or one that makes an equal RawTool, yields the
// previous RawTool object itself, so everything downstream (the source's
// change check, the catalog's rebuild) sees an unchanged tool as the same
// object and stops at an identity check. Nothing of an entry is kept but
// what its RawTool holds, and a RawTool holds its schemas as text
// (util/json-text.ts): the parsed page is garbage once the read is over.
import type { JsonObject } from '../../contract/descriptor.js';
import { MCP_TOOL_NAME_PATTERN, formatToolId } from '../../contract/tool-id.js';
import { isPlainObject } from '../../util/json.js';
import { setJsonText } from '../../util/json-text.js';
import { sameJson } from '../../util/same-json.js';
import type { RawTool } from '../raw-tool.js';
import { entryKeyOf, isEntryStub } from './page-key.js';

export const MAX_TITLE_LENGTH = 256;

export interface ToolLimits {
  maxDescriptionLength: number;
  maxSchemaBytes: number;
  maxSchemaDepth: number;
  /** Carried onto every tool for the MCP front door's names. */
  mcpPrefix?: string;
  /** Every tool says `credentialRef`: its calls carry the caller's own credential. */
  callerCredential?: boolean;
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

/**
 * The schema's JSON text if it is within bounds, or a reason it is left out.
 * The text is what the RawTool holds (parsed on use): the parsed value is
 * the transport's, and nothing keeps it after the read.
 */
export function boundSchema(value: unknown, limits: ToolLimits): { json: string } | { reason: string } {
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
  return { json };
}

/** A printable, bounded rendering of an untrusted name for warnings. */
export function showName(name: unknown): string {
  const s = typeof name === 'string' ? JSON.stringify(name) : name === undefined ? 'undefined' : JSON.stringify(name) ?? typeof name;
  return truncateText(s, 80);
}

/** What one read made of one entry: kept for the next read to reuse. */
export interface CollectedTool {
  /** The entry's key (page-key.ts), when it came from a cached page's bytes. */
  readonly key?: string;
  /** The tool served (a redacted copy when the source's secrets had to be scrubbed from it). */
  tool: RawTool;
  /** The tool as made from the entry, before any scrubbing: what a later read's entry is compared with. */
  readonly made: RawTool;
  readonly issues: readonly string[];
}

/** What a read leaves for the next one. */
export interface PreviousRead {
  /** By MCP tool name. */
  readonly collected: ReadonlyMap<string, CollectedTool>;
  /** By entry key: the issues of the entries skipped for what they hold alone (not duplicates). */
  readonly skipped: ReadonlyMap<string, readonly string[]>;
}

/** A cached page's stand-in entry that no tool of the previous read was made from: the read must parse its pages again. */
export class StaleEntryError extends Error {
  constructor(name: string) {
    super(`the page cache answered for ${showName(name)}, which the previous read did not make`);
  }
}

/**
 * Collects RawTools from `tools/list` pages of one server, in listing order.
 * `issues` holds one line per skipped entry or dropped part, for warnings.
 * Given the previous read, an unchanged entry (the same key, or making an
 * equal RawTool) gives back the previous RawTool object.
 */
export class ToolCollector implements PreviousRead {
  readonly tools: RawTool[] = [];
  /** MCP tool name for each collected tool, same order as `tools`. */
  readonly names: string[] = [];
  readonly issues: string[] = [];
  /** By MCP tool name: what the next read may reuse. */
  readonly collected = new Map<string, CollectedTool>();
  readonly skipped = new Map<string, readonly string[]>();
  /** Positions in `tools` of tools reused from the previous read. */
  readonly reused = new Set<number>();

  constructor(
    private readonly serverId: string,
    private readonly limits: ToolLimits,
    private readonly previous?: PreviousRead,
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
    const key = entryKeyOf(entry);
    // The same bytes as an entry of the last read (the common case of a
    // re-read): nothing of it needs looking at again.
    if (key !== undefined && this.reuseByKey(key, name)) return;
    if (typeof name !== 'string' || !MCP_TOOL_NAME_PATTERN.test(name)) {
      this.skip(key, `tool ${showName(name)} skipped: name outside the MCP tool-name grammar`);
      return;
    }
    const toolId = formatToolId({ source: 'mcp', serverId: this.serverId, toolName: name });
    if (toolId === null) {
      this.skip(key, `tool ${showName(name)} skipped: no valid toolId can be formed`);
      return;
    }
    if (this.collected.has(name)) {
      // Not remembered by key: whether it is a duplicate depends on the entries before it.
      this.issues.push(`tool ${showName(name)} skipped: duplicate name (the first one is kept)`);
      return;
    }
    if (isEntryStub(entry)) throw new StaleEntryError(name);

    const issues: string[] = [];
    const tool = this.collect(entry, name, toolId, issues);
    const prior = this.previous?.collected.get(name);
    if (prior !== undefined && sameJson(prior.made, tool) && sameJson(prior.issues, issues)) {
      this.reused.add(this.tools.length);
      this.keep(name, { key, tool: prior.tool, made: prior.made, issues: prior.issues });
      return;
    }
    this.keep(name, { key, tool, made: tool, issues });
  }

  /** True when the entry with this key was collected or skipped by the previous read, and is taken as it was then. */
  private reuseByKey(key: string, name: unknown): boolean {
    const skipped = this.previous?.skipped.get(key);
    if (skipped !== undefined) {
      for (const issue of skipped) this.issues.push(issue);
      this.skipped.set(key, skipped);
      return true;
    }
    const prior = typeof name === 'string' ? this.previous?.collected.get(name) : undefined;
    if (prior === undefined || prior.key !== key || this.collected.has(name as string)) return false;
    this.reused.add(this.tools.length);
    this.keep(name as string, prior);
    return true;
  }

  private skip(key: string | undefined, issue: string): void {
    this.issues.push(issue);
    if (key !== undefined) this.skipped.set(key, [issue]);
  }

  private keep(name: string, c: CollectedTool): void {
    this.collected.set(name, c);
    for (const issue of c.issues) this.issues.push(issue);
    this.tools.push(c.tool);
    this.names.push(name);
  }

  /** Replaces the tool at `index` (a redacted copy), for this read and the next one's reuse. */
  replace(index: number, tool: RawTool): void {
    this.tools[index] = tool;
    const c = this.collected.get(this.names[index]);
    if (c !== undefined) c.tool = tool;
  }

  private collect(entry: Record<string, unknown>, name: string, toolId: string, issues: string[]): RawTool {
    const tool: RawTool = { source: 'mcp', toolId, origin: `mcp server ${this.serverId}` };
    if (this.limits.mcpPrefix !== undefined) tool.mcpPrefix = this.limits.mcpPrefix;
    if (this.limits.callerCredential) tool.credentialRef = true;

    // Display title only: tool.title, else annotations.title. Nothing else
    // from annotations is read.
    const annotations = isPlainObject(entry.annotations) ? entry.annotations : undefined;
    const title = typeof entry.title === 'string' ? entry.title : typeof annotations?.title === 'string' ? annotations.title : undefined;
    if (title !== undefined && title.trim() !== '') tool.title = truncateText(title.trim(), MAX_TITLE_LENGTH);

    if (typeof entry.description === 'string') {
      if (entry.description !== '') tool.description = truncateText(entry.description, this.limits.maxDescriptionLength);
      if (entry.description.length > this.limits.maxDescriptionLength && tool.description !== entry.description) {
        issues.push(`tool ${showName(name)}: description truncated to ${this.limits.maxDescriptionLength} characters`);
      }
    } else if (entry.description !== undefined) {
      issues.push(`tool ${showName(name)}: description left out (not a string)`);
    }

    for (const key of ['inputSchema', 'outputSchema'] as const) {
      const value = entry[key];
      if (value === undefined) continue;
      const bounded = boundSchema(value, this.limits);
      if ('json' in bounded) setJsonText(tool, key, bounded.json, value as JsonObject);
      else issues.push(`tool ${showName(name)}: ${key} left out, it ${bounded.reason}`);
    }

    return tool;
  }
}
