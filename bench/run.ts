// `npm run bench`: toolhost against the speed limit of this machine.
//
//   npx tsx bench/run.ts            full run (about 10 minutes), writes docs/benchmarks.md
//   npx tsx bench/run.ts --quick    short run (1,000 tools, short loads, no docs)
//   npx tsx bench/run.ts --smoke    every part once on a tiny corpus (figures meaningless), in npm test
//   options: --tools N  --reps N  --duration S  --build-reps N  --list-changed N  --idle-sessions N
//            --only 'SUBSTRING|SUBSTRING' (scenarios)  --no-sweep  --no-audit  --no-docs
//   BENCH_PROFILE=DIR writes a CPU profile of toolhost per scenario (its measured runs only) to DIR.
//   Only start, memory and list_changed, in a few minutes: bench/memory.ts (heap snapshots and a profile on demand).
//
// Processes (each in its own process, loopback only):
//   bench/upstream.ts        MCP server over stdio with N generated tools (spawned by toolhost)
//   bench/toolhost-child.ts  toolhost via serve() on 127.0.0.1:0, compiled, on dist/ with plain node
//                            (bench/compiled-child.ts; `npm run build` first, as `npm run bench` does)
//   bench/baseline.ts        bare node:http answering the same URLs with the same bytes
//   bench/load.ts            autocannon, keep-alive
//   bench/build-bench.ts     in-process snapshot build and refresh (one fresh process per repetition)
// Every throughput figure is a ratio to the baseline measured in the same run,
// toolhost and baseline alternating (T B, B T, ...), medians over repetitions.
import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BuildBenchResult } from './build-bench.js';
import { listChanged as changeOne, startToolhost, type ChangeResult, type Toolhost } from './host.js';
import { runIdleSessions } from './idle-sessions.js';
import { callTable, proxyTargets, runCallScenarios } from './calls.js';
import { benchKeys, REPO_ROOT } from './config.js';
import { compareInRounds, LoadGenerator, type Measured, type Server } from './measure.js';
import { Child, closeAgent, rssAfterIdle } from './procs.js';
import { byIdScenarios, refusalScenarios, RouteBook, shuffled, type Scenario } from './scenarios.js';
import { median } from './shared.js';
import { LoadSampler, targetsTable, type TargetRow } from './targets.js';
import { domainOf, makeTools } from './tools.js';

// ---- options ----------------------------------------------------------------

const argv = process.argv.slice(2);
const flag = (name: string) => argv.includes(`--${name}`);
const opt = (name: string, d: number) => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 ? Number(argv[i + 1]) : d;
};
const only = (() => {
  const i = argv.indexOf('--only');
  return i >= 0 ? argv[i + 1] : undefined;
})();
// --smoke checks that the processes, scenarios and report still work together
// (test/e2e/bench-smoke.test.ts), as fast as they can: 2 requests per connection
// per scenario, and it measures nothing.
const SMOKE = flag('smoke');
const QUICK = flag('quick') || SMOKE;
const O = {
  tools: opt('tools', SMOKE ? 100 : QUICK ? 1000 : 10_000),
  pageSize: opt('page-size', 200),
  reps: opt('reps', QUICK ? 1 : 3),
  duration: opt('duration', QUICK ? 0.3 : 1.5),
  warmup: QUICK ? 0 : 0.5,
  buildReps: opt('build-reps', QUICK ? 1 : 3),
  refreshes: SMOKE ? 1 : QUICK ? 2 : 3,
  listChanged: opt('list-changed', SMOKE ? 1 : QUICK ? 2 : 7),
  /** Milliseconds between the spaced list_changed rounds (and the transport floor's spaced reads). */
  changeGapMs: SMOKE ? 0 : QUICK ? 200 : 3000,
  /** Seconds of the fixed-rate latency run. */
  latencySeconds: QUICK ? 0.5 : 4,
  byIdSample: SMOKE ? 40 : QUICK ? 200 : 1000,
  sweep: QUICK || flag('no-sweep') ? [] : [1, 4, 16, 64],
  // The small answers' targets are with the audit line on (the default): the smoke run starts that host too.
  audit: (SMOKE || !QUICK) && !flag('no-audit'),
  docs: !QUICK && !flag('no-docs') && !only,
  idleSessions: opt('idle-sessions', QUICK ? 1000 : 10_000),
  /** How long the host is left idle before RSS is read again (procs.ts rssAfterIdle). */
  idleMs: SMOKE ? 1000 : QUICK ? 5000 : 60_000,
};
/** Concurrent clients of the call benchmark's many-clients rows. */
const CALL_CLIENTS = SMOKE ? 2 : 16;
const COMMAND = `npm run bench${argv.length ? ` -- ${argv.join(' ')}` : ''}`;

