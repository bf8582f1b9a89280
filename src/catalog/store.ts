// Holds the current snapshot and replaces it when a source changes (swap
// atomically: a request sees the old or the new catalog,
// never a mix). Rebuilds are coalesced: a burst of source changes yields one
// build. A failed rebuild keeps the last good snapshot. With `reuse` off
// (config `catalog.reuse: false`) every rebuild starts from nothing, as the
// first one does: the reference the fast paths must agree with. A config
// reload hands in new sources, policy and tenants at once (`reconfigure`):
// built strictly, swapped only when the build holds.
import type { Logger } from 'pino';
import type { Policy } from '../classify/policy.js';
import type { HostMetrics } from '../observability/metrics.js';
import type { SourceState, ToolSource } from '../sources/raw-tool.js';
import { type BuildOptions, type BuildProblem, buildCatalog, ClassifyCache } from './build.js';
import { CatalogSnapshot } from './snapshot.js';
import type { TenantPolicy } from './visibility.js';

export class CatalogBuildError extends Error {
  constructor(readonly problems: BuildProblem[]) {
    super(problems.map((p) => p.message).join('\n'));
  }
}

export interface CatalogStoreOptions {
  sources: readonly ToolSource[];
  policy: Policy;
  tenants: ReadonlyMap<string, TenantPolicy>;
  logger: Logger;
  metrics: HostMetrics;
  build?: BuildOptions;
  /** Reuse the previous build's unchanged tools, entries and policy results (default true). */
  reuse?: boolean;
}

const hasLoaded = (state: SourceState): boolean => state === 'connected' || state === 'stale';
/** What a config reload may change. */
export type CatalogInputs = Pick<CatalogStoreOptions, 'sources' | 'policy' | 'tenants' | 'build'>;

type SwapListener = (next: CatalogSnapshot, previous: CatalogSnapshot) => void;

export class CatalogStore {
  private snapshot: CatalogSnapshot;
  private generation = 0;
  private pending = false;
  private readonly listeners = new Set<SwapListener>();
  private classifyCache?: ClassifyCache;
  /** Ids of the sources whose tools the current snapshot was built from (those that had loaded by then). */
  private served: ReadonlySet<string> = new Set();
  /** The next build may not reuse the current snapshot's classifications or visible sets (policy or tenants changed). */
  private cold = false;

  constructor(private options: CatalogStoreOptions) {
    this.snapshot = new CatalogSnapshot([], options.tenants, 0);
    if (options.reuse !== false) this.classifyCache = new ClassifyCache();
  }

  /** The snapshot to answer a request from; never changes under a caller that holds it. */
  current(): CatalogSnapshot {
    return this.snapshot;
  }

  /** First build, at start: any fatal problem is a config error and throws. */
  initialBuild(): CatalogSnapshot {
    return this.rebuild(true);
  }

  /** Called by sources; coalesces bursts into one build on the next turn of the event loop. */
  scheduleRebuild = (): void => {
    if (this.pending) return;
    this.pending = true;
    setImmediate(() => {
      this.pending = false;
      try {
        this.rebuild(false);
      } catch (err) {
        this.options.logger.error({ err }, 'catalog rebuild failed; keeping the last good snapshot');
      }
    });
  };

  /**
   * The sources whose tools are not in the served catalog yet: never loaded,
   * or loaded after the current snapshot was built (a rebuild is on its way).
   */
  notServed(): string[] {
    return this.options.sources.filter((s) => !this.served.has(s.id)).map((s) => s.id);
  }

  /**
   * Builds from new inputs (a config reload) with start-up's strictness and
   * swaps them in with the snapshot, in one step; a fatal problem throws
   * CatalogBuildError and changes nothing. A changed policy or tenant set
   * builds cold: classifications and visible sets of the old ones do not hold.
   */
  reconfigure(inputs: CatalogInputs, changed: { policy: boolean; tenants: boolean }): CatalogSnapshot {
    const before = { options: this.options, classifyCache: this.classifyCache, cold: this.cold };
    this.options = { ...this.options, ...inputs };
    if (changed.policy || changed.tenants) {
      this.cold = true;
      if (this.classifyCache !== undefined) this.classifyCache = new ClassifyCache();
    }
    try {
      return this.rebuild(true);
    } catch (err) {
      this.options = before.options;
      this.classifyCache = before.classifyCache;
      this.cold = before.cold;
      throw err;
    }
  }

  /** What `reconfigure` would serve, built cold and strictly, without swapping anything in (a dry run). */
  preview(inputs: CatalogInputs): CatalogSnapshot {
    const result = buildCatalog(inputs.sources.flatMap((s) => s.tools()), inputs.policy, { ...inputs.build });
    const fatal = result.problems.filter((p) => p.fatal);
    if (fatal.length > 0) throw new CatalogBuildError(fatal);
    return new CatalogSnapshot(result.tools, inputs.tenants, this.generation, { repeats: result.repeats, schemaTexts: result.schemaTexts });
  }

  onSwap(listener: SwapListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private rebuild(strict: boolean): CatalogSnapshot {
    const { sources, policy, tenants, logger, metrics } = this.options;
    const started = process.hrtime.bigint();
    const raw = sources.flatMap((s) => s.tools());
    // A source that has loaded once serves its last good tools, also while it is stale.
    const loaded = new Set(sources.filter((s) => hasLoaded(s.health().state)).map((s) => s.id));
    // Unchanged tools keep their BuiltTool (and with it their serialized, compacted entry).
    const reuse = this.options.reuse !== false && !this.cold;
    const result = buildCatalog(raw, policy, { ...this.options.build, previous: reuse ? this.snapshot : undefined, classifyCache: this.classifyCache });
    const fatal = result.problems.filter((p) => p.fatal);
    if (strict && fatal.length > 0) throw new CatalogBuildError(fatal);
    for (const p of result.problems) logger.warn({ problem: p.message }, 'catalog problem on refresh');
    for (const w of result.warnings) logger.warn({ warning: w }, 'catalog warning');
    const previous = this.snapshot;
    this.cold = false;
    const next = new CatalogSnapshot(result.tools, tenants, ++this.generation, {
      previous: reuse ? previous : undefined,
      repeats: result.repeats,
      schemaTexts: result.schemaTexts,
    });
    this.snapshot = next;
    this.served = loaded;
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    metrics.snapshotBuilds.inc();
    metrics.snapshotBuildSeconds.observe(seconds);
    metrics.catalogTools.set(next.entries.length);
    logger.info({ generation: next.generation, tools: next.entries.length, ms: Math.round(seconds * 1000) }, 'catalog snapshot built');
    for (const l of this.listeners) l(next, previous);
    // The compact view after the standard one (only the changed tools, on a refresh), then the
    // list bodies callers were reading, ready again before they ask (compression off the event loop).
    const wanted = () => this.snapshot === next;
    setImmediate(() => {
      const compactStarted = process.hrtime.bigint();
      void next.compactInBackground(wanted).then(() => {
        // When both views are served (after a start, the line that says so).
        if (next.compactServed) logger.info({ generation: next.generation, tools: next.entries.length, ms: Math.round(Number(process.hrtime.bigint() - compactStarted) / 1e6) }, 'compact view made');
        if (previous.entries.length > 0 && wanted()) return next.prepareLike(previous, wanted);
      });
    });
    return next;
  }
}
