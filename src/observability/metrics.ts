// Prometheus metrics (prom-client), one registry per host so tests can run
// several hosts in one process. Labels carry ids only, never credentials, and
// every label has a bounded set of values: toolIds appear only where the
// operator allows it (`metrics.toolLabels`), since a catalog can hold tens of
// thousands (docs/config.md "metrics").
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

export interface HostMetrics {
  registry: Registry;
  sourceRefreshes: Counter<'source'>;
  sourceFailures: Counter<'source'>;
  sourceTools: Gauge<'source'>;
  /** Config reloads by outcome (`applied`, `partial`, `refused`). */
  configReloads: Counter<'outcome'>;
  /** The config generation served (1 at start, one more per applied reload). */
  configGeneration: Gauge<string>;
  /** Changes made through the admin API, by resource kind and action (each one an audit record). */
  adminChanges: Counter<'kind' | 'action'>;
  snapshotBuilds: Counter<string>;
  snapshotBuildSeconds: Histogram<string>;
  catalogTools: Gauge<string>;
  /** Present only when an event log is configured: a 0 must mean "cannot write", never "no log". */
  eventLog?: EventLogMetrics;
  toolCalls: ToolCallMetrics;
  /** MCP resource reads, prompt gets and completions on the front door, by kind, MCP server and outcome. */
  itemRequests: Counter<'kind' | 'source' | 'outcome'>;
  itemRequestSeconds: Histogram<'kind' | 'source' | 'outcome'>;
  /** Requests by route pattern (`unrouted` for none), method and status. */
  httpRequests: Counter<'route' | 'method' | 'status'>;
  /** Refused credentials by reason: missing, malformed, invalid_api_key, invalid_jwt, unavailable. */
  authFailures: Counter<'reason'>;
  /** Requests refused by a rate limit: `principal` (a caller's bucket) or `anonymous` (the shared bound). */
  rateLimited: Counter<'bucket'>;
  /** Present only with `auth.rateLimitStore: redis`: a 0 must mean "shared", never "not configured". */
  rateLimitStore?: RateLimitStoreMetrics;
  /** Sets how an open-connection gauge reads its value when scraped (MCP sessions, event streams). */
  gaugeSource(name: 'mcpSessions' | 'eventStreams', read: () => number): void;
}

/** One finished (or refused) tool call. `outcome` is the call's status; `unknown` for a name that matched no visible tool. */
export interface ToolCallObservation {
  toolId: string;
  source: string;
  tier: string;
  outcome: string;
}

export interface ToolCallMetrics {
  observe(call: ToolCallObservation, seconds: number): void;
  /** A result of one of `source`'s tools did not match its outputSchema. */
  outputSchemaMismatch(source: string): void;
}

export interface MetricsOptions {
  /** Also export the process's own metrics (CPU, memory, event-loop lag): a real process, not a test that builds many hosts. */
  processMetrics?: boolean;
  /** An event log is configured: its metrics exist. */
  eventLog?: boolean;
  /** Label tool-call metrics with the toolId too. */
  toolLabels?: boolean;
  /** Per-principal buckets are shared through Redis: the fallback metrics exist. */
  sharedRateLimits?: boolean;
}

export interface RateLimitStoreMetrics {
  /** 1 while this replica answers from its own buckets because Redis is unavailable, 0 while buckets are shared. */
  fallback: Gauge<string>;
  /** Requests admitted or refused by local buckets because Redis was unavailable or too slow. */
  fallbacks: Counter<string>;
}

