// Changing a running host's configuration (docs/config.md "Changing a running
// host"). A candidate config is checked as a start would check it (the file's
// schema and cross-references, every source loaded, new upstreams started,
// the catalog built strictly) while the old one keeps serving; only then is it
// swapped in, in one synchronous step: the catalog snapshot (tenants, policy,
// tools), the source list, the principals, the tenants' limits and MCP
// defaults. A candidate that fails changes nothing. Unchanged upstreams keep
// running; replaced and removed ones stop once their running calls finish.
import type { ItemsFollower } from './resources-prompts.js';
import type { Logger } from 'pino';
import { recordOfEntry } from '../auth/api-keys.js';
import type { AuthRuntime } from '../auth/setup.js';
import { resolveRateLimit } from '../auth/rate-limit.js';
import type { CatalogSnapshot } from '../catalog/snapshot.js';
import { CatalogBuildError, type CatalogInputs, type CatalogStore } from '../catalog/store.js';
import { compileTenant, type TenantPolicy } from '../catalog/visibility.js';
import { Policy } from '../classify/policy.js';
import { loadConfigFile, type LoadedConfig } from '../config/load.js';
import type { HostMetrics } from '../observability/metrics.js';
import type { ToolSource } from '../sources/raw-tool.js';
import { SourceRegistry } from '../sources/registry.js';
import type { SourceContext } from '../sources/source-context.js';
import { ConfigError } from '../util/validated-yaml.js';
import { keepFixedSettings, planUpstreams, sameValue, UPSTREAM_KINDS } from './config-diff.js';
import { loadSources } from './load-sources.js';

/** The tenants whose MCP sessions list compact schemas, or the search tools, by default; updated in place. */
export interface TenantMcpDefaults {
  compact: Set<string>;
  search: Set<string>;
}

export interface ReloadParts {
  logger: Logger;
  metrics: HostMetrics;
  ctx: SourceContext;
  sources: SourceRegistry;
  store: CatalogStore;
  auth: AuthRuntime;
  mcpDefaults: TenantMcpDefaults;
  /** How long a reload waits for new upstream sources' first list. */
  startDeadlineMs: number;
  /** Reads the running config; `setLoaded` replaces it after a swap. */
  loaded(): LoadedConfig;
  setLoaded(next: LoadedConfig): void;
  /** The MCP servers' resources and prompts follow the new tenants, policy and sources in the same step. */
  followItems?: ItemsFollower;
}

export type ReloadOutcome =
  | { outcome: 'applied' | 'partial'; generation: number; refused: string[]; added: string[]; restarted: string[]; removed: string[] }
  | { outcome: 'refused'; generation: number; problems: string[] };

/** What /readyz says of the config. */
export interface ConfigStatus {
  generation: number;
  lastReload?: { at: string; outcome: ReloadOutcome['outcome']; refusedSettings?: string[] };
  lastRefused?: { at: string; problems: string[] };
}

/** The MCP defaults the config's tenants ask for. */
export function mcpDefaultsOf(tenants: LoadedConfig['config']['tenants']): TenantMcpDefaults {
  const entries = Object.entries(tenants);
  return {
    compact: new Set(entries.filter(([, t]) => t.mcpView === 'compact').map(([id]) => id)),
    search: new Set(entries.filter(([, t]) => t.mcpMode === 'search').map(([id]) => id)),
  };
}

export function tenantPoliciesOf(tenants: LoadedConfig['config']['tenants']): Map<string, TenantPolicy> {
  return new Map(Object.entries(tenants).map(([id, t]) => [id, compileTenant(id, t.tools)]));
}

export class ConfigReloader {
  private generation = 1;
  private last?: ConfigStatus['lastReload'];
  private lastRefused?: ConfigStatus['lastRefused'];
  private chain: Promise<unknown> = Promise.resolve();

  constructor(private readonly parts: ReloadParts) {
    parts.metrics.configGeneration.set(1);
  }

  status(): ConfigStatus {
    return { generation: this.generation, ...(this.last ? { lastReload: this.last } : {}), ...(this.lastRefused ? { lastRefused: this.lastRefused } : {}) };
  }

  /** Re-reads the config file and applies it; reloads run one at a time, in the order asked. */
  reloadFile(reason: string): Promise<ReloadOutcome> {
    return this.enqueue(reason, () => this.fileWithLayer());
  }

