// toolhost under test, in its own process: serve() on 127.0.0.1:0 with the
// bench config. Forked by bench/run.ts with an IPC channel:
//   -> { type: 'ready', url, pid, tools, buildMs, startMs, processMs, atNs }  (the standard view served)
//   -> { type: 'compacted', processMs, atNs }                                 (both views served)
// atNs: process.hrtime.bigint() (CLOCK_MONOTONIC: comparable with the upstream's on Linux).
//   <- { type: 'stats' }       -> { type: 'stats', memory (and its V8 heap spaces), builds }
//   <- { type: 'warm-all' }    -> compresses every per-tool body (both views, gzip and br)
//   <- { type: 'builds' }      -> { type: 'builds', builds: [{ generation, ms, atNs }] }
//   <- { type: 'quiet' }       -> { type: 'quiet' } once the start-up work is done (see quiet())
//   <- { type: 'resources' }   -> { type: 'resources', memory, timers, resources: { TCPSocketWrap: n, ... } }
//                                 (timers: those made since the child started and not yet cleared or run, unref'd ones included)
//   <- { type: 'heap-snapshot', file } -> a V8 heap snapshot written to file
//   <- { type: 'profile-start' } / { type: 'profile-stop', file } -> a CPU profile of just that span
// Logs go to a file through the same logger `toolhost serve` writes JSON
// lines with (src/cli/logger.ts: buffered, asynchronous). BENCH_LOG=sync
// writes every line at once instead (pino's default destination), to measure
// what the buffering buys.
import { createHook } from 'node:async_hooks';
import { getHeapSpaceStatistics, writeHeapSnapshot } from 'node:v8';
import pino from 'pino';
import { closeLogger, createLogger } from '../src/cli/logger.js';
import { serve } from '../src/host/serve.js';
import { handleProfileMessage } from './profiling.js';

const [configFile, logFile] = process.argv.slice(2);

// Live timers, unref'd ones included (process.getActiveResourcesInfo() lists only those that keep the loop alive).
// BENCH_COUNT_TIMERS=1 only: the hook costs every async resource something.
const timers = new Set<number>();
if (process.env.BENCH_COUNT_TIMERS) {
  createHook({
    init: (id, type) => void (type === 'Timeout' && timers.add(id)),
    destroy: (id) => void timers.delete(id),
  }).enable();
}

const t0 = performance.now();
const logger = process.env.BENCH_LOG === 'sync' ? pino({ level: 'info' }, pino.destination({ dest: logFile, sync: true })) : createLogger('info', 'json', false, logFile);
const running = await serve(configFile, { host: '127.0.0.1', port: 0, logger, startDeadlineMs: 180_000 });
const { store, metrics } = running.host;

async function buildSecondsSum(): Promise<{ sum: number; count: number }> {
  const values = (await metrics.snapshotBuildSeconds.get()).values;
  const sum = values.find((v) => v.metricName === 'toolhost_snapshot_build_seconds_sum')?.value ?? 0;
  const count = values.find((v) => v.metricName === 'toolhost_snapshot_build_seconds_count')?.value ?? 0;
  return { sum, count };
}

interface Build {
  generation: number;
  tools: number;
  ms: number;
  /** process.hrtime.bigint() at the swap, as a string. */
  atNs: string;
}
const builds: Build[] = [];
let last = await buildSecondsSum();
builds.push({ generation: store.current().generation, tools: store.current().entries.length, ms: last.sum * 1000, atNs: String(process.hrtime.bigint()) });
store.onSwap((next) => {
  const atNs = String(process.hrtime.bigint());
  // The histogram is observed just before the listeners run.
  void buildSecondsSum().then((now) => {
    builds.push({ generation: next.generation, tools: next.entries.length, ms: (now.sum - last.sum) * 1000, atNs });
    last = now;
  });
});

function memory() {
  globalThis.gc?.();
  const m = process.memoryUsage();
  // Per V8 heap space, in MB: committed (what RSS holds) and used.
  const spaces = Object.fromEntries(getHeapSpaceStatistics().map((s) => [s.space_name, [Math.round(s.physical_space_size / 2 ** 20), Math.round(s.space_used_size / 2 ** 20)]]));
  return { rss: m.rss, heapUsed: m.heapUsed, heapTotal: m.heapTotal, external: m.external, arrayBuffers: m.arrayBuffers, spaces };
}

/**
 * Resolves once the host's start-up work is done: the compact view made, and
 * the main thread at most 5 % busy over 100 ms (search filing and the other
 * background slices finished), so a scenario does not share the host with it.
 */
async function quiet(): Promise<void> {
  await store.current().whenCompacted();
  const giveUpAt = Date.now() + 30_000;
  let last = performance.eventLoopUtilization();
  while (Date.now() < giveUpAt) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    const now = performance.eventLoopUtilization();
    const busy = performance.eventLoopUtilization(now, last).utilization;
    last = now;
    if (busy < 0.05) return;
  }
}

process.on('message', (msg: { type: string; file?: string }) => {
  if (handleProfileMessage(msg)) return;
  if (msg.type === 'stats') process.send?.({ type: 'stats', memory: memory(), builds });
  else if (msg.type === 'builds') process.send?.({ type: 'builds', builds });
  else if (msg.type === 'quiet') void quiet().then(() => process.send?.({ type: 'quiet' }));
  else if (msg.type === 'resources') {
    // What keeps the event loop busy, by kind (timers are 'Timeout'), after a full collection.
    const resources: Record<string, number> = {};
    for (const kind of process.getActiveResourcesInfo()) resources[kind] = (resources[kind] ?? 0) + 1;
    process.send?.({ type: 'resources', memory: memory(), timers: timers.size, resources });
  } else if (msg.type === 'heap-snapshot') {
    globalThis.gc?.();
    writeHeapSnapshot(msg.file);
    process.send?.({ type: 'heap-snapshot' });
  }
  else if (msg.type === 'warm-all') {
    // Every per-tool body compressed as a request would have it compressed.
    const started = performance.now();
    const pending: Promise<Buffer>[] = [];
    for (const e of store.current().entries) {
      for (const body of [e.standard, e.compact]) if (body.bytes.length >= 1024) for (const enc of ['gzip', 'br'] as const) pending.push(Promise.resolve(body.encodedSoon(enc)));
    }
    void Promise.all(pending).then(() => process.send?.({ type: 'warm-all', ms: performance.now() - started, memory: memory() }));
  } else if (msg.type === 'stop') {
    void running.close().then(() => closeLogger(logger).then(() => process.exit(0)));
  }
});

// performance.now() counts from the process's start: what the cold-start targets measure.
process.send?.({
  type: 'ready',
  url: running.url,
  pid: process.pid,
  tools: store.current().entries.length,
  buildMs: builds[0].ms,
  startMs: performance.now() - t0,
  processMs: performance.now(),
  atNs: String(process.hrtime.bigint()),
});
void Promise.resolve(store.current().whenCompacted()).then(() => process.send?.({ type: 'compacted', processMs: performance.now(), atNs: String(process.hrtime.bigint()) }));