const HERE = fileURLToPath(new URL('.', import.meta.url));
const tmp = mkdtempSync(join(os.tmpdir(), 'toolhost-bench-'));
// BENCH_KEEP=1 keeps the temp dir (configs, toolhost logs) for a look afterwards.
process.on('exit', () => (process.env.BENCH_KEEP ? process.stderr.write(`[bench] kept ${tmp}\n`) : rmSync(tmp, { recursive: true, force: true })));

// ---- machine load -------------------------------------------------------------

const started = Date.now();
const loadSampler = new LoadSampler();
/** Every target of the issue, one row each, added by the part of the run that measures it. */
const targetRows: TargetRow[] = [];

const log = (line: string) => process.stderr.write(`[bench] ${((Date.now() - started) / 1000).toFixed(1).padStart(6)} s  ${line}\n`);
const fmt = (n: number, digits = 0) => (Number.isFinite(n) ? n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits }) : 'n/a');
const mb = (bytes: number) => `${fmt(bytes / 2 ** 20, 0)} MB`;

// ---- the build benchmark (first, on a quiet machine) ----------------------------

async function buildBench(): Promise<BuildBenchResult[]> {
  const results: BuildBenchResult[] = [];
  if (O.buildReps === 0) return [{ tools: O.tools, coldSnapshotMs: NaN, coldStandardMs: NaN, coldSnapshotCpuMs: NaN, coldStandardCpuMs: NaN, coldListsMs: NaN, coldCompressMs: NaN, refreshMs: [NaN], refreshListsMs: [NaN], refreshCompressMs: [NaN], rssMb: NaN, heapUsedMb: NaN }];
  for (let r = 0; r < O.buildReps; r++) {
    // Compression is timed in the first process only: it is the same work every time, and the slowest.
    const args = ['--import', 'tsx', '--expose-gc', join(HERE, 'build-bench.ts'), '--tools', String(O.tools), '--refreshes', String(O.refreshes), ...(r > 0 ? ['--no-compress'] : [])];
    const out = execFileSync(process.execPath, args, {
      cwd: REPO_ROOT,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
      maxBuffer: 1 << 20,
    });
    results.push(JSON.parse(out.trim().split('\n').pop()!) as BuildBenchResult);
    log(`build bench ${r + 1}/${O.buildReps}: cold snapshot ${fmt(results[r].coldSnapshotMs)} ms, refresh ${results[r].refreshMs.map((x) => fmt(x)).join('/')} ms`);
  }
  return results;
}

// ---- hosts ----------------------------------------------------------------------

const { keys, auth } = benchKeys();

const startHost = (audit: boolean): Promise<Toolhost> => startToolhost({ tmp, tools: O.tools, pageSize: O.pageSize, keys, audit });

// ---- scenarios ------------------------------------------------------------------

function listConnections(bytes: number): number {
  return bytes < 1 << 20 ? 16 : bytes < 8 << 20 ? 4 : 2;
}

async function scenarios(host: Toolhost): Promise<{ list: Scenario[]; book: RouteBook }> {
  const book = new RouteBook(host.url);
  const sample = shuffled(
    Array.from({ length: O.tools }, (_, i) => i),
    42,
  ).slice(0, O.byIdSample);
  const small = { tools: O.tools, sample, auth };
  const list: Scenario[] = await byIdScenarios(book, small);
  for (const tenant of ['small', 'mid', 'all'] as const) {
    for (const compact of [false, true]) {
      for (const encoding of [undefined, 'gzip', 'br'] as const) {
        const headers: Record<string, string> = { authorization: auth(tenant) };
        if (encoding) headers['accept-encoding'] = encoding;
        const r = { path: compact ? '/tools?view=compact' : '/tools', headers };
        const res = await book.fetch(r);
        if (res.status !== 200 || res.headers['content-encoding'] !== encoding) throw new Error(`${r.path} ${encoding}: ${res.status} ${res.headers['content-encoding']}`);
        const count = tenant === 'small' ? 50 : tenant === 'mid' ? O.tools / 10 : O.tools;
        list.push({
          name: `GET /tools ${fmt(count)} ${compact ? 'compact' : 'standard'} ${encoding ?? 'identity'}`,
          target: tenant === 'small' ? undefined : 0.9,
          connections: listConnections(res.body.length),
          duration: res.body.length >= 8 << 20 ? Math.max(O.duration, QUICK ? 0.3 : 2.5) : undefined,
          expect: 200,
          requests: [r],
        });
      }
    }
  }
  list.push(...(await refusalScenarios(book, small)));
  // --only 'A|B': the scenarios whose names contain A or B.
  const wanted = only?.split('|');
  return { list: wanted ? list.filter((s) => wanted.some((w) => s.name.includes(w))) : list, book };
}

