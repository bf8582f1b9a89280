// WAL checkpoints off the event loop (src/events/sqlite/checkpointer.ts): the
// log's own connection never checkpoints, a worker thread's connection
// does, the WAL stays bounded under a steady stream of commits, a clean
// close leaves no WAL behind, and a worker that fails shows in the log's
// health while appends go on with SQLite's own checkpoints.
import assert from 'node:assert/strict';
import { existsSync, statSync } from 'node:fs';
import { test } from 'node:test';
import type Database from 'better-sqlite3';
import { CheckpointWorker, type CheckpointFailure } from '../../src/events/sqlite/checkpointer.js';
import { EventLog } from '../../src/events/sqlite/log.js';
import { ACME, appendOne, logFile, waitFor } from './helpers.js';

const FRAMES = 100;

function opened(sessionId: string) {
  return { type: 'tool.session.opened' as const, ...ACME, sessionId, payload: { sessionId, toolId: 'openwop:text.uppercase' } };
}

const walBytes = (file: string) => (existsSync(`${file}-wal`) ? statSync(`${file}-wal`).size : 0);
const handle = (log: EventLog) => (log as unknown as { db: Database.Database }).db;

test('a worker checkpoints the WAL: the log connection never does, and the WAL stays bounded under 16 steady writers', async () => {
  const file = logFile();
  const log = EventLog.open(file, { synchronous: 'normal', checkpointFrames: FRAMES });
  try {
    assert.equal(handle(log).pragma('wal_autocheckpoint', { simple: true }), 0, 'no checkpoint inside a commit');
    const pageSize = handle(log).pragma('page_size', { simple: true }) as number;
    const frameBytes = pageSize + 24;
    // The worker's thread starts: a burst meanwhile grows the WAL, unchecked.
    let n = 0;
    await waitFor(async () => {
      await log.append(Array.from({ length: 20 }, () => opened(`warm${n++}`)));
      return log.groupStats().checkpoints! > 0;
    }, 10_000, 'the first checkpoint');
    await log.append(Array.from({ length: 20 }, () => opened(`warm${n++}`)));
    const afterStart = walBytes(file);
    let largest = 0;
    // Writers that never pause: every turn of the event loop has a commit, and a checkpoint beside them may never find the end.
    const writer = async (w: number) => {
      for (let i = 0; i < 300; i++) {
        await log.append([opened(`w${w}-${i}`), opened(`w${w}-${i}b`)]);
        largest = Math.max(largest, walBytes(file));
      }
    };
    await Promise.all(Array.from({ length: 16 }, (_, w) => writer(w)));
    const stats = log.groupStats();
    const framesWritten = stats.checkpointedFrames! + 0;
    assert.ok(stats.checkpoints! >= 5, `the worker checkpointed (${stats.checkpoints})`);
    assert.ok(largest <= 40 * FRAMES * frameBytes, `the WAL stayed bounded: at most ${Math.round(largest / 1024)} KiB while ${Math.round((framesWritten * frameBytes) / 1024)} KiB of frames were checkpointed`);
    assert.ok(framesWritten * frameBytes > 3 * 40 * FRAMES * frameBytes, 'unchecked, the WAL would have been well over the bound');
    // One more commit after the last checkpoint starts the WAL again and cuts the file to the size limit.
    await waitFor(async () => {
      await log.append([opened(`tail${n++}`)]);
      return walBytes(file) <= 4 * FRAMES * pageSize;
    }, 10_000, 'the WAL cut back');
    assert.ok(walBytes(file) < Math.max(largest, afterStart), `the WAL shrank: ${Math.round(Math.max(largest, afterStart) / 1024)} -> ${Math.round(walBytes(file) / 1024)} KiB`);
    assert.equal((await log.readAfter('acme', -1, 100_000)).length, n + 9600);
  } finally {
    await log.close();
  }
  assert.equal(existsSync(`${file}-wal`), false, 'a clean close: the worker, last to close, checkpointed the WAL and removed it');
});

test('a worker that dies shows in health and is reported once; appends go on and SQLite checkpoints in the commits again', async () => {
  const file = logFile();
  const reported: Array<{ code: string }> = [];
  const log = EventLog.open(file, { checkpointFrames: FRAMES, onCheckpointFailure: (f) => void reported.push(f) });
  try {
    await appendOne(log, opened('before'));
    assert.equal(log.health().checkpoints, undefined, 'all well: no checkpoints field');
    // The injected fault: the thread ends under the log.
    const worker = (log as unknown as { checkpointer: { worker: { terminate(): Promise<number> } } }).checkpointer.worker;
    await worker.terminate();
    await waitFor(() => log.health().checkpoints !== undefined, 5000, 'the failure in health');
    const health = log.health();
    assert.equal(health.writable, true, 'events are still written');
    assert.equal(health.checkpoints?.thread, 'main');
    assert.match(health.checkpoints?.error ?? '', /WORKER_EXIT/);
    assert.deepEqual(reported.map((f) => f.code), ['WORKER_EXIT'], 'reported to the host once');
    assert.ok(!Number.isNaN(Date.parse(health.checkpoints?.since ?? '')));
    assert.equal(handle(log).pragma('wal_autocheckpoint', { simple: true }), 1000, "SQLite's own checkpoints are back on");
    assert.equal((await appendOne(log, opened('after'))).sequence, 1);
  } finally {
    await log.close();
  }
});

test('a worker that cannot open the file reports it once instead of throwing', async () => {
  const failures: CheckpointFailure[] = [];
  const gate = { hold() {}, release() {} };
  const worker = new CheckpointWorker(`${logFile()}-missing`, (f) => failures.push(f), gate);
  await waitFor(() => failures.length > 0, 5000, 'the open failure');
  assert.equal(failures.length, 1);
  assert.match(failures[0].code, /SQLITE_CANTOPEN/);
  assert.equal(worker.running, false);
  worker.committed(10_000);
  await worker.close();
  assert.equal(failures.length, 1);
});
