// The immutable catalog snapshot: built once per change,
// every descriptor serialized once, each caller view's list serialized once
// and kept, so a request only looks things up in memory.
//
// List bodies are the entries' bytes in order (no re-serialization: runs of
// the slabs the entries were written into, list-body.ts), made on first use;
// their strong ETag is derived from the entries' ETags, so a view
// can be revalidated or compared (the MCP front door does, on every swap)
// without building its bytes.
//
// Every snapshot has entries of its own. An entry of a tool that is unchanged
// since the previous snapshot starts with the previous entry's bodies (no
// serialization, no compaction), and may move onto slices of this snapshot's
// list of every tool later (list-body.ts): nothing an older snapshot holds
// is ever changed.
//
// The compact view is made after the standard one (docs/contract.md "Views and
// sessions"): compaction is most of a cold build, and the standard view
// should not wait for it. An entry is compacted on first use (one tool is
// cheap); the store compacts the rest in the background, in slices that
// leave the event loop to requests (compactInBackground). A compact list
// asked for before then waits for it (whenCompacted); /readyz says which
// views are served.
import type { ToolDescriptor } from '../contract/descriptor.js';
import type { Body, Encoding } from './body.js';
import { EntrySlabs, type Kind, ListBodies } from './list-body.js';
import type { BuiltTool, PreviousBuild } from './build.js';
import type { SchemaTexts } from './describe.js';
import { Entry, makeEntry, type ToolEntry } from './entry.js';
import { assignMcpNames, type McpNameMap } from './tool-names.js';
import { type Caller, type TenantPolicy, visibleToolIds } from './visibility.js';

export type { ToolEntry } from './entry.js';

/** What one visibility set (tenant plus relevant scopes) sees. */
export class CallerView {
  private standardList?: Body;
  private compactList?: Body;
  private names?: McpNameMap;
  constructor(
    readonly ids: ReadonlySet<string>,
    readonly entries: readonly ToolEntry[],
    private readonly lists: ListBodies,
  ) {}
  /** GET /tools: a bare array. */
  get standard(): Body {
    return (this.standardList ??= this.lists.bodyFor(this.entries, 'standard'));
  }
  /** GET /tools?view=compact: `{ "tools": [...] }`. */
  get compact(): Body {
    return (this.compactList ??= this.lists.bodyFor(this.entries, 'compact'));
  }
  /**
   * MCP-safe names for exactly this view's tools, made on first use: they
   * depend on nothing the caller cannot see, so a tool of another tenant
   * never renames one of this caller's.
   */
  get mcpNames(): McpNameMap {
    return (this.names ??= assignMcpNames(this.entries.map((e) => e.tool.raw)));
  }
  /** The list bodies made so far, with the encodings made for each (what a successor snapshot should prepare). */
  used(): { kind: Kind; encodings: Encoding[] }[] {
    const out: { kind: Kind; encodings: Encoding[] }[] = [];
    for (const [kind, body] of [['standard', this.standardList], ['compact', this.compactList]] as const) {
      if (body?.built) out.push({ kind, encodings: (['gzip', 'br'] as const).filter((e) => body.ready(e) !== undefined) });
    }
    return out;
  }
}

const MAX_MEMOIZED_VIEWS = 4096;

/** How long background compaction works before giving the event loop a turn. */
const COMPACT_SLICE_MS = 8;

