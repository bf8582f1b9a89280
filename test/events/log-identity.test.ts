// The event log's identity and its file checks, on real SQLite files: a
// logId that survives reopening and changes with the file, a deleted or
// replaced file caught on the very next append (not only by the timer),
// `createIfMissing: false`, and the rate-limited report of refused appends.
import assert from 'node:assert/strict';
import { renameSync, rmSync, writeFileSync } from 'node:fs';
import { Writable } from 'node:stream';
import { test } from 'node:test';
import pino from 'pino';
import { EventLog, EventLogUnavailableError, type AppendInput } from '../../src/events/sqlite/log.js';
import { startHost } from '../../src/host/host.js';
import { createEventLogMonitor } from '../../src/host/event-log-monitor.js';
import { createMetrics } from '../../src/observability/metrics.js';
import { writeConfig } from '../helpers/server.js';
import { logFile, waitFor } from './helpers.js';

const NO_TIMER = { checkIntervalMs: 3_600_000 };

function opened(sessionId = 's1'): AppendInput {
  return { type: 'tool.session.opened', tenant: 'acme', principal: 'p', sessionId, payload: { sessionId, toolId: 'openwop:text.uppercase' } };
}

function captured(): { logger: pino.Logger; lines: () => Array<Record<string, any>> } {
  const chunks: string[] = [];
  const logger = pino({ level: 'debug' }, new Writable({ write: (c, _e, cb) => (chunks.push(String(c)), cb()) }));
  return { logger, lines: () => chunks.join('').split('\n').filter(Boolean).map((l) => JSON.parse(l)) };
}

test('a log keeps its logId across reopening; a new file gets another', async () => {
  const file = logFile();
  const first = EventLog.open(file, NO_TIMER);
  const id = first.logId;
  await first.append([opened()]);
  first.close();
  const again = EventLog.open(file, NO_TIMER);
  assert.equal(again.logId, id);
  assert.equal(again.health().logId, id);
  again.close();
  const other = EventLog.open(logFile(), NO_TIMER);
  assert.notEqual(other.logId, id);
  assert.match(other.logId, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  other.close();
});

test('a deleted file is caught by the next append, without waiting for the timer, and stays refused', async () => {
  const file = logFile();
  const log = EventLog.open(file, NO_TIMER);
  try {
    assert.equal((await log.append([opened()]))[0].sequence, 0);
    rmSync(file);
    rmSync(`${file}-wal`, { force: true });
    for (let i = 0; i < 2; i++) {
      await assert.rejects(
        log.append([opened(`s${i + 2}`)]),
        (err: unknown) => err instanceof EventLogUnavailableError && err.failure.reason === 'file_lost' && /was deleted while the log had it open/.test(err.message),
      );
    }
    const health = log.health();
    assert.equal(health.writable, false);
    assert.equal(health.reason, 'file_lost');
    assert.equal(health.failedAppends, 2);
  } finally {
    log.close();
  }
});

test('a file replaced under the log (rename over it) is caught by the check; nothing is written to either file', async () => {
  const file = logFile();
  const log = EventLog.open(file, NO_TIMER);
  try {
    await log.append([opened()]);
    const otherFile = logFile();
    const other = EventLog.open(otherFile, NO_TIMER);
    other.close(); // a clean close checkpoints: the replacement is one self-contained file
    renameSync(otherFile, file);
    // An empty -wal beside it is what a fresh log has, and a replaced one here too.
    rmSync(`${file}-wal`, { force: true });
    writeFileSync(`${file}-wal`, '');
    log.check();
    assert.equal(log.health().reason, 'file_lost');
    assert.match(log.health().error ?? '', /^the database file was replaced by another file while the log had it open/);
    await assert.rejects(log.append([opened('s2')]), EventLogUnavailableError);
  } finally {
    log.close();
  }
  const replacement = EventLog.open(file, NO_TIMER);
  assert.equal(await replacement.lastSequence('acme'), -1, 'the replacement got no event');
  replacement.close();
});

test('events.createIfMissing: false refuses to start on a missing log instead of starting every stream again at 0', async () => {
  const missing = logFile();
  assert.throws(() => EventLog.open(missing, { createIfMissing: false }), /does not exist and events.createIfMissing is false/);
  const made = EventLog.open(missing, NO_TIMER);
  made.close();
  EventLog.open(missing, { ...NO_TIMER, createIfMissing: false }).close();

  const config = writeConfig({ tenants: { acme: { tools: ['*'] } }, events: { file: 'gone/events.sqlite', createIfMissing: false } });
  await assert.rejects(startHost(config, { logger: pino({ level: 'silent' }) }), /events\.sqlite: the event log does not exist and events.createIfMissing is false/);
});

test('refused appends are counted by reason and logged at most once per window, with the suppressed count', () => {
  const { logger, lines } = captured();
  const metrics = createMetrics({ eventLog: true });
  const monitor = createEventLogMonitor(logger, metrics.eventLog, '/data/events.sqlite', 3_600_000);
  const failure = { reason: 'disk_full', code: 'SQLITE_FULL', message: 'database or disk is full' } as const;
  for (let i = 0; i < 50; i++) monitor.onAppendFailure(failure);
  assert.equal(lines().length, 1, 'one line for 50 refusals inside one window');
  assert.equal(lines()[0].suppressed, 0);
  assert.equal(lines()[0].code, 'SQLITE_FULL');
  monitor.stop();
  assert.equal(lines().length, 2);
  assert.equal(lines()[1].suppressed, 49, 'the rest are counted, not lost');
  return metrics.registry.metrics().then((text) => {
    assert.match(text, /^toolhost_event_log_append_failures_total\{reason="disk_full"\} 50$/m);
    assert.match(text, /^toolhost_event_log_append_failures_total\{reason="file_lost"\} 0$/m, 'every reason starts at 0');
  });
});

test('a suppressed count is written when its window ends even if no failure follows', async () => {
  const { logger, lines } = captured();
  const monitor = createEventLogMonitor(logger, undefined, '/data/events.sqlite', 50);
  const failure = { reason: 'io_error', code: 'SQLITE_IOERR_WRITE', message: 'disk I/O error' } as const;
  monitor.onAppendFailure(failure);
  monitor.onAppendFailure(failure);
  // Two failures: either the second fell in the first's window (a summary line follows) or it did not (its own line).
  await waitFor(() => lines().length === 2, 10_000, 'both failures accounted for');
  const accounted = lines().reduce((n, l) => n + l.suppressed + (/^event append refused/.test(l.msg) ? 1 : 0), 0);
  assert.equal(accounted, 2);
  monitor.stop();
});

test("a failed checkpoint worker is one warning line naming the log and the error's code", () => {
  const { logger, lines } = captured();
  const monitor = createEventLogMonitor(logger, undefined, '/data/events.sqlite', 50);
  monitor.onCheckpointFailure({ code: 'WORKER_EXIT', message: 'the checkpoint worker exited (code 1)' });
  assert.equal(lines().length, 1);
  assert.equal(lines()[0].level, 40);
  assert.equal(lines()[0].eventLog, '/data/events.sqlite');
  assert.equal(lines()[0].code, 'WORKER_EXIT');
  assert.match(lines()[0].msg, /checkpoint worker failed/);
  monitor.stop();
});
