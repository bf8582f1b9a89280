// The composition root: config file in, a running catalog out. Loads every
// source, builds the first snapshot (fatal problems stop the start with the
// config's places), and wires refreshes to the store. Everything the HTTP and
// MCP layers need hangs off the Host object.
//
// A start that fails stops everything it had started, newest first (sources
// and their child processes, the event log and its timers, key-file watchers),
// so a failed `serve()` leaves no process, socket or timer behind. The event
// log is opened before any source starts (event-store.ts).
import pino, { type Logger } from 'pino';
import type { ApiKeyStore } from '../auth/api-keys.js';
import type { HostAuthenticator } from '../auth/authenticator.js';
import { setUpAuth, type AuthRuntime } from '../auth/setup.js';
import { RedisConnection } from '../auth/redis-connection.js';
import { readSecretRef, SecretRefError } from '../util/secret-ref.js';
import type { CatalogSearch } from '../catalog/search/catalog-search.js';
import { startSearch } from './search-setup.js';
import { CatalogBuildError, CatalogStore } from '../catalog/store.js';
import { itemDeps } from './resources-prompts.js';
import { Policy } from '../classify/policy.js';
import { loadConfigFile, type LoadedConfig } from '../config/load.js';
import type { EventStore } from '../events/store.js';
import type { ConfigChangeStore } from '../events/config-changes.js';
import type { AdminConfig } from '../config/schema.js';
import type { ConfigLayer } from '../config/layer.js';
import { openEventStore } from './event-store.js';
import type { InvokeDeps } from '../invoke/types.js';
import type { SpanExporter } from '@opentelemetry/sdk-trace-base';
import { createTracing, type Tracing } from '../observability/tracing.js';
import type { Source } from '../contract/descriptor.js';
import { createMetrics, type HostMetrics } from '../observability/metrics.js';
import type { SourceHealth } from '../sources/raw-tool.js';
import { SourceRegistry } from '../sources/registry.js';
import type { SourceContext } from '../sources/source-context.js';
import { ConfigError } from '../util/validated-yaml.js';
import { buildDiscovery, type Discovery } from './discovery.js';
import { loadSources } from './load-sources.js';
import { watchConfigFile } from './config-watch.js';
import { AdminService, layeredConfig, readStoredLayer } from './admin.js';
import { ConfigReloader, mcpDefaultsOf, tenantPoliciesOf, type ReloadParts, type TenantMcpDefaults } from './reload.js';
import { setUpUpstreamCredentials } from './upstream-credentials.js';
import type { UpstreamCredentials } from '../upstream/credentials.js';

export interface HostOptions {
  logger?: Logger;
  /** Also export the process's own metrics (CPU, memory, event-loop lag); off unless asked (`toolhost serve` asks). */
  processMetrics?: boolean;
  env?: NodeJS.ProcessEnv;
  /** How long start-up waits for dynamic sources before serving what it has. */
  startDeadlineMs?: number;
  /** Export spans here instead of by the OTEL_* variables (tests): tracing is on. */
  spanExporter?: SpanExporter;
  /** Reload when the config file changes (default true; `server.watchConfig: false` turns it off too). */
  watchConfig?: boolean;
}

export interface Host {
  loaded: LoadedConfig;
  logger: Logger;
  metrics: HostMetrics;
  /** OpenTelemetry tracing; does nothing unless OTEL_* (or a test's exporter) turned it on. */
  tracing: Tracing;
  store: CatalogStore;
  /** Tool search over each caller's view, kept up to date on every swap. */
  search: CatalogSearch;
  authenticator: HostAuthenticator;
  apiKeys: ApiKeyStore;
  /** The whole auth layer: JWT verifier, keys-file reloader, rate limiter, audit switch. */
  auth: AuthRuntime;
  /** Every source, in config order; each lists, watches, reports on and calls its own tools. */
  sources: SourceRegistry;
  discovery: Discovery;
  /** The tool-session log, when `events` is configured. */
  events?: EventStore;
  /** Principals' own upstream credentials, when a source's `credentials` are not shared. */
  credentials?: UpstreamCredentials;
  /** The Redis server replicas share, when `redis` is configured. */
  redis?: RedisConnection;
  /** What the invocation layer and the MCP front door need. */
  invoke: InvokeDeps;
  /** Applies a changed config to the running host (file watch, SIGHUP, admin API). */
  reloader: ConfigReloader;
  /** Tenants whose MCP sessions default to compact schemas or the search mode; a reload updates them in place. */
  mcpDefaults: TenantMcpDefaults;
  /** The admin API's side, when `admin` is configured. */
  admin?: AdminService;
  sourceHealth(): SourceHealth[];
  stop(): Promise<void>;
}

/** What has been started so far, stopped newest first; a stop that throws does not keep the others running. */
class StartedParts {
  private readonly stops: Array<() => unknown> = [];