// ---- load -------------------------------------------------------------------------

let loadGen: LoadGenerator;

const onWrong = (line: string) => log(`  ${line}`);

async function measure(server: Server, s: Scenario, duration: number, overallRate?: number, connections = s.connections): Promise<Measured> {
  // The smoke run makes a few requests per connection, so that every scenario is answered however loaded the machine.
  return loadGen.measure(server, s, duration, { overallRate, connections, perConnection: SMOKE ? 2 : undefined }, onWrong);
}

interface Row {
  scenario: Scenario;
  host: Measured[];
  base: Measured[];
  /** The bare-fastify floor, for small answers (empty otherwise). */
  floor: Measured[];
  ratios: number[];
  floorRatios: number[];
  cpuRatios: number[];
  span: { from: number; to: number };
}

async function compare(s: Scenario, host: Server, base: Server, floor?: Server): Promise<Row> {
  const from = Date.now();
  const servers = floor ? [host, floor] : [host];
  const c = await compareInRounds(loadGen, s, servers, base, { rounds: O.reps, duration: O.duration, warmup: O.warmup, perConnection: SMOKE ? 2 : undefined, onWrong });
  const row: Row = {
    scenario: s,
    host: c.runs.get(host)!,
    base: c.runs.get(base)!,
    floor: floor ? c.runs.get(floor)! : [],
    ratios: c.ratios.get(host)!,
    floorRatios: floor ? c.ratios.get(floor)! : [],
    cpuRatios: c.cpuRatios.get(host)!,
    span: { from, to: Date.now() },
  };
  const floorText = floor ? `, bare fastify ${fmt(median(row.floor.map((m) => m.rps)))} (${fmt(median(row.floorRatios), 2)})` : '';
  log(`${s.name}: ${fmt(median(row.host.map((m) => m.rps)))} vs ${fmt(median(row.base.map((m) => m.rps)))} req/s, ratio ${fmt(median(row.ratios), 2)}${floorText}`);
  return row;
}

// ---- list_changed to served -----------------------------------------------------------

const listChanged = (host: Toolhost, round: number): Promise<ChangeResult> => changeOne(host, round, O.tools, auth('all'));

// ---- report ------------------------------------------------------------------------------

const range = (xs: number[], digits = 0) => `${fmt(median(xs), digits)} (${fmt(Math.min(...xs), digits)}–${fmt(Math.max(...xs), digits)})`;

function table(headers: string[], rows: string[][]): string {
  const lines = [`| ${headers.join(' | ')} |`, `| ${headers.map(() => '---').join(' | ')} |`];
  for (const r of rows) lines.push(`| ${r.join(' | ')} |`);
  return lines.join('\n');
}

function verdict(ok: boolean | undefined): string {
  return ok === undefined ? '' : ok ? 'met' : '**missed**';
}

// ---- main --------------------------------------------------------------------------------

