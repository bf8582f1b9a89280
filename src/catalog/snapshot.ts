// The immutable catalog snapshot (issue 2 item 9): built once per change,
// every descriptor serialized once, each caller view's list serialized once
// and kept, so a request only looks things up in memory.
import type { CompactToolDescriptor } from '../contract/descriptor.js';
import { Body } from './body.js';
import type { BuiltTool } from './build.js';
import { compactDescriptor } from './compact-descriptor.js';
import { assignMcpNames, type McpNameMap } from './mcp-names.js';
import { type Caller, type TenantPolicy, visibleToolIds } from './visibility.js';

export interface ToolEntry {
  readonly tool: BuiltTool;
  readonly standard: Body;
  readonly compactDescriptor: CompactToolDescriptor;
  readonly compact: Body;
  /** Serialized descriptors, reused to assemble list bodies without re-serializing. */
  readonly standardJson: string;
  readonly compactJson: string;
}

/** What one visibility set (tenant plus relevant scopes) sees. */
export class CallerView {
  private standardList?: Body;
  private compactList?: Body;
  constructor(
    readonly ids: ReadonlySet<string>,
    readonly entries: readonly ToolEntry[],
  ) {}
  /** GET /tools: a bare array. */
  get standard(): Body {
    return (this.standardList ??= Body.json(`[${this.entries.map((e) => e.standardJson).join(',')}]`));
  }
  /** GET /tools?view=compact: `{ "tools": [...] }`. */
  get compact(): Body {
    return (this.compactList ??= Body.json(`{"tools":[${this.entries.map((e) => e.compactJson).join(',')}]}`));
  }
}

const MAX_MEMOIZED_VIEWS = 4096;

export class CatalogSnapshot {
  readonly entries: readonly ToolEntry[];
  readonly byId: ReadonlyMap<string, ToolEntry>;
  /** Every scope some tool requires: scopes outside it cannot change a view. */
  private readonly relevantScopes: ReadonlySet<string>;
  private readonly builtById: ReadonlyMap<string, BuiltTool>;
  private readonly views = new Map<string, CallerView>();
  private names?: McpNameMap;

  constructor(
    readonly tools: readonly BuiltTool[],
    private readonly tenants: ReadonlyMap<string, TenantPolicy>,
    readonly generation: number,
    /** Per-tool entries from the previous snapshot, reused when the descriptor is the same object. */
    reuse?: ReadonlyMap<BuiltTool['descriptor'], ToolEntry>,
  ) {
    this.entries = tools.map((tool) => reuse?.get(tool.descriptor) ?? makeEntry(tool));
    this.byId = new Map(this.entries.map((e) => [e.tool.descriptor.toolId, e]));
    this.builtById = new Map(tools.map((t) => [t.descriptor.toolId, t]));
    this.relevantScopes = new Set(tools.flatMap((t) => t.descriptor.auth?.scopes ?? []));
  }

  /** MCP-safe names for the whole catalog, computed once per snapshot on first use. */
  get mcpNames(): McpNameMap {
    return (this.names ??= assignMcpNames(this.entries.map((e) => e.tool.descriptor.toolId)));
  }

  /** The view for a caller; an unknown tenant sees nothing. */
  viewFor(caller: Caller): CallerView {
    const scopes = [...caller.scopes].filter((s) => this.relevantScopes.has(s)).sort();
    const key = `${caller.tenant}\n${scopes.join('\n')}`;
    let view = this.views.get(key);
    if (!view) {
      const tenant = this.tenants.get(caller.tenant);
      const ids = tenant ? visibleToolIds(this.tools, this.builtById, tenant, new Set(scopes)) : new Set<string>();
      view = new CallerView(ids, this.entries.filter((e) => ids.has(e.tool.descriptor.toolId)));
      if (this.views.size >= MAX_MEMOIZED_VIEWS) this.views.delete(this.views.keys().next().value as string);
      this.views.set(key, view);
    }
    return view;
  }

  /** The tool if the caller may see it; undefined for unknown and invisible alike. */
  lookup(caller: Caller, toolId: string): ToolEntry | undefined {
    const entry = this.byId.get(toolId);
    return entry && this.viewFor(caller).ids.has(toolId) ? entry : undefined;
  }

  /** Entries keyed by descriptor object, for the next snapshot to reuse. */
  reusable(): Map<BuiltTool['descriptor'], ToolEntry> {
    return new Map(this.entries.map((e) => [e.tool.descriptor, e]));
  }
}

export function makeEntry(tool: BuiltTool): ToolEntry {
  const standardJson = JSON.stringify(tool.descriptor);
  const compact = compactDescriptor(tool.descriptor);
  const compactJson = JSON.stringify(compact);
  return {
    tool,
    standard: Body.json(standardJson),
    compactDescriptor: compact,
    compact: Body.json(compactJson),
    standardJson,
    compactJson,
  };
}
