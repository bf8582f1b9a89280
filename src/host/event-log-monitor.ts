// Makes event-log faults visible (docs/contract.md "Tool sessions": the log must be
// durable, so a host that cannot write it must say so). Wires the log's hooks
// to the metrics (`toolhost_event_log_writable`,
// `toolhost_event_log_append_failures_total`) and to the log, where refused
// appends are written at most once per `windowMs`: a full disk refuses every
// call, and one line per call would bury everything else. Lines suppressed in
// a window are counted in the next line, or in a summary line at the window's
// end when no failure follows. A failed checkpoint worker is one warning: the
// log goes on, its commits slower (sqlite/checkpointer.ts).
import type { Logger } from 'pino';
import type { AppendFailure, AppendFailureReason, EventLogHealth } from '../events/log-health.js';
import { EVENT_LOG_FAILURE_REASONS, type EventLogMetrics } from '../observability/metrics.js';

/** The metric's label set and the log's reason set are one list. */
const REASONS_MATCH: readonly AppendFailureReason[] = EVENT_LOG_FAILURE_REASONS;
void REASONS_MATCH;

export const FAILURE_LOG_WINDOW_MS = 1000;

export interface EventLogMonitor {
  onAppendFailure(failure: AppendFailure): void;
  onHealthChange(health: EventLogHealth): void;
  /** The checkpoint worker failed: commits carry SQLite's checkpoints again (slower, still durable). One line; /readyz keeps showing it. */
  onCheckpointFailure(failure: { code: string; message: string }): void;
  /** Writes any suppressed count now and stops the window timer. */
  stop(): void;
}

export function createEventLogMonitor(logger: Logger, metrics: EventLogMetrics | undefined, file: string, windowMs = FAILURE_LOG_WINDOW_MS): EventLogMonitor {
  let lastLineAt = Number.NEGATIVE_INFINITY;
  let suppressed = 0;
  let lastSuppressed: AppendFailure | undefined;
  let timer: NodeJS.Timeout | undefined;

  const line = (failure: AppendFailure, count: number, message: string) =>
    logger.error({ eventLog: file, reason: failure.reason, code: failure.code, error: failure.message, suppressed: count }, message);

  const flush = () => {
    if (timer) clearTimeout(timer);
    timer = undefined;
    if (suppressed === 0 || lastSuppressed === undefined) return;
    line(lastSuppressed, suppressed, `${suppressed} more event appends refused; their tool calls were refused or ended in error`);
    lastLineAt = performance.now();
    suppressed = 0;
    lastSuppressed = undefined;
  };

  return {
    onAppendFailure(failure) {
      metrics?.appendFailures.inc({ reason: failure.reason });
      const now = performance.now();
      if (now - lastLineAt >= windowMs) {
        const count = suppressed;
        suppressed = 0;
        lastSuppressed = undefined;
        if (timer) clearTimeout(timer);
        timer = undefined;
        lastLineAt = now;
        line(failure, count, 'event append refused; its tool call was refused or ended in error');
        return;
      }
      suppressed++;
      lastSuppressed = failure;
      if (timer === undefined) {
        timer = setTimeout(flush, Math.max(0, lastLineAt + windowMs - now));
        timer.unref();
      }
    },
    onHealthChange(health) {
      metrics?.writable.set(health.writable ? 1 : 0);
      if (health.writable) logger.warn({ eventLog: file, logId: health.logId }, 'event log writable again; tool calls are accepted');
      else logger.error({ eventLog: file, reason: health.reason, error: health.error }, 'event log cannot be written; tool calls are refused and /readyz answers 503');
    },
    onCheckpointFailure(failure) {
      logger.warn({ eventLog: file, code: failure.code, error: failure.message }, 'event log checkpoint worker failed; SQLite checkpoints the WAL inside commits again (slower commits, nothing lost)');
    },
    stop: flush,
  };
}