  /** Applies a config loaded and checked by `load` (the file with a changed layer: the admin API), in line with file reloads. */
  apply(reason: string, load: () => LoadedConfig): Promise<ReloadOutcome> {
    return this.enqueue(reason, load);
  }

  private enqueue(reason: string, load: () => LoadedConfig): Promise<ReloadOutcome> {
    const run = this.chain.then(() => this.run(reason, load));
    this.chain = run.catch(() => undefined);
    return run;
  }

  private async run(reason: string, load: () => LoadedConfig): Promise<ReloadOutcome> {
    const { logger, metrics } = this.parts;
    let outcome: ReloadOutcome;
    try {
      outcome = await this.attempt(load);
    } catch (err) {
      if (!(err instanceof ConfigError)) throw err;
      outcome = { outcome: 'refused', generation: this.generation, problems: err.problems };
    }
    const at = new Date().toISOString();
    metrics.configReloads.inc({ outcome: outcome.outcome });
    if (outcome.outcome === 'refused') {
      this.lastRefused = { at, problems: outcome.problems };
      this.last = { at, outcome: 'refused' };
      // One line with every problem; the host keeps serving what it served.
      logger.error({ reason, generation: this.generation, problems: outcome.problems }, `config reload refused; still serving generation ${this.generation}: ${outcome.problems.join('; ')}`);
      return outcome;
    }
    this.last = { at, outcome: outcome.outcome, ...(outcome.refused.length > 0 ? { refusedSettings: outcome.refused } : {}) };
    if (outcome.refused.length > 0) {
      logger.warn({ reason, refused: outcome.refused }, `config reload: ${outcome.refused.join(', ')} cannot change while the host runs (restart to apply); the rest is applied`);
    }
    const { added, restarted, removed } = outcome;
    logger.info({ reason, generation: outcome.generation, added, restarted, removed }, 'config reloaded');
    return outcome;
  }

  /** The layer over the file (admin API changes), applied to every config read from the file. */
  private layer: (loaded: LoadedConfig) => LoadedConfig = (loaded) => loaded;

  setLayer(layer: (loaded: LoadedConfig) => LoadedConfig): void {
    this.layer = layer;
  }

  /** The file as read now, with the layer over it (unchecked beyond what loading checks). */
  fileWithLayer(): LoadedConfig {
    return this.layer(loadConfigFile(this.parts.loaded().file));
  }

  /**
   * What serving `load()` would look like, checked as a reload checks it and
   * built, but swapped in nowhere: new upstreams are started for the look and
   * stopped again. Throws ConfigError for what a reload would refuse.
   */
  preview(load: () => LoadedConfig): Promise<{ snapshot: CatalogSnapshot; refused: string[] }> {
    const run = this.chain.then(async () => {
      const prepared = await this.prepare(load);
      try {
        return { snapshot: this.parts.store.preview(prepared.inputs), refused: prepared.refused };
      } catch (err) {
        if (err instanceof CatalogBuildError) throw new ConfigError(err.problems.map((p) => `${prepared.candidate.file}: ${p.message}`));
        throw err;
      } finally {
        await Promise.all(prepared.started.map((s) => s.stop().catch(() => undefined)));
      }
    });
    this.chain = run.catch(() => undefined);
    return run;
  }

  /** Loads, keeps the fixed settings, makes and starts the sources a candidate needs. */
  private async prepare(load: () => LoadedConfig) {
    const running = this.parts.loaded();
    const read = load();
    const { config, refused } = keepFixedSettings(running.config, read.config);
    const candidate: LoadedConfig = { ...read, config };
    const plan = planUpstreams(running.config, config);
    const fresh = await loadSources({ ...candidate, config: plan.fresh }, this.parts.ctx);
    const next = this.ordered(config, fresh, plan.kept);
    const started = fresh.filter((s) => next.includes(s));
    await this.startAll(started);
    const registry = new SourceRegistry(next);
    const inputs: CatalogInputs = {
      sources: next,
      policy: new Policy(config.policy),
      tenants: tenantPoliciesOf(config.tenants),
      build: { isMissingStepFatal: (toolId) => registry.sourceFor(toolId) === undefined },
    };
    const changed = { policy: !sameValue(running.config.policy, config.policy), tenants: !sameValue(running.config.tenants, config.tenants) };
    return { running, candidate, refused, next, started, inputs, changed };
  }

