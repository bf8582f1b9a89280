// The tool-session log the config names (docs/config.md "events"): a SQLite
// file, or a PostgreSQL database (postgres-events-config.ts), each with the
// host's fault monitor on it (event-log-monitor.ts). Opened before any source
// starts: a log that cannot be opened should not cost a round of upstream
// child processes. The PostgreSQL store, and with it the `pg` driver, is
// imported only when configured: a SQLite host starts without loading it.
import { resolve } from 'node:path';
import type { Logger } from 'pino';
import type { EventsConfig } from '../config/schema.js';
import { EventLog } from '../events/sqlite/log.js';
import type { EventStore } from '../events/store.js';
import type { EventLogMetrics } from '../observability/metrics.js';
import { createEventLogMonitor } from './event-log-monitor.js';
import type { OpenPostgresContext } from './postgres-events-config.js';

/** Undefined when no `events` is configured. */
export async function openEventStore(events: EventsConfig | undefined, ctx: OpenPostgresContext): Promise<EventStore | undefined> {
  if (events?.postgres) return (await import('./postgres-events-config.js')).openPostgresEvents(events, ctx);
  if (events?.file === undefined) return undefined;
  return openSqliteEvents(events, resolve(ctx.configDir, events.file), ctx.logger, ctx.metrics, ctx.onStop);
}

function openSqliteEvents(events: EventsConfig, file: string, logger: Logger, metrics: EventLogMetrics | undefined, onStop: (stop: () => unknown) => void): EventLog {
  const monitor = createEventLogMonitor(logger, metrics, file);
  onStop(() => monitor.stop());
  const log = EventLog.open(file, {
    synchronous: events.synchronous,
    retentionDays: events.retentionDays,
    maxEvents: events.maxEvents,
    createIfMissing: events.createIfMissing,
    onAppendFailure: monitor.onAppendFailure,
    onHealthChange: monitor.onHealthChange,
    onCheckpointFailure: monitor.onCheckpointFailure,
  });
  onStop(() => log.close());
  metrics?.writable.set(1);
  logger.info({ eventLog: file, logId: log.logId, synchronous: events.synchronous ?? 'full' }, 'event log open');
  return log;
}
