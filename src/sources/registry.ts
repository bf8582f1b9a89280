// The host's one list of sources, and the question the invocation layer asks
// of it: which source owns this toolId. Routing by `owns` rather than by the
// toolId's prefix keeps the kinds out of dispatch: a new kind of source is
// its folder and its line in the host's list of loaders.
import type { SourceHealth, ToolSource } from './raw-tool.js';

export class SourceRegistry {
  private readonly byId: ReadonlyMap<string, ToolSource>;
  /** Output-schema mismatches per source id: found by the invocation layer, reported with the source's health. */
  private readonly mismatches = new Map<string, Required<Pick<SourceHealth, 'outputSchemaMismatches' | 'lastOutputSchemaMismatch'>>>();

  constructor(readonly list: readonly ToolSource[]) {
    this.byId = new Map(list.map((s) => [s.id, s]));
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
    const h = source.health();
    const m = this.mismatches.get(source.id);
    return m === undefined ? h : { ...h, ...m };
  }
}
