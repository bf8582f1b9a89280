// The MCP front door's search mode (docs/search.md "MCP search mode"): for
// catalogs too large to list, `tools/list` offers three fixed tools.
// `list_sources` lists the caller's sources (one line and a tool count each),
// so a model can narrow a vague request down to one; `search_tools` finds the caller's visible tools (the same search as
// GET /tool-search) and answers with their MCP names, the host's annotations
// and compact input schemas; `call_tool` calls one of them by that name,
// through exactly the path a direct tools/call takes (validation, approval,
// sessions and events with the real toolId, timeouts).
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import type { Principal } from '../auth/principal.js';
import type { CatalogSearch } from '../catalog/search/catalog-search.js';
import type { ItemsSnapshot } from '../catalog/resources-prompts.js';
import { searchItems } from '../catalog/search/item-search.js';
import type { SearchFilter } from '../catalog/search/tool-index.js';
import { sourceIdOf } from '../catalog/search/source-prior.js';
import type { CallerView } from '../catalog/snapshot.js';
import type { CatalogSnapshot } from '../catalog/snapshot.js';
import { SAFETY_TIERS, type SafetyTier } from '../contract/descriptor.js';
import { DEFAULT_SEARCH_LIMIT, MAX_QUERY_CHARS, MAX_SEARCH_LIMIT } from '../http/search-routes.js';
import { toMcpTool } from './tool-listing.js';

export const SEARCH_TOOL = 'search_tools';
export const CALL_TOOL = 'call_tool';
export const LIST_SOURCES_TOOL = 'list_sources';
const MAX_SOURCE_CHARS = 200;
export type McpMode = 'tools' | 'search';
export const MCP_MODES: readonly McpMode[] = ['tools', 'search'];

