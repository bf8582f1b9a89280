// Only the 10,000-tool host's start, memory and list_changed, in a few
// minutes instead of the full run's ten: the rows of docs/benchmarks.md
// "Targets" about RSS (both views served, list bodies compressed), RSS after
// refreshes, list_changed to served and process start to both views served.
//
//   npm run build && npx tsx bench/memory.ts [--tools N] [--starts N] [--list-changed N] [--gap MS] [--idle S] [--heap DIR] [--profile DIR]
//
// Each start is a fresh toolhost child (bench/host.ts, compiled on dist/):
// it waits for both views, fetches every tenant's list in both views and
// three encodings (so the list bodies are compressed, as in the full run),
// reads memory after a full collection, then RSS after `--idle` seconds of
// idleness (default 60, 0 skips it: V8's memory reducer gives back what the
// start left committed, bench/procs.ts rssAfterIdle), then makes `--list-changed` changes
// `--gap` ms apart, each timed from the upstream's notification to the new
// content served over HTTP, and reads memory after each. `--heap DIR` writes
// heap snapshots of the first start (served.heapsnapshot after the lists,
// refreshed.heapsnapshot after the changes): the memory read after a
// snapshot is not comparable, so those starts are for looking, not for figures.
// `--profile DIR` writes a CPU profile of the first start's changes 3 to 5
// (`npx tsx bench/profile-summary.ts DIR` sums it up).
// Prints min – median – max of each figure and the 1-minute load average.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { benchKeys, TENANTS } from './config.js';
import { listChanged, startToolhost } from './host.js';
import { closeAgent, cpuSeconds, get, rssAfterIdle } from './procs.js';
import { median } from './shared.js';
import { LoadSampler } from './targets.js';

const argv = process.argv.slice(2);
const opt = (name: string, d: number) => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 ? Number(argv[i + 1]) : d;
};
const heapDir = argv.includes('--heap') ? argv[argv.indexOf('--heap') + 1] : undefined;
const profileDir = argv.includes('--profile') ? argv[argv.indexOf('--profile') + 1] : undefined;
const O = { tools: opt('tools', 10_000), starts: opt('starts', 1), changes: opt('list-changed', 14), gapMs: opt('gap', 3000), idleMs: opt('idle', 60) * 1000, pageSize: 200 };

type Memory = { rss: number; heapUsed: number; heapTotal: number; external: number; arrayBuffers: number; spaces: Record<string, [number, number]> };
const MB = 2 ** 20;
const log = (line: string) => process.stderr.write(`[memory] ${line}\n`);
const memText = (m: Memory) => `RSS ${(m.rss / MB).toFixed(0)} MB (heap used ${(m.heapUsed / MB).toFixed(0)} of ${(m.heapTotal / MB).toFixed(0)} MB, external ${(m.external / MB).toFixed(0)} MB, buffers ${(m.arrayBuffers / MB).toFixed(0)} MB)`;

/** The process's anonymous and file-backed resident memory, from the kernel. */
function smaps(pid: number): string {
  try {
    const text = readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
    const kb = (k: string) => Number(new RegExp(`^${k}:\\s+(\\d+)`, 'm').exec(text)?.[1] ?? NaN) / 1024;
    return `anonymous ${kb('Anonymous').toFixed(0)} MB, file-backed ${(kb('Rss') - kb('Anonymous')).toFixed(0)} MB`;
  } catch {
    return 'smaps n/a';
  }
}

interface StartResult {
  standardMs: number;
  bothMs: number;
  bothCpuMs: number;
  served: Memory;
  /** RSS after --idle seconds idle, MB (NaN with --idle 0). */
  idle: number;
  servedMs: number[];
  /** The host's CPU time (all threads) from just before each change to its content served. */
  cpuMs: number[];
  after: Memory[];
}