  private async attempt(load: () => LoadedConfig): Promise<ReloadOutcome> {
    const { running, candidate, refused, next, started, inputs, changed } = await this.prepare(load);
    try {
      this.parts.store.reconfigure(inputs, changed);
    } catch (err) {
      await Promise.all(started.map((s) => s.stop().catch(() => undefined)));
      if (err instanceof CatalogBuildError) throw new ConfigError(err.problems.map((p) => `${candidate.file}: ${p.message}`));
      throw err;
    }
    // From the snapshot swap above to here nothing awaits: a request sees the old or the new config.
    const previous = this.parts.sources.list;
    this.parts.sources.replace(next);
    this.parts.followItems?.(candidate, next, inputs.policy);
    this.swapAuth(running, candidate);
    this.swapMcpDefaults(candidate.config.tenants);
    this.parts.setLoaded(candidate);
    this.generation++;
    this.parts.metrics.configGeneration.set(this.generation);
    const retired = previous.filter((s) => !next.includes(s));
    void this.retire(retired);
    const ids = (list: readonly ToolSource[]) => new Set(list.map((s) => s.id));
    const before = ids(previous);
    const after = ids(next);
    return {
      outcome: refused.length > 0 ? 'partial' : 'applied',
      generation: this.generation,
      refused,
      added: [...after].filter((id) => !before.has(id)),
      restarted: started.filter((s) => s.kind === 'mcp' || s.kind === 'connector').map((s) => s.id).filter((id) => before.has(id)),
      removed: [...before].filter((id) => !after.has(id)),
    };
  }

  /** The new source list in config order: static sources as just loaded, upstreams kept or new. */
  private ordered(config: LoadedConfig['config'], fresh: readonly ToolSource[], kept: ReadonlySet<string>): ToolSource[] {
    const freshById = new Map(fresh.map((s) => [s.id, s]));
    const list: ToolSource[] = fresh.filter((s) => s.kind !== 'mcp' && s.kind !== 'connector');
    for (const { section, kind } of UPSTREAM_KINDS) {
      for (const entry of config.sources?.[section] ?? []) {
        const id = `${kind}:${entry.id}`;
        const source = kept.has(id) ? this.parts.sources.get(id) : freshById.get(id);
        if (source !== undefined) list.push(source);
      }
    }
    return list;
  }

  /** Starts new sources, waiting for their first list at most the start deadline (as a start does). */
  private async startAll(sources: readonly ToolSource[]): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.all(sources.map((s) => s.start(this.parts.store.scheduleRebuild))),
      new Promise((r) => (timer = setTimeout(r, this.parts.startDeadlineMs))),
    ]).finally(() => clearTimeout(timer));
  }

  /** Stops each source taken out once the calls it is running have finished. */
  private async retire(sources: readonly ToolSource[]): Promise<void> {
    await Promise.all(
      sources.map(async (s) => {
        await this.parts.sources.idle(s);
        await s.stop().catch((err: unknown) => this.parts.logger.error({ err, source: s.id }, 'stopping a removed source failed'));
        this.parts.metrics.sourceTools.remove({ source: s.id });
      }),
    );
  }

  private swapAuth(running: LoadedConfig, next: LoadedConfig): void {
    const { auth } = this.parts;
    const tenants = next.config.tenants;
    for (const id of [...auth.tenantIds]) if (!Object.hasOwn(tenants, id)) auth.tenantIds.delete(id);
    for (const id of Object.keys(tenants)) auth.tenantIds.add(id);
    for (const id of [...auth.tenantLimits.keys()]) if (!Object.hasOwn(tenants, id)) auth.tenantLimits.delete(id);
    for (const [id, t] of Object.entries(tenants)) {
      const limit = resolveRateLimit(t.rateLimit, auth.defaultLimit);
      // An unchanged limit keeps its object, so principals' buckets carry on.
      if (!auth.tenantLimits.has(id) || !sameValue(auth.tenantLimits.get(id), limit)) auth.tenantLimits.set(id, limit);
    }
    const principals = next.config.principals ?? [];
    if (sameValue(running.config.principals ?? [], principals)) return;
    if (auth.keysFile !== undefined) auth.keysFile.setInline(principals);
    else auth.apiKeys.replace(principals.map(recordOfEntry));
  }

  private swapMcpDefaults(tenants: LoadedConfig['config']['tenants']): void {
    const next = mcpDefaultsOf(tenants);
    for (const key of ['compact', 'search'] as const) {
      this.parts.mcpDefaults[key].clear();
      for (const id of next[key]) this.parts.mcpDefaults[key].add(id);
    }
  }
}