/** The three tools a search-mode session lists. Annotations are the host's: searching reads nothing outside the host; a call may do anything the called tool does. */
export const SEARCH_MODE_TOOLS: readonly Tool[] = [
  {
    name: SEARCH_TOOL,
    title: 'Search tools',
    description:
      'Finds the tools you can call that match a plain-language request, best first. Returns each tool\'s name, description, safety tier, annotations and input schema; call one with call_tool. Search again with other words when nothing fits.',
    inputSchema: {
      type: 'object',
      properties: {
        query: { type: 'string', minLength: 1, maxLength: MAX_QUERY_CHARS, description: 'What you want to do, in words (e.g. "list the open pull requests of a repository").' },
        limit: { type: 'integer', minimum: 1, maximum: MAX_SEARCH_LIMIT, default: DEFAULT_SEARCH_LIMIT, description: 'How many tools to return.' },
        maxTier: { type: 'string', enum: [...SAFETY_TIERS], description: 'Only tools of this safety tier or a lower one (pure < read < write < exec).' },
        source: { type: 'string', minLength: 1, maxLength: MAX_SOURCE_CHARS, description: 'Only tools of this source, as list_sources names it (e.g. "connector:github").' },
      },
      required: ['query'],
      additionalProperties: false,
    },
    annotations: { title: 'Search tools', readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  },
  {
    name: LIST_SOURCES_TOOL,
    title: 'List tool sources',
    description: 'Lists the sources of the tools you can call (APIs, MCP servers, packs), one line each with how many tools it has. Pass a source to search_tools to search only its tools when a request is vague.',
    inputSchema: { type: 'object', properties: {}, additionalProperties: false },
    annotations: { title: 'List tool sources', readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  },
  {
    name: CALL_TOOL,
    title: 'Call a tool',
    description: 'Calls a tool found with search_tools, by its name, with arguments matching its input schema. The called tool\'s own rules apply: it may ask you for approval first.',
    inputSchema: {
      type: 'object',
      properties: {
        name: { type: 'string', minLength: 1, description: 'The tool\'s name as search_tools returned it.' },
        arguments: { type: 'object', description: 'The tool\'s arguments.' },
      },
      required: ['name'],
      additionalProperties: false,
    },
    annotations: { title: 'Call a tool', readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
  },
];

/** A refusal of the search tools' own arguments (the front door answers InvalidParams). */
export class SearchModeRefusal extends Error {}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function searchArguments(args: Record<string, unknown>): { query: string; limit: number; filter: SearchFilter } {
  const { query, limit, maxTier, source } = args;
  const extra = Object.keys(args).filter((k) => k !== 'query' && k !== 'limit' && k !== 'maxTier' && k !== 'source');
  if (extra.length > 0) throw new SearchModeRefusal(`${SEARCH_TOOL}: unknown argument ${JSON.stringify(extra[0].slice(0, 64))}`);
  if (typeof query !== 'string' || query.trim() === '' || query.length > MAX_QUERY_CHARS) throw new SearchModeRefusal(`${SEARCH_TOOL}: "query" must be a non-blank string of at most ${MAX_QUERY_CHARS} characters`);
  if (limit !== undefined && (!Number.isInteger(limit) || (limit as number) < 1 || (limit as number) > MAX_SEARCH_LIMIT)) throw new SearchModeRefusal(`${SEARCH_TOOL}: "limit" must be an integer from 1 to ${MAX_SEARCH_LIMIT}`);
  if (maxTier !== undefined && !SAFETY_TIERS.includes(maxTier as SafetyTier)) throw new SearchModeRefusal(`${SEARCH_TOOL}: "maxTier" must be one of ${SAFETY_TIERS.join(', ')}`);
  if (source !== undefined && (typeof source !== 'string' || source === '' || source.length > MAX_SOURCE_CHARS)) throw new SearchModeRefusal(`${SEARCH_TOOL}: "source" must be a source as list_sources names it`);
  const filter: SearchFilter = { ...(maxTier !== undefined ? { maxTier: maxTier as SafetyTier } : {}), ...(source !== undefined ? { sourceId: source as string } : {}) };
  return { query, limit: (limit as number | undefined) ?? DEFAULT_SEARCH_LIMIT, filter };
}

/** search_tools: the caller's matching tools as a model needs them to call one. */
export async function searchTools(search: CatalogSearch, snapshot: CatalogSnapshot, principal: Principal, args: Record<string, unknown>, items?: ItemsSnapshot): Promise<CallToolResult> {
  const { query, limit, filter } = searchArguments(args);
  const view: CallerView = snapshot.viewFor(principal);
  const { hits, total } = await search.searchAwaiting(principal, query, limit, filter, snapshot);
  const names = view.mcpNames.byToolId;
  const tools = hits.map(({ entry }) => {
    const t = toMcpTool(entry, names.get(entry.tool.descriptor.toolId)!, true);
    const d = entry.tool.descriptor;
    return { name: t.name, toolId: d.toolId, ...(t.title !== undefined ? { title: t.title } : {}), ...(t.description !== undefined ? { description: t.description } : {}), safetyTier: d.safetyTier, annotations: t.annotations, inputSchema: t.inputSchema };
  });
  // Resources and prompts the caller sees match too: read with resources/read, get with prompts/get.
  const found = items === undefined ? undefined : searchItems(items.viewFor(principal), query, limit);
  const structured = found === undefined || found.total === 0 ? { tools, total } : { tools, total, items: found.hits, itemsTotal: found.total };
  return { content: [{ type: 'text', text: JSON.stringify(structured) }], structuredContent: structured };
}

/** One source as list_sources shows it. */
export interface SourceLine {
  source: string;
  /** What the source is: the title its upstream gives itself, else its kind. */
  title: string;
  tools: number;
}

const sourceLines = new WeakMap<CallerView, SourceLine[]>();
const KIND_TITLES: Record<string, string> = { connector: 'HTTP API', mcp: 'MCP server', 'node-pack': 'tool pack', workflow: 'workflows', 'host-extension': 'host extension' };

/** The caller's sources: those of the tools it sees, with how many it sees of each, once per view. */
export function sourcesOf(view: CallerView): SourceLine[] {
  let lines = sourceLines.get(view);
  if (lines !== undefined) return lines;
  const bySource = new Map<string, SourceLine>();
  for (const e of view.entries) {
    const source = sourceIdOf(e.tool.descriptor.toolId, e.tool.descriptor.source);
    let line = bySource.get(source);
    if (line === undefined) bySource.set(source, (line = { source, title: (e.tool.raw.sourceTitle ?? KIND_TITLES[e.tool.descriptor.source] ?? e.tool.descriptor.source).slice(0, 120), tools: 0 }));
    line.tools++;
  }
  lines = [...bySource.values()].sort((a, b) => (a.source < b.source ? -1 : 1));
  sourceLines.set(view, lines);
  return lines;
}

/** list_sources: one line per source of the caller's visible tools. */
export function listSources(snapshot: CatalogSnapshot, principal: Principal, args: Record<string, unknown>): CallToolResult {
  const extra = Object.keys(args);
  if (extra.length > 0) throw new SearchModeRefusal(`${LIST_SOURCES_TOOL}: unknown argument ${JSON.stringify(extra[0].slice(0, 64))}`);
  const sources = sourcesOf(snapshot.viewFor(principal));
  const text = sources.map((s) => `${s.source}: ${s.title} (${s.tools} tool${s.tools === 1 ? '' : 's'})`).join('\n');
  return { content: [{ type: 'text', text }], structuredContent: { sources } };
}

/** call_tool's arguments: the inner tool's MCP name and arguments. */
export function innerCall(args: Record<string, unknown>): { name: string; arguments: Record<string, unknown> } {
  const { name, arguments: inner } = args;
  const extra = Object.keys(args).filter((k) => k !== 'name' && k !== 'arguments');
  if (extra.length > 0) throw new SearchModeRefusal(`${CALL_TOOL}: unknown argument ${JSON.stringify(extra[0].slice(0, 64))}`);
  if (typeof name !== 'string' || name === '') throw new SearchModeRefusal(`${CALL_TOOL}: "name" must be a non-empty string`);
  if (inner !== undefined && !isObject(inner)) throw new SearchModeRefusal(`${CALL_TOOL}: "arguments" must be an object`);
  return { name, arguments: inner ?? {} };
}