async function oneStart(tmp: string, start: number): Promise<StartResult> {
  const { keys, auth } = benchKeys();
  const host = await startToolhost({ tmp, tools: O.tools, pageSize: O.pageSize, keys, audit: false });
  const bothMs = await host.compacted;
  // Load stretches wall time; the host's own CPU time (all threads, not the upstream's) much less.
  const bothCpuMs = cpuSeconds(host.child.pid) * 1000;
  log(`start ${start}: standard view served at ${host.ready.processMs.toFixed(0)} ms, both at ${bothMs.toFixed(0)} ms of the process (host CPU ${bothCpuMs.toFixed(0)} ms)`);
  for (const t of TENANTS) {
    for (const path of ['/tools', '/tools?view=compact']) {
      for (const encoding of [undefined, 'gzip', 'br']) {
        const r = await get(host.url, path, { authorization: auth(t), ...(encoding && { 'accept-encoding': encoding }) });
        if (r.status !== 200) throw new Error(`${path} for ${t}: ${r.status}`);
      }
    }
  }
  const stats = () => host.child.ask<{ type: 'stats'; memory: Memory }>({ type: 'stats' }).then((s) => s.memory);
  const snapshot = (name: string) => (heapDir && start === 1 ? host.child.ask({ type: 'heap-snapshot', file: join(heapDir, name) }, 'heap-snapshot', 600_000) : undefined);
  const served = await stats();
  log(`start ${start}: lists served: ${memText(served)}; ${smaps(host.child.pid)}`);
  log(`start ${start}: V8 spaces (MB committed/used): ${Object.entries(served.spaces).map(([k, [c, u]]) => `${k} ${c}/${u}`).join(', ')}`);
  await snapshot('served.heapsnapshot');
  const idle = O.idleMs > 0 ? await rssAfterIdle(host.child.pid, O.idleMs) : NaN;
  if (O.idleMs > 0) log(`start ${start}: RSS ${idle.toFixed(0)} MB after ${O.idleMs / 1000} s idle; ${smaps(host.child.pid)}`);
  const servedMs: number[] = [];
  const cpuMs: number[] = [];
  const after: Memory[] = [];
  for (let i = 0; i < O.changes; i++) {
    await new Promise((resolve) => setTimeout(resolve, O.gapMs));
    // --profile DIR: a CPU profile of the first start's changes 3 to 5 (the first ones run cold code).
    if (profileDir && start === 1 && i === 2) await host.child.ask({ type: 'profile-start' });
    const cpu0 = cpuSeconds(host.child.pid);
    const c = await listChanged(host, i + 1, O.tools, auth('all'));
    cpuMs.push((cpuSeconds(host.child.pid) - cpu0) * 1000);
    servedMs.push(c.servedMs);
    if (profileDir && start === 1 && i === 4) await host.child.ask({ type: 'profile-stop', file: join(profileDir, 'list_changed.toolhost.cpuprofile') });
    after.push(await stats());
    log(`start ${start}: list_changed ${i + 1}: served after ${c.servedMs.toFixed(0)} ms (rebuild ${c.buildMs.toFixed(0)} ms, host CPU ${cpuMs.at(-1)!.toFixed(0)} ms); ${memText(after.at(-1)!)}`);
  }
  log(`start ${start}: after the changes: ${smaps(host.child.pid)}; V8 spaces: ${Object.entries(after.at(-1)?.spaces ?? {}).map(([k, [c, u]]) => `${k} ${c}/${u}`).join(', ')}`);
  await snapshot('refreshed.heapsnapshot');
  await host.child.stop();
  return { standardMs: host.ready.processMs, bothMs, bothCpuMs, served, idle, servedMs, cpuMs, after };
}

const range = (xs: number[], digits = 0) => `${Math.min(...xs).toFixed(digits)} – ${median(xs).toFixed(digits)} – ${Math.max(...xs).toFixed(digits)}`;

async function main(): Promise<void> {
  const tmp = mkdtempSync(join(os.tmpdir(), 'toolhost-memory-'));
  const load = new LoadSampler();
  try {
    const results: StartResult[] = [];
    for (let s = 1; s <= O.starts; s++) results.push(await oneStart(tmp, s));
    load.stop();
    const loads = load.samples.map((x) => x.load);
    const lines = [
      `${O.tools} tools, ${O.starts} start(s), ${O.changes} list_changed each ${O.gapMs} ms apart; load average (1 min) ${range(loads, 2)}`,
      `process start to the standard view served: ${range(results.map((r) => r.standardMs))} ms`,
      `process start to both views served: ${range(results.map((r) => r.bothMs))} ms (host CPU ${range(results.map((r) => r.bothCpuMs))} ms)`,
      `RSS, both views served, list bodies compressed: ${range(results.map((r) => r.served.rss / MB))} MB (heap used ${range(results.map((r) => r.served.heapUsed / MB))} MB)`,
      ...(O.idleMs > 0 ? [`RSS after ${O.idleMs / 1000} s idle: ${range(results.map((r) => r.idle))} MB`] : []),
      ...(O.changes > 0
        ? [
            `list_changed to served: ${range(results.flatMap((r) => r.servedMs))} ms (${results.flatMap((r) => r.servedMs).length} changes)`,
            `host CPU per list_changed (just before the change to served): ${range(results.flatMap((r) => r.cpuMs))} ms`,
            `RSS after ${O.changes} refreshes: ${range(results.map((r) => r.after.at(-1)!.rss / MB))} MB (heap used ${range(results.map((r) => r.after.at(-1)!.heapUsed / MB))} MB)`,
            `RSS after the refreshes ÷ RSS served: ${results.map((r) => (r.after.at(-1)!.rss / r.served.rss).toFixed(2)).join(', ')}`,
          ]
        : []),
    ];
    process.stdout.write(`${lines.join('\n')}\n`);
  } finally {
    closeAgent();
    rmSync(tmp, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    process.stderr.write(`memory bench failed: ${err instanceof Error ? err.stack : String(err)}\n`);
    process.exit(1);
  },
);