function sameList(a: readonly string[] | undefined, b: readonly string[] | undefined): boolean {
  if (a === b) return true;
  if (a === undefined || b === undefined || a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** What a snapshot may take over besides its tools; used while it is made, never kept. */
export interface SnapshotBasis {
  /** The snapshot this one replaces: its entries' bytes serve tools whose descriptor is the same object, or the one they repeat. */
  previous?: CatalogSnapshot;
  /** The build's `repeats`: by toolId, the previous descriptor a rebound tool repeats. */
  repeats?: ReadonlyMap<string, ToolDescriptor>;
  /** The build's `schemaTexts`: by toolId, the schema text to serialize a newly described tool with. */
  schemaTexts?: ReadonlyMap<string, SchemaTexts>;
}

/** A snapshot's entries by toolId. */
export interface EntriesById {
  get(toolId: string): ToolEntry | undefined;
  readonly size: number;
}

/**
 * Entries by toolId through their positions, which are shared by every
 * snapshot with the same ids in the same order: a content-only refresh
 * makes no map.
 */
class ByPosition implements EntriesById {
  constructor(
    private readonly positions: ReadonlyMap<string, number>,
    private readonly entries: readonly ToolEntry[],
  ) {}

  get(toolId: string): ToolEntry | undefined {
    const i = this.positions.get(toolId);
    return i === undefined ? undefined : this.entries[i];
  }

  get size(): number {
    return this.positions.size;
  }
}

export class CatalogSnapshot implements PreviousBuild {
  readonly entries: readonly ToolEntry[];
  readonly byId: EntriesById;
  /** Position of each toolId in `entries`. */
  private readonly positions: ReadonlyMap<string, number>;
  /** Every scope some tool requires: scopes outside it cannot change a view. */
  private readonly relevantScopes: ReadonlySet<string>;
  private readonly views = new Map<string, { view: CallerView; tenant: string; scopes: readonly string[] }>();
  /** The view of a caller object already asked about (principals are long-lived objects): no key to build per request. */
  private readonly callerViews = new WeakMap<Caller, CallerView>();
  /** Visible id sets by view key, from a previous snapshot whose visibility this one repeats. */
  private readonly inherited?: ReadonlyMap<string, ReadonlySet<string>>;
  /** List bodies, shared by views that list the same entries. */
  private readonly lists: ListBodies;
  /** Entries before this position are compacted (the background compaction's progress). */
  private compactedUpTo = 0;
  /** The background compaction running, if one is. */
  private compacting?: Promise<void>;
  /**
   * Where new entries' bytes are written, shared with the snapshots before
   * and after this one: a replaced snapshot's compaction may still be
   * running (a caller waits on it), and each entry is compacted once, by
   * whichever gets to it first, so one writer keeps the bytes in catalog
   * order, a run per slab.
   */
  private readonly slabs: Readonly<Record<Kind, EntrySlabs>>;

  constructor(
    readonly tools: readonly BuiltTool[],
    private readonly tenants: ReadonlyMap<string, TenantPolicy>,
    readonly generation: number,
    { previous, repeats, schemaTexts }: SnapshotBasis = {},
  ) {
    const entries = new Array<Entry>(tools.length);
    // A refresh that changed content only (the same ids in the same order):
    // the previous entries are found by position, and the visible id sets may carry over.
    const prevTools = previous?.tools;
    const aligned = prevTools !== undefined && prevTools.length === tools.length && tools.every((t, i) => t.descriptor.toolId === prevTools[i].descriptor.toolId);
    const positions = aligned ? undefined : new Map<string, number>();
    const relevantScopes = new Set<string>();
    /** Whether every tool is visible to exactly whom it was visible before (same ids, same scopes and steps). */
    let sameVisibility = aligned;
    this.slabs = previous?.slabs ?? { standard: new EntrySlabs(), compact: new EntrySlabs() };
    for (let i = 0; i < tools.length; i++) {
      const tool = tools[i];
      const d = tool.descriptor;
      const scopes = d.auth?.scopes;
      if (scopes) for (const s of scopes) relevantScopes.add(s);
      if (aligned && prevTools[i] !== tool) sameVisibility &&= sameList(scopes, prevTools[i].descriptor.auth?.scopes) && sameList(tool.raw.steps, prevTools[i].raw.steps);
      // The previous entry of this descriptor, or of the one this tool repeats with equal content: its bytes serve again.
      const known = aligned ? previous!.entries[i] : previous?.byId.get(d.toolId);
      const kept = known instanceof Entry && (known.tool.descriptor === d || known.tool.descriptor === repeats?.get(d.toolId)) ? known : undefined;
      const entry = kept === undefined ? makeEntry(tool, this.slabs.standard, schemaTexts?.get(d.toolId)) : Entry.carrying(tool, kept);
      entries[i] = entry;
      positions?.set(d.toolId, i);
    }
    this.entries = entries;
    this.positions = positions ?? previous!.positions;
    this.byId = new ByPosition(this.positions, entries);
    this.relevantScopes = relevantScopes;
    this.lists = new ListBodies(entries);
    // The visible id sets the previous snapshot computed still hold: keep them (not the old views).
    if (sameVisibility && previous !== undefined) this.inherited = new Map([...previous.views].map(([key, v]) => [key, v.view.ids]));
  }

  /** Whether every entry's compact bytes exist: the compact view is served without waiting. */
  get compactServed(): boolean {
    const entries = this.entries as readonly Entry[];
    while (this.compactedUpTo < entries.length && entries[this.compactedUpTo].compacted) this.compactedUpTo++;
    return this.compactedUpTo === entries.length;
  }

  /**
   * Undefined when the compact view is served; else a promise that resolves
   * when compaction in the background has made it, started now if none runs.
   * Resolves early if that compaction stops (this snapshot replaced, or an
   * entry that throws): the caller then makes what is left itself.
   */
  whenCompacted(): Promise<void> | undefined {
    if (this.compactServed) return undefined;
    return this.compacting ?? this.compactInBackground();
  }

  /**
   * Compacts every entry not compacted yet, a slice at a time with a turn of
   * the event loop in between, so requests for the standard view keep being
   * answered. Stops early once `stillWanted` says the snapshot has been
   * replaced (its successor carries what was made). Resolves when done;
   * never rejects: an entry whose compaction throws stops it, and throws
   * again for the request that needs it (an error answer, as from a build
   * that throws). One runs at a time: a second call gets the first's promise.
   */
  compactInBackground(stillWanted: () => boolean = () => true): Promise<void> {
    this.compacting ??= this.compactSlices(stillWanted).finally(() => (this.compacting = undefined));
    return this.compacting;
  }

  private async compactSlices(stillWanted: () => boolean): Promise<void> {
    const entries = this.entries as readonly Entry[];
    try {
      while (!this.compactServed && stillWanted()) {
        const until = performance.now() + COMPACT_SLICE_MS;
        for (let i = this.compactedUpTo; i < entries.length && performance.now() < until; i++) entries[i].compactInto(this.slabs.compact);
        if (!this.compactServed) await new Promise((resolve) => setImmediate(resolve));
      }
    } catch {
      // Stopped; see above.
    }
  }

  /** The tool with this id (what the next build may reuse). */
  tool(toolId: string): BuiltTool | undefined {
    return this.byId.get(toolId)?.tool;
  }

  /** The view for a caller; an unknown tenant sees nothing. */
  viewFor(caller: Caller): CallerView {
    const known = this.callerViews.get(caller);
    if (known !== undefined) return known;
    const scopes = [...caller.scopes].filter((s) => this.relevantScopes.has(s)).sort();
    const view = this.viewOf(caller.tenant, scopes);
    this.callerViews.set(caller, view);
    return view;
  }

  private viewOf(tenantId: string, scopes: readonly string[]): CallerView {
    const key = `${tenantId}\n${scopes.join('\n')}`;
    const known = this.views.get(key);
    if (known) return known.view;
    const tenant = this.tenants.get(tenantId);
    const inherited = this.inherited?.get(key);
    const ids = inherited ?? (tenant ? visibleToolIds(this.tools, (id) => this.tool(id), tenant, new Set(scopes)) : new Set<string>());
    // Ids are in catalog order (visibleToolIds adds them so).
    const entries = ids.size === this.entries.length ? this.entries : inherited !== undefined ? [...ids].map((id) => this.byId.get(id)!) : this.entries.filter((e) => ids.has(e.tool.descriptor.toolId));
    const view = new CallerView(ids, entries, this.lists);
    if (this.views.size >= MAX_MEMOIZED_VIEWS) this.views.delete(this.views.keys().next().value as string);
    this.views.set(key, { view, tenant: tenantId, scopes });
    return view;
  }

  /** The tool if the caller may see it; undefined for unknown and invisible alike. */
  lookup(caller: Caller, toolId: string): ToolEntry | undefined {
    const entry = this.byId.get(toolId);
    return entry && this.viewFor(caller).ids.has(toolId) ? entry : undefined;
  }

  /**
   * Prepares in this snapshot the list bodies (and their encodings) that
   * were used in `previous`, so callers that keep asking are answered from
   * ready bytes after a swap. One compression at a time, on the thread
   * pool: background work keeps to one core, the other stays free for
   * requests and the next refresh. Stops early once `stillWanted` says the
   * snapshot has been replaced. Resolves when done; never rejects.
   */
  async prepareLike(previous: CatalogSnapshot, stillWanted: () => boolean = () => true): Promise<void> {
    for (const old of [...previous.views.values()]) {
      if (!stillWanted()) return;
      const used = old.view.used();
      if (used.length === 0) continue;
      const view = this.viewOf(old.tenant, old.scopes);
      for (const { kind, encodings } of used) {
        const body = view[kind];
        void body.parts;
        for (const e of encodings) {
          if (!stillWanted()) return;
          await Promise.resolve(body.encodedSoon(e)).catch(() => undefined);
        }
      }
      // Give requests a turn between views.
      await new Promise((resolve) => setImmediate(resolve));
    }
  }
}
