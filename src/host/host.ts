// The composition root: config file in, a running catalog out. Loads every
// source, builds the first snapshot (fatal problems stop the start with the
// config's places), and wires refreshes to the store. Everything the HTTP and
// MCP layers need hangs off the Host object.
//
// A start that fails stops everything it had started, newest first (sources
// and their child processes, the event log and its timers, key-file watchers),
// so a failed `serve()` leaves no process, socket or timer behind. The event
// log is opened before any source starts: a log that cannot be opened should
// not cost a round of upstream child processes.
import pino, { type Logger } from 'pino';
import type { ApiKeyStore } from '../auth/api-keys.js';
import type { HostAuthenticator } from '../auth/authenticator.js';
import { setUpAuth, type AuthRuntime } from '../auth/setup.js';
import { CatalogBuildError, CatalogStore } from '../catalog/store.js';
import { compileTenant, type TenantPolicy } from '../catalog/visibility.js';
import { Policy } from '../classify/policy.js';
import { loadConfigFile, type LoadedConfig } from '../config/load.js';
import { formatToolId, parseToolId } from '../contract/tool-id.js';
import { resolve } from 'node:path';
import { EventLog } from '../events/log.js';
import type { InvokeDeps } from '../invoke/types.js';
import type { SpanExporter } from '@opentelemetry/sdk-trace-base';
import { createTracing, type Tracing } from '../observability/tracing.js';
import type { Source } from '../contract/descriptor.js';
import { createMetrics, type HostMetrics } from '../observability/metrics.js';
import { createEventLogMonitor } from './event-log-monitor.js';
import { loadHostExtensions } from '../sources/host-extension/index.js';
import { loadNodePack, type ToolHandler } from '../sources/node-pack/index.js';
import type { SourceHealth, ToolSource } from '../sources/raw-tool.js';
import type { SourceContext } from '../sources/source-context.js';
import { loadWorkflows, type WorkflowDefinition } from '../sources/workflow/index.js';
import { ConfigError, placeOf } from '../util/validated-yaml.js';
import { buildDiscovery, type Discovery } from './discovery.js';
import { createDynamicSources } from './dynamic-sources.js';
import type { McpToolSource } from '../sources/mcp/index.js';
import type { ConnectorToolSource } from '../sources/connector/index.js';

export interface HostOptions {
  logger?: Logger;
  /** Also export the process's own metrics (CPU, memory, event-loop lag); default: when no logger is given, i.e. a real process rather than a test. */
  processMetrics?: boolean;
  env?: NodeJS.ProcessEnv;
  /** How long start-up waits for dynamic sources before serving what it has. */
  startDeadlineMs?: number;
  /** Export spans here instead of by the OTEL_* variables (tests): tracing is on. */
  spanExporter?: SpanExporter;
}

