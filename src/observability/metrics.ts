// Prometheus metrics (prom-client), one registry per host so tests can run
// several hosts in one process. Labels carry ids only, never credentials.
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

export interface HostMetrics {
  registry: Registry;
  sourceRefreshes: Counter<'source'>;
  sourceFailures: Counter<'source'>;
  sourceTools: Gauge<'source'>;
  snapshotBuilds: Counter<string>;
  snapshotBuildSeconds: Histogram<string>;
  catalogTools: Gauge<string>;
  /** Present only when an event log is configured: a 0 must mean "cannot write", never "no log". */
  eventLog?: EventLogMetrics;
}

export interface EventLogMetrics {
  writable: Gauge<string>;
  appendFailures: Counter<'reason'>;
}

/** The reasons an append can fail (src/events/log-health.ts), each counted from 0. */
export const EVENT_LOG_FAILURE_REASONS = ['disk_full', 'read_only', 'io_error', 'busy', 'file_lost', 'other'] as const;

export function createMetrics(withDefaults = false, options: { eventLog?: boolean } = {}): HostMetrics {
  const registry = new Registry();
  if (withDefaults) collectDefaultMetrics({ register: registry });
  let eventLog: EventLogMetrics | undefined;
  if (options.eventLog === true) {
    eventLog = {
      writable: new Gauge({ name: 'toolhost_event_log_writable', help: '1 while tool-session events can be written (tool calls accepted), 0 while not', registers: [registry] }),
      appendFailures: new Counter({ name: 'toolhost_event_log_append_failures_total', help: 'Event appends refused, by reason (each refuses a tool call or ends one in error)', labelNames: ['reason'], registers: [registry] }),
    };
    for (const reason of EVENT_LOG_FAILURE_REASONS) eventLog.appendFailures.inc({ reason }, 0);
  }
  return {
    registry,
    eventLog,
    sourceRefreshes: new Counter({ name: 'toolhost_source_refreshes_total', help: 'Successful tool-list reads per source', labelNames: ['source'], registers: [registry] }),
    sourceFailures: new Counter({ name: 'toolhost_source_failures_total', help: 'Failed connects or tool-list reads per source', labelNames: ['source'], registers: [registry] }),
    sourceTools: new Gauge({ name: 'toolhost_source_tools', help: 'Tools currently served from each source', labelNames: ['source'], registers: [registry] }),
    snapshotBuilds: new Counter({ name: 'toolhost_snapshot_builds_total', help: 'Catalog snapshots built', registers: [registry] }),
    snapshotBuildSeconds: new Histogram({ name: 'toolhost_snapshot_build_seconds', help: 'Time to build a catalog snapshot', registers: [registry], buckets: [0.001, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5] }),
    catalogTools: new Gauge({ name: 'toolhost_catalog_tools', help: 'Tools in the current snapshot', registers: [registry] }),
  };
}