  add(stop: () => unknown): void {
    this.stops.push(stop);
  }

  async stopAll(logger: Logger): Promise<void> {
    while (this.stops.length > 0) {
      const stop = this.stops.pop()!;
      try {
        await stop();
      } catch (err) {
        logger.error({ err }, 'stopping part of the host failed');
      }
    }
  }
}

export async function startHost(configFile: string, options: HostOptions = {}): Promise<Host> {
  const logger = options.logger ?? pino({ level: process.env.LOG_LEVEL ?? 'info' });
  const loaded = loadConfigFile(configFile);
  const parts = new StartedParts();
  try {
    return await startParts(loaded, options, logger, parts);
  } catch (err) {
    await parts.stopAll(logger);
    throw err;
  }
}

/** What the host is observed with: metrics, tracing, and the context every source gets. */
async function startObservability(loaded: LoadedConfig, options: HostOptions, env: NodeJS.ProcessEnv, logger: Logger, parts: StartedParts) {
  const config = loaded.config;
  const metrics = createMetrics({
    processMetrics: options.processMetrics ?? false,
    eventLog: config.events !== undefined,
    toolLabels: config.metrics?.toolLabels,
    sharedRateLimits: config.auth?.rateLimitStore === 'redis',
  });
  const tracing = await createTracing(env, options.spanExporter);
  parts.add(() => tracing.shutdown());
  const ctx: SourceContext = { logger, metrics, configDir: loaded.dir, env, tracing, reuse: config.catalog?.reuse !== false };
  return { metrics, tracing, ctx };
}

/** The auth layer (docs/auth.md): keys, JWTs, the rate limiter, over the shared Redis when there is one. */
function startAuth(loaded: LoadedConfig, redis: RedisConnection | undefined, metrics: HostMetrics, logger: Logger, parts: StartedParts): AuthRuntime {
  const config = loaded.config;
  const auth = setUpAuth({
    redis,
    onRateLimitFallback: metrics.rateLimitStore === undefined ? undefined : () => metrics.rateLimitStore!.fallbacks.inc(),
    auth: config.auth,
    tenants: new Map(Object.entries(config.tenants).map(([id, t]) => [id, t.rateLimit])),
    principals: config.principals ?? [],
    configDir: loaded.dir,
    logger,
  });
  parts.add(() => auth.stop());
  return auth;
}

function catalogStore(loaded: LoadedConfig, sources: SourceRegistry, policy: Policy, ctx: SourceContext): CatalogStore {
  return new CatalogStore({
    sources: sources.list,
    policy,
    tenants: tenantPoliciesOf(loaded.config.tenants),
    logger: ctx.logger,
    metrics: ctx.metrics,
    reuse: ctx.reuse,
    build: {
      // A step no source owns can never exist: a config error. A step an
      // upstream source (MCP server, connector) owns may be missing only
      // because the upstream is down or has not listed it yet.
      isMissingStepFatal: (toolId) => sources.sourceFor(toolId) === undefined,
    },
  });
}

/**
 * Starts every source and builds the first snapshot from what they listed
 * by the deadline; a source whose start (its first load) ends later is
 * served by a rebuild then: its first load counts whenever it ends.
 */
async function startSources(sources: SourceRegistry, store: CatalogStore, loaded: LoadedConfig, deadline: number, parts: StartedParts): Promise<void> {
  // Registered before starting: a source half-way through its start (a child spawned, no answer yet) is stopped too.
  parts.add(() => Promise.all(sources.list.map((s) => s.stop())));
  let deadlineTimer: NodeJS.Timeout | undefined;
  let built = false;
  const starting = sources.list.map((s) => s.start(store.scheduleRebuild).then(() => built && store.scheduleRebuild()));
  await Promise.race([Promise.all(starting), new Promise((r) => (deadlineTimer = setTimeout(r, deadline)))]).finally(() => clearTimeout(deadlineTimer));
  try {
    store.initialBuild();
    built = true;
  } catch (err) {
    if (err instanceof CatalogBuildError) throw new ConfigError(err.problems.map((p) => `${loaded.file}: ${p.message}`));
    throw err;
  }
}