const CALL_SECONDS_BUCKETS = [0.001, 0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

function toolCallMetrics(registry: Registry, toolLabels: boolean): ToolCallMetrics {
  const labelNames = toolLabels ? (['source', 'tier', 'outcome', 'tool'] as const) : (['source', 'tier', 'outcome'] as const);
  const calls = new Counter({ name: 'toolhost_tool_calls_total', help: 'Tool calls by source, tier and outcome (and toolId where metrics.toolLabels allows)', labelNames, registers: [registry] });
  const seconds = new Histogram({ name: 'toolhost_tool_call_seconds', help: 'Tool call latency, approval and dispatch included', labelNames, buckets: CALL_SECONDS_BUCKETS, registers: [registry] });
  const mismatches = new Counter({ name: 'toolhost_output_schema_mismatches_total', help: 'Tool results that did not match their advertised outputSchema, by source', labelNames: ['source'], registers: [registry] });
  return {
    outputSchemaMismatch(source) {
      mismatches.inc({ source });
    },
    observe(call, s) {
      const labels = toolLabels ? { source: call.source, tier: call.tier, outcome: call.outcome, tool: call.toolId } : { source: call.source, tier: call.tier, outcome: call.outcome };
      calls.inc(labels);
      seconds.observe(labels, s);
    },
  };
}

export interface EventLogMetrics {
  writable: Gauge<string>;
  appendFailures: Counter<'reason'>;
}

/** The reasons an append can fail (src/events/log-health.ts), each counted from 0. */
export const EVENT_LOG_FAILURE_REASONS = ['disk_full', 'read_only', 'io_error', 'busy', 'file_lost', 'unreachable', 'other'] as const;

export function createMetrics(options: MetricsOptions = {}): HostMetrics {
  const registry = new Registry();
  if (options.processMetrics === true) collectDefaultMetrics({ register: registry });
  let eventLog: EventLogMetrics | undefined;
  if (options.eventLog === true) {
    eventLog = {
      writable: new Gauge({ name: 'toolhost_event_log_writable', help: '1 while tool-session events can be written (tool calls accepted), 0 while not', registers: [registry] }),
      appendFailures: new Counter({ name: 'toolhost_event_log_append_failures_total', help: 'Event appends refused, by reason (each refuses a tool call or ends one in error)', labelNames: ['reason'], registers: [registry] }),
    };
    for (const reason of EVENT_LOG_FAILURE_REASONS) eventLog.appendFailures.inc({ reason }, 0);
  }
  const rateLimitStore: RateLimitStoreMetrics | undefined =
    options.sharedRateLimits === true
      ? {
          fallback: new Gauge({ name: 'toolhost_rate_limit_store_fallback', help: '1 while per-principal buckets are this replica\'s own because Redis is unavailable, 0 while they are shared', registers: [registry] }),
          fallbacks: new Counter({ name: 'toolhost_rate_limit_store_fallbacks_total', help: 'Requests answered by local buckets because Redis was unavailable or slower than redis.commandTimeoutMs', registers: [registry] }),
        }
      : undefined;
  const gauges = {
    mcpSessions: { name: 'toolhost_mcp_sessions', help: 'Open MCP sessions at /mcp', read: () => 0 },
    eventStreams: { name: 'toolhost_event_streams', help: 'Open event streams (GET /events/stream)', read: () => 0 },
  };
  for (const g of Object.values(gauges)) {
    new Gauge({
      name: g.name,
      help: g.help,
      registers: [registry],
      collect() {
        this.set(g.read());
      },
    });
  }
  return {
    registry,
    eventLog,
    rateLimitStore,
    toolCalls: toolCallMetrics(registry, options.toolLabels === true),
    itemRequests: new Counter({ name: 'toolhost_mcp_item_requests_total', help: 'MCP resources/read, prompts/get and completion/complete requests by kind, MCP server and outcome', labelNames: ['kind', 'source', 'outcome'], registers: [registry] }),
    itemRequestSeconds: new Histogram({ name: 'toolhost_mcp_item_request_seconds', help: 'Latency of MCP resource reads, prompt gets and completions', labelNames: ['kind', 'source', 'outcome'], buckets: CALL_SECONDS_BUCKETS, registers: [registry] }),
    httpRequests: new Counter({ name: 'toolhost_http_requests_total', help: 'HTTP requests by route pattern, method and status', labelNames: ['route', 'method', 'status'], registers: [registry] }),
    authFailures: new Counter({ name: 'toolhost_auth_failures_total', help: 'Refused credentials by reason', labelNames: ['reason'], registers: [registry] }),
    rateLimited: new Counter({ name: 'toolhost_rate_limited_total', help: 'Requests refused by a rate limit, by bucket', labelNames: ['bucket'], registers: [registry] }),
    gaugeSource(name, read) {
      gauges[name].read = read;
    },
    sourceRefreshes: new Counter({ name: 'toolhost_source_refreshes_total', help: 'Successful tool-list reads per source', labelNames: ['source'], registers: [registry] }),
    configReloads: new Counter({ name: 'toolhost_config_reloads_total', help: 'Config reloads (file, SIGHUP, admin API) by outcome: applied, partial (fixed settings refused, the rest applied), refused', labelNames: ['outcome'], registers: [registry] }),
    adminChanges: new Counter({ name: 'toolhost_admin_changes_total', help: 'Changes made through the admin API (each one an audit record at /admin/v1/audit), by resource kind and action', labelNames: ['kind', 'action'], registers: [registry] }),
    configGeneration: new Gauge({ name: 'toolhost_config_generation', help: 'The config generation served: 1 at start, one more per applied reload', registers: [registry] }),
    sourceFailures: new Counter({ name: 'toolhost_source_failures_total', help: 'Failed connects or tool-list reads per source', labelNames: ['source'], registers: [registry] }),
    sourceTools: new Gauge({ name: 'toolhost_source_tools', help: 'Tools currently served from each source', labelNames: ['source'], registers: [registry] }),
    snapshotBuilds: new Counter({ name: 'toolhost_snapshot_builds_total', help: 'Catalog snapshots built', registers: [registry] }),
    snapshotBuildSeconds: new Histogram({ name: 'toolhost_snapshot_build_seconds', help: 'Time to build a catalog snapshot', registers: [registry], buckets: [0.001, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5] }),
    catalogTools: new Gauge({ name: 'toolhost_catalog_tools', help: 'Tools in the current snapshot', registers: [registry] }),
  };
}