export interface Host {
  loaded: LoadedConfig;
  logger: Logger;
  metrics: HostMetrics;
  /** OpenTelemetry tracing; does nothing unless OTEL_* (or a test's exporter) turned it on. */
  tracing: Tracing;
  store: CatalogStore;
  authenticator: HostAuthenticator;
  apiKeys: ApiKeyStore;
  /** The whole auth layer: JWT verifier, keys-file reloader, rate limiter, audit switch. */
  auth: AuthRuntime;
  sources: readonly ToolSource[];
  mcpSources: ReadonlyMap<string, McpToolSource>;
  connectors: ReadonlyMap<string, ConnectorToolSource>;
  handlers: ReadonlyMap<string, ToolHandler>;
  workflows: ReadonlyMap<string, WorkflowDefinition>;
  discovery: Discovery;
  /** The tool-session log, when `events` is configured. */
  events?: EventLog;
  /** What the invocation layer and the MCP front door need. */
  invoke: InvokeDeps;
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

async function startParts(loaded: LoadedConfig, options: HostOptions, logger: Logger, parts: StartedParts): Promise<Host> {
  const env = options.env ?? process.env;
  const { config, dir, doc } = loaded;
  const metrics = createMetrics(options.processMetrics ?? options.logger === undefined, { eventLog: config.events !== undefined, toolLabels: config.metrics?.toolLabels });
  const tracing = await createTracing(env, options.spanExporter);
  parts.add(() => tracing.shutdown());
  const ctx: SourceContext = { logger, metrics, configDir: dir, env, tracing, reuse: config.catalog?.reuse !== false };

  let events: EventLog | undefined;
  if (config.events) {
    const file = resolve(dir, config.events.file);
    const monitor = createEventLogMonitor(logger, metrics.eventLog, file);
    parts.add(() => monitor.stop());
    events = EventLog.open(file, {
      retentionDays: config.events.retentionDays,
      maxEvents: config.events.maxEvents,
      createIfMissing: config.events.createIfMissing,
      onAppendFailure: monitor.onAppendFailure,
      onHealthChange: monitor.onHealthChange,
    });
    parts.add(() => events?.close());
    metrics.eventLog?.writable.set(1);
    logger.info({ eventLog: file, logId: events.logId }, 'event log open');
  }

  const sources: ToolSource[] = [];
  const handlers = new Map<string, ToolHandler>();
  const problems: string[] = [];
  const packs = config.sources?.nodePacks ?? [];
  for (let i = 0; i < packs.length; i++) {
    try {
      const pack = await loadNodePack(packs[i], dir, placeOf(doc, `/sources/nodePacks/${i}/path`));
      sources.push(pack.source);
      for (const [id, h] of pack.handlers) handlers.set(id, h);
    } catch (err) {
      if (err instanceof ConfigError) problems.push(...err.problems);
      else throw err;
    }
  }
  let workflows = new Map<string, WorkflowDefinition>();
  try {
    const wf = loadWorkflows(config.sources?.workflows ?? [], dir);
    if (wf.definitions.size > 0) sources.push(wf.source);
    workflows = wf.definitions;
  } catch (err) {
    if (err instanceof ConfigError) problems.push(...err.problems);
    else throw err;
  }
  const extensions = config.sources?.hostExtensions ?? [];
  if (extensions.length > 0) sources.push(loadHostExtensions(extensions, (i) => placeOf(doc, `/sources/hostExtensions/${i}`)));
  if (problems.length > 0) throw new ConfigError(problems);

  const auth = setUpAuth({
    auth: config.auth,
    tenants: new Map(Object.entries(config.tenants).map(([id, t]) => [id, t.rateLimit])),
    principals: config.principals ?? [],
    configDir: dir,
    logger,
  });
  parts.add(() => auth.stop());

  const dynamic = createDynamicSources(loaded, ctx);
  sources.push(...dynamic.mcp, ...dynamic.connectors);

  const tenants = new Map<string, TenantPolicy>(Object.entries(config.tenants).map(([id, t]) => [id, compileTenant(id, t.tools)]));
  const policy = new Policy(config.policy);
  const dynamicIds = new Set([...dynamic.mcp, ...dynamic.connectors].map((s) => s.id));
  const store = new CatalogStore({
    sources,
    policy,
    tenants,
    logger,
    metrics,
    reuse: ctx.reuse,
    build: {
      // A step on an MCP server or connector that is configured may be missing
      // only because the upstream is down; anything else is a config error.
      isMissingStepFatal: (toolId) => {
        const parts = parseToolId(toolId);
        if (parts?.source === 'mcp') return !dynamicIds.has(`mcp:${parts.serverId}`);
        if (parts?.source === 'connector') return !dynamicIds.has(`connector:${parts.connectorId}`);
        return true;
      },
    },
  });

  const deadline = options.startDeadlineMs ?? 10_000;
  // Registered before starting: a source half-way through its start (a child spawned, no answer yet) is stopped too.
  parts.add(() => Promise.all(sources.map((s) => s.stop())));
  let deadlineTimer: NodeJS.Timeout | undefined;
  await Promise.race([
    Promise.all(sources.map((s) => s.start(store.scheduleRebuild))),
    new Promise((r) => (deadlineTimer = setTimeout(r, deadline))),
  ]).finally(() => clearTimeout(deadlineTimer));
  try {
    store.initialBuild();
  } catch (err) {
    if (err instanceof CatalogBuildError) throw new ConfigError(err.problems.map((p) => `${loaded.file}: ${p.message}`));
    throw err;
  }

  const projected = new Set<Source>(sources.map((s) => s.kind));
  const frontDoor = config.mcp?.enabled ?? true;
  const discovery = buildDiscovery([...projected], { sessionLifecycle: frontDoor && events !== undefined });
  const mcpSources = new Map(dynamic.mcp.map((s) => [s.serverId, s]));
  const connectors = new Map(dynamic.connectors.map((s) => [s.id.slice('connector:'.length), s]));
  const hostExtensions = new Map(extensions.map((e) => [formatToolId({ source: 'host-extension', vendor: e.vendor, name: e.name }) as string, e]));
  const invoke: InvokeDeps = {
    store,
    handlers,
    workflows,
    hostExtensions,
    mcpSources,
    connectors,
    events,
    env,
    configDir: dir,
    logger,
    callTimeoutMs: config.mcp?.callTimeoutMs ?? 60_000,
    toolCalls: metrics.toolCalls,
    tracing,
  };

  return {
    loaded,
    logger,
    metrics,
    tracing,
    store,
    authenticator: auth.authenticator,
    apiKeys: auth.apiKeys,
    auth,
    sources,
    mcpSources,
    connectors,
    handlers,
    workflows,
    discovery,
    events,
    invoke,
    sourceHealth: () => sources.map((s) => s.health()),
    stop: () => parts.stopAll(logger),
  };
}