async function startParts(fileConfig: LoadedConfig, options: HostOptions, logger: Logger, parts: StartedParts): Promise<Host> {
  const env = options.env ?? process.env;
  const { metrics, tracing, ctx } = await startObservability(fileConfig, options, env, logger, parts);
  const onStop = (stop: () => unknown) => parts.add(stop);
  const events = await openEventStore(fileConfig.config.events, { env, configDir: fileConfig.dir, logger, metrics: metrics.eventLog, onStop });

  // The admin API's changes other replicas (or an earlier run) stored: served from the start.
  const stored = fileConfig.config.admin !== undefined && events?.configChanges !== undefined ? await readStoredLayer(events.configChanges) : undefined;
  const loaded = stored === undefined ? fileConfig : layeredConfig(fileConfig, stored.layer);
  const config = loaded.config;

  const credentials = setUpUpstreamCredentials(loaded, env, events, logger);
  // Upstream sources are created here but connect only when started, below.
  const sources = new SourceRegistry(await loadSources(loaded, ctx));
  const redis = await connectRedis(loaded, env, logger, metrics);
  if (redis !== undefined) parts.add(() => redis.stop());
  const auth = startAuth(loaded, redis, metrics, logger, parts);

  const policy = new Policy(config.policy);
  const store = catalogStore(loaded, sources, policy, ctx);
  const search = startSearch(loaded, store, env, logger);
  parts.add(() => search.close());

  const deadline = options.startDeadlineMs ?? 10_000;
  await startSources(sources, store, loaded, deadline, parts);

  const frontDoor = config.mcp?.enabled ?? true;
  const discovery = buildDiscovery([...new Set<Source>(sources.list.map((s) => s.kind))], { sessionLifecycle: frontDoor && events !== undefined });
  const items = itemDeps(loaded, sources, policy, { events, metrics, tracing });
  const invoke: InvokeDeps = { store, sources, events, writeAhead: config.events?.writeAhead, logger, callTimeoutMs: config.mcp?.callTimeoutMs ?? 60_000, toolCalls: metrics.toolCalls, tracing, items, credentials };
  const mcpDefaults = mcpDefaultsOf(config.tenants);
  const { reloader, admin } = startChanges(
    { logger, metrics, ctx, sources, store, auth, mcpDefaults, startDeadlineMs: deadline, loaded: () => host.loaded, setLoaded: (next) => (host.loaded = next), followItems: items.follow },
    { watch: options.watchConfig !== false && config.server?.watchConfig !== false, file: loaded.file, config: config.admin, changes: events?.configChanges, stored },
    parts,
  );
  const host: Host = {
    loaded,
    logger,
    metrics,
    tracing,
    store,
    search,
    authenticator: auth.authenticator,
    apiKeys: auth.apiKeys,
    auth,
    sources,
    discovery,
    events,
    credentials,
    redis,
    invoke,
    reloader,
    mcpDefaults,
    admin,
    sourceHealth: () => sources.list.map((s) => sources.healthOf(s)),
    stop: () => parts.stopAll(logger),
  };
  return host;
}

/** What changes a running host: the reloader (file watch, SIGHUP, admin API), the config file's watch, the admin API's side. */
function startChanges(
  reload: ReloadParts,
  o: { watch: boolean; file: string; config: AdminConfig | undefined; changes: ConfigChangeStore | undefined; stored: { layer: ConfigLayer; seq: number } | undefined },
  parts: StartedParts,
): { reloader: ConfigReloader; admin: AdminService | undefined } {
  const reloader = new ConfigReloader(reload);
  if (o.watch) {
    const watch = watchConfigFile(o.file, reloader, reload.logger);
    parts.add(() => watch.close());
  }
  if (o.config === undefined) return { reloader, admin: undefined };
  const { auth, metrics, store } = reload;
  const admin = new AdminService({ config: o.config, authenticator: auth.authenticator, reloader, metrics, loaded: reload.loaded, tenantSnapshot: () => store.current(), changes: o.changes, stored: o.stored });
  parts.add(() => admin.stop());
  return { reloader, admin };
}

/**
 * The shared Redis connection, when configured. Start-up waits for it a
 * little (its connect timeout, at most 2 s) so the first requests already
 * share buckets, but never fails because of it: a replica whose Redis is
 * down serves with local buckets and says so in health and metrics.
 */
async function connectRedis(loaded: LoadedConfig, env: NodeJS.ProcessEnv, logger: Logger, metrics: HostMetrics): Promise<RedisConnection | undefined> {
  const config = loaded.config.redis;
  if (config === undefined) return undefined;
  let url: string;
  try {
    url = readSecretRef(config.url, { env, configDir: loaded.dir }, 'redis.url');
  } catch (err) {
    if (err instanceof SecretRefError) throw new ConfigError([`${loaded.file}: ${err.message}`]);
    throw err;
  }
  const redis = new RedisConnection({ url, keyPrefix: config.keyPrefix, commandTimeoutMs: config.commandTimeoutMs, connectTimeoutMs: config.connectTimeoutMs, logger });
  const gauge = metrics.rateLimitStore?.fallback;
  gauge?.set(1);
  redis.onChange((health) => gauge?.set(health.state === 'connected' ? 0 : 1));
  await redis.whenUsable(Math.min(config.connectTimeoutMs ?? 2000, 2000));
  return redis;
}