async function main(): Promise<void> {
  const machine = {
    date: new Date().toISOString(),
    cores: os.cpus().length,
    cpu: os.cpus()[0]?.model ?? 'unknown',
    node: process.version,
    memory: mb(os.totalmem()),
    loadAtStart: os.loadavg().map((x) => x.toFixed(2)).join(' '),
  };
  log(`machine: ${machine.cores} cores (${machine.cpu}), Node ${machine.node}, load ${machine.loadAtStart}`);

  const gen = makeTools(Math.min(O.tools, 10_000));
  const sizes = gen.map((t) => JSON.stringify(t.inputSchema).length).sort((a, b) => a - b);
  const toolBytes = gen.reduce((s, t) => s + JSON.stringify(t).length, 0);
  const upstreamDesc = `${fmt(O.tools)} tools, input schemas ${fmt(sizes[0])} B to ${fmt(sizes.at(-1)!)} B (median ${fmt(median(sizes))} B, mean ${fmt(sizes.reduce((a, b) => a + b, 0) / sizes.length)} B), ${mb(toolBytes)} of tool JSON, pages of ${O.pageSize}`;
  log(`upstream: ${upstreamDesc}; tenants: ${domainOf(0, O.tools)}_* for mid`);

  // 1. Build and refresh, in-process.
  const buildSpan = { from: Date.now(), to: 0 };
  const builds = await buildBench();
  buildSpan.to = Date.now();

  // 2. Hosts.
  loadGen = await LoadGenerator.start(join(HERE, 'load.ts'));
  const t0 = Date.now();
  const host = await startHost(false);
  log(`toolhost up in ${fmt(Date.now() - t0)} ms (first build ${fmt(host.ready.buildMs)} ms) at ${host.url}`);
  const coldStart = { standard: host.ready.processMs, both: await host.compacted };
  const fromFirstPage = await host.fromFirstPage;
  log(`start: standard view ${fmt(coldStart.standard)} ms and both ${fmt(coldStart.both)} ms after the process start; ${fmt(fromFirstPage.standard)} and ${fmt(fromFirstPage.both)} ms after the upstream's first page`);
  const { list, book } = await scenarios(host);
  type Memory = { rss: number; heapUsed: number; external: number; arrayBuffers: number };
  const memText = (m: Memory) => `RSS ${mb(m.rss)} (JS heap ${mb(m.heapUsed)}, buffers ${mb(m.arrayBuffers)})`;
  const stats0 = await host.child.ask<{ type: 'stats'; memory: Memory }>({ type: 'stats' });
  // The same host left idle, so V8's memory reducer gives back the heap the start left committed: what a host that has served for a while holds.
  const idleRss = await rssAfterIdle(host.child.pid, O.idleMs);
  log(`RSS ${fmt(idleRss)} MB after ${fmt(O.idleMs / 1000)} s idle`);
  const warmAll = await host.child.ask<{ type: 'warm-all'; ms: number; memory: Memory }>({ type: 'warm-all' }, 'warm-all');
  log(`after the lists: ${memText(stats0.memory)}; after every per-tool body compressed too: ${memText(warmAll.memory)}`);
  // Settle: collect the start-up and warm-up garbage (a host that has run for a while has), so the
  // first scenarios do not pay for it.
  await host.child.ask({ type: 'stats' });
  const routesFile = book.write(tmp);
  const baseline = new Child('baseline', join(HERE, 'baseline.ts'), [routesFile]);
  const fastifyFloor = new Child('fastify-floor', join(HERE, 'fastify-floor.ts'), [routesFile, ...(process.env.BENCH_FLOOR_CONTRACT_HEADERS ? ['--contract-headers'] : [])]);
  const baseReady = await baseline.next<{ type: 'ready'; url: string }>('ready');
  const floorReady = await fastifyFloor.next<{ type: 'ready'; url: string }>('ready');
  const H: Server = { name: 'toolhost', url: host.url, pid: host.child.pid };
  const B: Server = { name: 'baseline', url: baseReady.url, pid: baseline.pid };
  const F: Server = { name: 'bare fastify', url: floorReady.url, pid: fastifyFloor.pid };

  // 3. Throughput, alternating. Small answers are also measured on bare fastify.
  const rows: Row[] = [];
  const profiled = [host.child, baseline, fastifyFloor];
  for (const s of list) {
    const dir = process.env.BENCH_PROFILE;
    if (dir) for (const c of profiled) await c.ask({ type: 'profile-start' });
    rows.push(await compare(s, H, B, s.small ? F : undefined));
    if (dir) for (const c of profiled) await c.ask({ type: 'profile-stop', file: join(dir, `${s.name.replace(/[^A-Za-z0-9]+/g, '_')}.${c.name}.cpuprofile`) });
  }

  // 4. Connection sweep and latency at half the saturating load (by id, standard).
  const byId = list.find((s) => s.name === 'GET /tools/{id} standard');
  const sweep: { c: number; host: number; base: number }[] = [];
  let latency: { rate: number; host: Measured; base: Measured } | undefined;
  const latencySpan = { from: 0, to: 0 };
  if (byId) {
    for (const c of O.sweep) {
      const h = await measure(H, byId, O.duration, undefined, c);
      const b = await measure(B, byId, O.duration, undefined, c);
      sweep.push({ c, host: h.rps, base: b.rps });
      log(`sweep c=${c}: ${fmt(h.rps)} vs ${fmt(b.rps)}`);
    }
    const saturating = Math.max(median(rows.find((r) => r.scenario === byId)!.host.map((m) => m.rps)), ...sweep.map((x) => x.host));
    const rate = Math.round(saturating / 2);
    const dur = Math.max(O.duration, O.latencySeconds);
    latencySpan.from = Date.now();
    latency = { rate, host: await measure(H, byId, dur, rate, 16), base: await measure(B, byId, dur, rate, 16) };
    latencySpan.to = Date.now();
    log(`latency at ${fmt(rate)} req/s: p99 ${fmt(latency.host.p99, 2)} ms (baseline ${fmt(latency.base.p99, 2)} ms)`);
  }

  // 5. list_changed to served, and the rebuilds it causes. Spaced: each change
  // reaches a host that has finished the previous one's background work
  // (list bodies joined and compressed again, ≈ 2 s of one core here): the
  // latency of one change, which the target is about. Back to back: 200 ms
  // apart, the previous change's background work still running.
  const changes: ChangeResult[] = [];
  const changesSpan = { from: Date.now(), to: 0 };
  const rapidChanges: ChangeResult[] = [];
  // Profiled: spaced rounds 3 to 5 (the first ones run the new code paths cold).
  const profileDir = process.env.BENCH_PROFILE;
  for (let i = 0; i < O.listChanged; i++) {
    if (profileDir && i === 2) await host.child.ask({ type: 'profile-start' });
    changes.push(await listChanged(host, i + 1));
    if (profileDir && i === Math.min(4, O.listChanged - 1) && i >= 2) await host.child.ask({ type: 'profile-stop', file: join(profileDir, 'list_changed.toolhost.cpuprofile') });
    log(`list_changed ${i + 1}: served after ${fmt(changes[i].servedMs)} ms (rebuild ${fmt(changes[i].buildMs)} ms)`);
    await new Promise((resolve) => setTimeout(resolve, O.changeGapMs));
  }
  for (let i = 0; i < O.listChanged; i++) {
    rapidChanges.push(await listChanged(host, O.listChanged + i + 1));
    log(`list_changed back to back ${i + 1}: served after ${fmt(rapidChanges[i].servedMs)} ms (rebuild ${fmt(rapidChanges[i].buildMs)} ms)`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  changesSpan.to = Date.now();
  const statsAfter = await host.child.ask<{ type: 'stats'; memory: Memory }>({ type: 'stats' });
  log(`after the refreshes: ${memText(statsAfter.memory)}`);
  await host.child.stop();
  // The transport's floor: the same upstream read by a bare client that does nothing with the pages.
  const floorArgs = (gap: number) => ['--import', 'tsx', join(HERE, 'transport-floor.ts'), '--tools', String(O.tools), '--reads', String(O.listChanged), '--gap', String(gap)];
  const transportFloor = (gap: number) =>
    new Promise<number[]>((resolve, reject) =>
      execFile(process.execPath, floorArgs(gap), { encoding: 'utf8' }, (err, out) => (err ? reject(err) : resolve((JSON.parse(out) as { readsMs: number[] }).readsMs))),
    );
  // One after the other when measuring (together they would share the CPU); the smoke run only needs both to work.
  const [floorSpaced, floorRapid] = SMOKE
    ? await Promise.all([transportFloor(O.changeGapMs), transportFloor(200)])
    : [await transportFloor(O.changeGapMs), await transportFloor(200)];
  log(`transport floor (bare client re-reading every page): ${fmt(median(floorSpaced))} ms spaced, ${fmt(median(floorRapid))} ms back to back`);

  // 6. Audit on (the default, and what the small answers' targets are about):
  // a second host, one audit line per request; a list as context.
  const auditRows: Row[] = [];
  if (O.audit) {
    const audited = await startHost(true);
    // Its start-up work done (compaction, search filing), then settled as above: a fresh host's
    // background work is not what the first audited scenario measures.
    await audited.child.ask({ type: 'quiet' });
    await audited.child.ask({ type: 'stats' });
    const A: Server = { name: 'toolhost(audit)', url: audited.url, pid: audited.child.pid };
    // BENCH_PROFILE: one profile of the audited host over all its scenarios.
    const dir = process.env.BENCH_PROFILE;
    if (dir) await audited.child.ask({ type: 'profile-start' });
    for (const s of list) {
      if (s.small || s.name === `GET /tools ${fmt(O.tools / 10)} standard identity`) auditRows.push(await compare(s, A, B));
    }
    if (dir) await audited.child.ask({ type: 'profile-stop', file: join(dir, 'audit.toolhost.cpuprofile') });
    await audited.child.stop();
  }
  await baseline.stop();
  await fastifyFloor.stop();
  await loadGen.stop();
  closeAgent();

  // 7. tools/call through /mcp beside the same call made directly (bench/calls.ts).
  const callsSpan = { from: Date.now(), to: 0 };
  const callRows =
    only === undefined || 'tools/call through /mcp'.includes(only)
      ? await runCallScenarios({ smoke: SMOKE, calls: QUICK && !SMOKE ? 300 : undefined, rounds: QUICK && !SMOKE ? 1 : undefined, concurrency: CALL_CLIENTS, proxies: !SMOKE, log })
      : [];
  callsSpan.to = Date.now();
  // The tools/call targets, per round: added p50 and calls/s against the direct call of the same round.
  const direct = callRows.find((r) => r.name.startsWith('echo, direct'));
  for (const r of callRows.filter((c) => c.target !== undefined)) {
    if (r.target!.startsWith('< 1 ms') && direct) {
      targetRows.push(
        { target: `${r.name}: p50 added over the direct call`, threshold: 1, unit: 'ms', better: 'lower', values: r.p50Ms.map((p, i) => p - (direct.p50Ms[i] ?? median(direct.p50Ms))), digits: 2, span: callsSpan },
        { target: `${r.name}: calls/s ÷ the direct call's`, threshold: 0.5, unit: '×', better: 'higher', values: r.callsPerSecond.map((c, i) => c / (direct.callsPerSecond[i] ?? median(direct.callsPerSecond))), span: callsSpan },
      );
    } else if (r.target!.startsWith('≥ ')) {
      targetRows.push({ target: `${r.name}: calls/s, events recorded`, threshold: Number(r.target!.slice(2).replace(/[^\d]/g, '')), unit: 'calls/s', better: 'higher', values: r.callsPerSecond, span: callsSpan });
      if (r.name.includes(`${CALL_CLIENTS} raw clients`)) {
        targetRows.push({ target: `${r.name}: toolhost CPU per call, events recorded`, threshold: 0.2, unit: 'ms', better: 'lower', values: r.cpuMsPerCall ?? [], digits: 2, span: callsSpan });
      }
    }
  }
  if (callRows.length > 0) targetRows.push(...proxyTargets(callRows, CALL_CLIENTS, callsSpan));

  // 8. Idle MCP sessions (bench/idle-sessions.ts): memory and timers per open session; not in the smoke run (it opens thousands).
  const idleSpan = { from: Date.now(), to: 0 };
  const idle = SMOKE || only !== undefined ? undefined : await runIdleSessions(O.idleSessions, 4, log);
  idleSpan.to = Date.now();
  targetRows.push(
    { target: `idle MCP sessions: JS heap per open idle session (${fmt(O.idleSessions)} sessions, after a full collection; one value per quarter opened)`, threshold: 8, unit: 'KiB', better: 'lower', values: idle?.heapKiBPerSession ?? [], digits: 1, span: idleSpan },
    { target: `idle MCP sessions: timers per open idle session (${fmt(O.idleSessions)} sessions)`, threshold: 0.01, unit: 'timers', better: 'lower', values: idle?.timersPerSession ?? [], digits: 3, span: idleSpan },
  );

  // 9. Report.
  loadSampler.stop();
  const loadSamples = loadSampler.within();
  const load = { min: Math.min(...loadSamples), max: Math.max(...loadSamples), median: median(loadSamples) };
  const cold = builds.map((b) => b.coldSnapshotMs);
  const coldAll = builds.filter((b) => Number.isFinite(b.coldCompressMs)).map((b) => b.coldSnapshotMs + b.coldListsMs + b.coldCompressMs);
  const coldCompress = builds.filter((b) => Number.isFinite(b.coldCompressMs)).map((b) => b.coldCompressMs);
  const refresh = builds.flatMap((b) => b.refreshMs);
  const refreshLists = builds.flatMap((b) => b.refreshListsMs);
  const refreshCompress = builds.flatMap((b) => b.refreshCompressMs);
  const served = changes.map((c) => c.servedMs);
  const rapidServed = rapidChanges.map((c) => c.servedMs);
  const serverBuilds = [...changes, ...rapidChanges].map((c) => c.buildMs).filter(Number.isFinite);

  const throughputRows = rows.map((r) => [
    r.scenario.name,
    `${r.scenario.connections}`,
    range(r.host.map((m) => m.rps)),
    range(r.base.map((m) => m.rps)),
    range(r.ratios, 2),
    range(r.cpuRatios, 2),
    r.floor.length ? range(r.floorRatios, 2) : '—',
    r.scenario.target === undefined ? '—' : `≥ ${r.scenario.target}`,
    verdict(r.scenario.target === undefined ? undefined : median(r.ratios) >= r.scenario.target),
  ]);
  const throughput = table(['scenario', 'conns', 'toolhost req/s', 'baseline req/s', 'ratio', 'CPU ratio', 'bare fastify ratio', 'target', ''], throughputRows);
  const auditTable = auditRows.length
    ? table(
        ['scenario (audit on)', 'conns', 'toolhost req/s', 'baseline req/s', 'ratio', 'CPU ratio'],
        auditRows.map((r) => [r.scenario.name, `${r.scenario.connections}`, range(r.host.map((m) => m.rps)), range(r.base.map((m) => m.rps)), range(r.ratios, 2), range(r.cpuRatios, 2)]),
      )
    : '';
  const sweepTable = sweep.length
    ? table(
        ['connections', 'toolhost req/s', 'baseline req/s', 'ratio'],
        sweep.map((x) => [`${x.c}`, fmt(x.host), fmt(x.base), fmt(x.host / x.base, 2)]),
      )
    : '';
  const latencyLine = latency
    ? `p99 ${fmt(latency.host.p99, 2)} ms, p50 ${fmt(latency.host.p50, 2)} ms at ${fmt(latency.rate)} req/s (half of ${fmt(latency.rate * 2)}), 16 connections; baseline at the same rate: p99 ${fmt(latency.base.p99, 2)} ms`
    : 'n/a';
  const targets = table(
    ['target', 'measured', ''],
    [
      ['GET /tools/{id}: p99 < 5 ms at half the saturating load', latencyLine, verdict(latency ? latency.host.p99 < 5 : undefined)],
      ['cold start: process start to the standard view served < 1.5 s (the upstream\'s own start included)', `${fmt(coldStart.standard)} ms`, verdict(coldStart.standard < 1500)],
      ['cold start: process start to both views served < 2.5 s', `${fmt(coldStart.both)} ms`, verdict(coldStart.both < 2500)],
      ['start: the upstream\'s first page answered to both views served < 2.5 s', `${fmt(fromFirstPage.both)} ms (the standard view: ${fmt(fromFirstPage.standard)} ms)`, verdict(fromFirstPage.both < 2500)],
      ['cold build, snapshot (classify, annotate, redact, compact, serialize, ETags) < 1.5 s', `${range(cold)} ms, of which the standard view ${range(builds.map((b) => b.coldStandardMs))} ms`, verdict(median(cold) < 1500)],
      ['cold build including the 3 tenants\' list bodies, both views, gzip and br', `${range(coldAll)} ms (lists ${range(builds.map((b) => b.coldListsMs))} ms, compression ${range(coldCompress)} ms)`, verdict(median(coldAll) < 1500)],
      [`one-tool refresh in a ${fmt(O.tools)}-tool catalog < 200 ms (in-process, scheduleRebuild to swap)`, `${range(refresh)} ms`, verdict(median(refresh) < 200)],
      ['… the same rebuild inside the running host (its build metric)', serverBuilds.length ? `${range(serverBuilds)} ms` : 'n/a', verdict(serverBuilds.length ? median(serverBuilds) < 200 : undefined)],
      ['… then the 3 tenants\' list bodies again, both views (the host does this in the background after a swap)', `${range(refreshLists)} ms, and gzip + br of them ${range(refreshCompress)} ms (thread pool)`, ''],
      ['list_changed to served (over HTTP) < 500 ms median, one change at a time (3 s apart)', `${range(served)} ms`, verdict(median(served) < 500)],
      ['… changes 200 ms apart (the previous one\'s background work still running)', rapidServed.length ? `${range(rapidServed)} ms` : 'n/a', ''],
      ['… the transport\'s floor: a bare client re-reading every page of the same upstream (`bench/transport-floor.ts`), 3 s / 200 ms apart', `${range(floorSpaced)} ms / ${range(floorRapid)} ms`, ''],
      ['RSS, all tools loaded, both views, list bodies compressed < 300 MB', memText(stats0.memory), verdict(stats0.memory.rss < 300 * 2 ** 20)],
      [`… after ${fmt(O.idleMs / 1000)} s idle (V8's memory reducer gives back what the start left committed)`, `RSS ${fmt(idleRss)} MB`, verdict(idleRss < 300)],
      ['… and every per-tool body compressed too', `${memText(warmAll.memory)} (compressing took ${fmt(warmAll.ms)} ms)`, verdict(warmAll.memory.rss < 300 * 2 ** 20)],
      [`… after ${changes.length + rapidChanges.length} list_changed refreshes`, memText(statsAfter.memory), ''],
    ],
  );
  // The issue's targets, one row each; other parts of the run add theirs to targetRows.
  const ratioRow = (r: Row, label: string): TargetRow => ({ target: label, threshold: r.scenario.target!, unit: '×', better: 'higher', values: r.ratios, span: r.span });
  targetRows.unshift(
    ...auditRows.filter((r) => r.scenario.small).map((r) => ratioRow(r, `${r.scenario.name}, audit line on (the default): req/s ÷ baseline`)),
    ...rows.filter((r) => r.scenario.target !== undefined && !r.scenario.small).map((r) => ratioRow(r, `${r.scenario.name}: req/s ÷ baseline`)),
    { target: 'GET /tools/{id}: p99 at half the saturating load (audit off)', threshold: 5, unit: 'ms', better: 'lower', values: latency ? [latency.host.p99] : [], digits: 2, span: latencySpan },
    { target: 'start: process start to the standard view served (one start, the upstream\'s own start included)', threshold: 1500, unit: 'ms', better: 'lower', values: [coldStart.standard] },
    { target: 'start: process start to both views served (one start)', threshold: 2500, unit: 'ms', better: 'lower', values: [coldStart.both] },
    { target: 'start: the upstream\'s first tools/list page answered to both views served (one start)', threshold: 2500, unit: 'ms', better: 'lower', values: [fromFirstPage.both] },
    { target: 'cold build of the snapshot, in-process (classify, compact, serialize)', threshold: 1500, unit: 'ms', better: 'lower', values: cold, span: buildSpan },
    { target: "cold build with the 3 tenants' list bodies, both views, gzip and br", threshold: 2500, unit: 'ms', better: 'lower', values: coldAll, span: buildSpan },
    { target: `one-tool refresh in a ${fmt(O.tools)}-tool catalog (in-process)`, threshold: 200, unit: 'ms', better: 'lower', values: refresh, span: buildSpan },
    { target: 'list_changed to served, one change at a time', threshold: 500, unit: 'ms', better: 'lower', values: served, span: changesSpan },
    { target: 'list_changed to served, one change at a time', threshold: 1000, unit: 'ms', better: 'lower', values: served, decidedBy: 'worst', span: changesSpan },
    { target: 'RSS, both views served, list bodies compressed', threshold: 300, unit: 'MB', better: 'lower', values: [stats0.memory.rss / 2 ** 20] },
    { target: `RSS, both views served, list bodies compressed, after ${fmt(O.idleMs / 1000)} s idle`, threshold: 300, unit: 'MB', better: 'lower', values: [idleRss] },
    // "Within 10 % of the first": RSS after every list_changed round ÷ the RSS of the row above.
    { target: `RSS after ${changes.length + rapidChanges.length} list_changed refreshes ÷ RSS with both views served`, threshold: 1.1, unit: '×', better: 'lower', values: [statsAfter.memory.rss / stats0.memory.rss], span: changesSpan },
  );
  const report = [
    `Date: ${machine.date}. Machine: ${machine.cores} cores (${machine.cpu}), ${machine.memory} RAM, Node ${machine.node}.`,
    `Load average (1 min) during the run: median ${load.median.toFixed(2)}, min ${load.min.toFixed(2)}, max ${load.max.toFixed(2)} (at start: ${machine.loadAtStart}).`,
    `Command: \`${COMMAND}\` (${((Date.now() - started) / 1000).toFixed(0)} s).`,
    `Upstream: ${upstreamDesc}. Tenants see ${fmt(O.tools)}, ${fmt(O.tools / 10)} and 50 tools.`,
    SMOKE
      ? 'Throughput: a smoke run, 2 requests per connection per server and scenario: the figures mean nothing.'
      : `Throughput: ${O.reps} alternating rounds of ${O.duration} s per server and scenario (${QUICK ? 0.3 : 2.5} s for bodies over 8 MB), after ${O.warmup} s of warm-up each; medians with (min–max).`,
    '',
    '### Targets',
    '',
    targetsTable(targetRows, loadSampler),
    '',
    'Each row is decided by its median over rounds, or by its worst round where the target says "worst"; the load average is the 1-minute one sampled every 5 s while that row was measured.',
    '',
    '### Throughput (audit off, rate limits off)',
    '',
    throughput,
    '',
    '"ratio": toolhost req/s ÷ baseline req/s in the same pair. "CPU ratio": baseline server CPU per request ÷ toolhost server CPU per request (from /proc, all threads); 1.0 means the same cost per request. "bare fastify ratio": the same bytes from a bare fastify app (one catch-all route, no hooks, same process treatment) ÷ baseline, in the same rounds: the framework\'s own floor.',
    '',
    ...(auditTable ? ['### With the audit line on', '', auditTable, ''] : []),
    ...(sweepTable ? ['### GET /tools/{id} standard by connection count', '', sweepTable, ''] : []),
    '### Latency, build, refresh, memory',
    '',
    targets,
    '',
    ...(callRows.length ? ['### tools/call through /mcp (bench/calls.ts)', '', callTable(callRows), ''] : []),
  ].join('\n');
  process.stdout.write(`\n${report}\n`);

  if (O.docs) {
    const file = join(REPO_ROOT, 'docs/benchmarks.md');
    let doc: string;
    try {
      doc = readFileSync(file, 'utf8');
    } catch {
      doc = '# Benchmarks\n\n<!-- bench:begin -->\n<!-- bench:end -->\n';
    }
    const begin = '<!-- bench:begin -->';
    const end = '<!-- bench:end -->';
    const a = doc.indexOf(begin);
    const b = doc.indexOf(end);
    doc = a >= 0 && b > a ? `${doc.slice(0, a + begin.length)}\n\n${report}\n${doc.slice(b)}` : `${doc}\n${begin}\n\n${report}\n${end}\n`;
    writeFileSync(file, doc);
    log(`wrote ${file}`);
  }
}

// Ctrl-C or a kill: exit through process.exit, so every child is stopped.
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => process.exit(130));

main().then(
  () => process.exit(0),
  (err: unknown) => {
    process.stderr.write(`bench failed: ${err instanceof Error ? err.stack : String(err)}\n`);
    process.exit(1);
  },
);
