// The host's one list of sources, and the question the invocation layer asks
// of it: which source owns this toolId. Routing by `owns` rather than by the
// toolId's prefix keeps the kinds out of dispatch: a new kind of source is
// its folder and its line in the host's list of loaders. A config reload
// replaces the list in one step; the calls a source is running are counted,
// so a source taken out of the list is stopped only once they have finished.
import type { DispatchOutcome } from './call-result.js';
import type { InvokeContext, SourceHealth, SourceState, ToolSource } from './raw-tool.js';

export class SourceRegistry {
  private current: readonly ToolSource[];
  private byId: ReadonlyMap<string, ToolSource>;
  /** Calls running per source, and who waits for a source's count to reach zero. */
  private readonly running = new Map<ToolSource, { calls: number; idle: (() => void)[] }>();
  /** Output-schema mismatches per source id: found by the invocation layer, reported with the source's health. */
  private readonly mismatches = new Map<string, Required<Pick<SourceHealth, 'outputSchemaMismatches' | 'lastOutputSchemaMismatch'>>>();

  constructor(list: readonly ToolSource[]) {
    this.current = list;
    this.byId = new Map(list.map((s) => [s.id, s]));
  }

  /** Every source, in config order. */
  get list(): readonly ToolSource[] {
    return this.current;
  }

  /** Replaces the whole list at once (config reload); starting and stopping sources is the caller's. */
  replace(list: readonly ToolSource[]): void {
    this.current = list;
    this.byId = new Map(list.map((s) => [s.id, s]));
  }

  /** Calls `toolId` on the source `source`, counted until it settles (see `idle`). */
  async invoke(source: ToolSource, toolId: string, args: Record<string, unknown>, context: InvokeContext): Promise<DispatchOutcome> {
    const count = this.running.get(source) ?? { calls: 0, idle: [] };
    this.running.set(source, count);
    count.calls++;
    try {
      return await source.invoke(toolId, args, context);
    } finally {
      if (--count.calls === 0) {
        this.running.delete(source);
        for (const wake of count.idle) wake();
      }
    }
  }

  /** Resolves once `source` runs no call (at once when it runs none). */
  idle(source: ToolSource): Promise<void> {
    const count = this.running.get(source);
    if (count === undefined) return Promise.resolve();
    return new Promise((resolve) => count.idle.push(resolve));
  }

  /** The source with this id (`mcp:everything`, `node-pack:text`...). */
  get(id: string): ToolSource | undefined {
    return this.byId.get(id);
  }

  /**
   * The source whose calls `toolId` is. Ids are unique across sources (a
   * duplicate stops the start) and upstream namespaces are disjoint by the
   * toolId grammar, so at most one source owns an id.
   */
  sourceFor(toolId: string): ToolSource | undefined {
    return this.list.find((s) => s.owns(toolId));
  }

  /** Records that a result of `toolId` did not match its outputSchema. */
  noteOutputSchemaMismatch(sourceId: string, toolId: string, problem: string): void {
    const count = (this.mismatches.get(sourceId)?.outputSchemaMismatches ?? 0) + 1;
    this.mismatches.set(sourceId, { outputSchemaMismatches: count, lastOutputSchemaMismatch: { at: new Date().toISOString(), toolId, problem } });
  }

  /** A source's own health, with the mismatches its results had. */
  healthOf(source: ToolSource): SourceHealth {
    const own = source.health();
    const h = own.canCall !== undefined ? own : { ...own, ...callability(own.state) };
    const m = this.mismatches.get(source.id);
    return m === undefined ? h : { ...h, ...m };
  }
}

/** What a source's state alone says about calling it: a stale source still serves its last good tools. */
function callability(state: SourceState): Pick<SourceHealth, 'canCall' | 'cannotCall'> {
  if (state === 'connected' || state === 'stale') return { canCall: true };
  return { canCall: false, cannotCall: state === 'failed' ? 'the source has not loaded; it has no tools to call' : 'the source is still starting' };
}
