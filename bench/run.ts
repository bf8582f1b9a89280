// `npm run bench`: toolhost against the speed limit of this machine.
//
//   npx tsx bench/run.ts            full run (about 10 minutes), writes docs/benchmarks.md
//   npx tsx bench/run.ts --quick    short run (1,000 tools, short loads, no docs)
//   npx tsx bench/run.ts --smoke    every part once on a tiny corpus (figures meaningless), in npm test
//   options: --tools N  --reps N  --duration S  --build-reps N  --list-changed N
//            --only SUBSTRING (scenarios)  --no-sweep  --no-audit  --no-docs
//   BENCH_PROFILE=DIR writes a CPU profile of toolhost per scenario (its measured runs only) to DIR.
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
import { randomBytes } from 'node:crypto';
import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { stringify } from 'yaml';
import { hashApiKey } from '../src/auth/api-keys.js';
import type { BuildBenchResult } from './build-bench.js';
import { compiledChild } from './compiled-child.js';
import { benchConfig, REPO_ROOT, SERVER_ID, TENANTS, type TenantName } from './config.js';
import type { LoadJob, LoadResult } from './load.js';
import { Child, closeAgent, cpuSeconds, get, type RawResponse } from './procs.js';
import { median, routeKey } from './shared.js';
import { domainOf, makeTools, toolName } from './tools.js';

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
// (test/bench/smoke.test.ts), as fast as they can: 2 requests per connection
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
  audit: !QUICK && !flag('no-audit'),
  docs: !QUICK && !flag('no-docs') && !only,
};
const COMMAND = `npm run bench${argv.length ? ` -- ${argv.join(' ')}` : ''}`;

const HERE = fileURLToPath(new URL('.', import.meta.url));
const tmp = mkdtempSync(join(os.tmpdir(), 'toolhost-bench-'));
// BENCH_KEEP=1 keeps the temp dir (configs, toolhost logs) for a look afterwards.
process.on('exit', () => (process.env.BENCH_KEEP ? process.stderr.write(`[bench] kept ${tmp}\n`) : rmSync(tmp, { recursive: true, force: true })));

// ---- machine load -------------------------------------------------------------

const started = Date.now();
const loadSamples: number[] = [];
const sampleLoad = () => loadSamples.push(os.loadavg()[0]);
sampleLoad();
const loadTimer = setInterval(sampleLoad, 5000);
loadTimer.unref();

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

const keys = Object.fromEntries(TENANTS.map((t) => [t, `bench-${t}-${randomBytes(16).toString('hex')}`])) as Record<TenantName, string>;
const auth = (t: TenantName) => `Bearer ${keys[t]}`;

interface Toolhost {
  child: Child;
  url: string;
  controlFile: string;
  ready: { tools: number; buildMs: number; startMs: number; processMs: number };
  /** Process start to both views served (the compact view made). */
  compacted: Promise<number>;
}

async function startToolhost(audit: boolean): Promise<Toolhost> {
  const dir = mkdtempSync(join(tmp, audit ? 'audit-' : 'host-'));
  const controlFile = join(dir, 'control-port');
  const config = benchConfig({
    tools: O.tools,
    pageSize: O.pageSize,
    controlFile,
    keyHashes: Object.fromEntries(TENANTS.map((t) => [t, hashApiKey(keys[t])])) as Record<TenantName, string>,
    audit,
  });
  const file = join(dir, 'toolhost.yaml');
  writeFileSync(file, stringify(config));
  const child = new Child(audit ? 'toolhost(audit)' : 'toolhost', toolhostChild(), [file, join(dir, 'toolhost.log')], ['--expose-gc', ...(process.env.BENCH_NODE_FLAGS ?? '').split(' ').filter(Boolean)]);
  // Awaited for the first host only: a host stopped before it says so gives NaN, not an unhandled rejection.
  const compacted = child.next<{ type: 'compacted'; processMs: number }>('compacted').then((m) => m.processMs, () => NaN);
  const ready = await child.next<{ type: 'ready'; url: string; tools: number; buildMs: number; startMs: number; processMs: number }>('ready');
  if (ready.tools !== O.tools) throw new Error(`toolhost serves ${ready.tools} tools, expected ${O.tools}`);
  return { child, url: ready.url, controlFile, ready, compacted };
}

/** toolhost as users run it: the child compiled, on dist/ with plain node; BENCH_CHILD_TSX=1: the sources through tsx. */
const toolhostChild = () => (process.env.BENCH_CHILD_TSX ? join(HERE, 'toolhost-child.ts') : compiledChild(join(HERE, 'toolhost-child.ts'), join(tmp, 'compiled')));

// ---- scenarios ------------------------------------------------------------------

interface Req {
  path: string;
  headers: Record<string, string>;
}

interface Scenario {
  name: string;
  /** Small answers: also measured on bare fastify. */
  small?: boolean;
  /** Seconds per run when not the default (large bodies need longer for enough requests). */
  duration?: number;
  /** Target ratio to the baseline (undefined: reported only). */
  target?: number;
  connections: number;
  expect: number;
  requests: Req[];
}

function shuffled<T>(xs: T[], seed: number): T[] {
  const out = [...xs];
  let s = seed;
  for (let i = out.length - 1; i > 0; i--) {
    s = (s * 1103515245 + 12345) & 0x7fffffff;
    const j = s % (i + 1);
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

const toolId = (i: number) => `mcp:${SERVER_ID}.${toolName(i, O.tools)}`;
const toolPath = (i: number, compact = false) => `/tools/${encodeURIComponent(toolId(i))}${compact ? '?view=compact' : ''}`;

function listConnections(bytes: number): number {
  return bytes < 1 << 20 ? 16 : bytes < 8 << 20 ? 4 : 2;
}

async function scenarios(host: Toolhost): Promise<{ list: Scenario[]; routes: Map<string, RawResponse> }> {
  const routes = new Map<string, RawResponse>();
  /** Fetches from toolhost once: the bytes the baseline will answer with. */
  const fetchRoute = async (r: Req): Promise<RawResponse> => {
    const key = routeKey(r.headers.authorization, r.path, r.headers['accept-encoding'], r.headers['if-none-match']);
    let res = routes.get(key);
    if (!res) {
      res = await get(host.url, r.path, r.headers);
      routes.set(key, res);
    }
    return res;
  };
  const list: Scenario[] = [];
  const sample = shuffled(
    Array.from({ length: O.tools }, (_, i) => i),
    42,
  ).slice(0, O.byIdSample);

  for (const compact of [false, true]) {
    const requests = sample.map((i) => ({ path: toolPath(i, compact), headers: { authorization: auth('all') } }));
    for (const r of requests) if ((await fetchRoute(r)).status !== 200) throw new Error(`${r.path}: not 200`);
    list.push({ name: `GET /tools/{id} ${compact ? 'compact' : 'standard'}`, small: true, target: 0.75, connections: 32, expect: 200, requests });
  }
  for (const tenant of ['small', 'mid', 'all'] as const) {
    for (const compact of [false, true]) {
      for (const encoding of [undefined, 'gzip', 'br'] as const) {
        const headers: Record<string, string> = { authorization: auth(tenant) };
        if (encoding) headers['accept-encoding'] = encoding;
        const r = { path: compact ? '/tools?view=compact' : '/tools', headers };
        const res = await fetchRoute(r);
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
  {
    const r = { path: '/tools', headers: { authorization: auth('mid') } };
    const etag = String((await fetchRoute(r)).headers.etag);
    const inm = { path: '/tools', headers: { authorization: auth('mid'), 'if-none-match': etag } };
    if ((await fetchRoute(inm)).status !== 304) throw new Error('no 304');
    list.push({ name: `GET /tools ${fmt(O.tools / 10)} If-None-Match (304)`, small: true, target: 0.75, connections: 32, expect: 304, requests: [inm] });
  }
  {
    const requests: Req[] = [];
    for (const i of sample.slice(0, 200)) {
      const plain = { path: toolPath(i), headers: { authorization: auth('all') } };
      const etag = String((await fetchRoute(plain)).headers.etag);
      const r = { path: plain.path, headers: { authorization: auth('all'), 'if-none-match': etag } };
      if ((await fetchRoute(r)).status !== 304) throw new Error('no 304');
      requests.push(r);
    }
    list.push({ name: 'GET /tools/{id} If-None-Match (304)', small: true, target: 0.75, connections: 32, expect: 304, requests });
  }
  {
    const r = { path: '/tools', headers: {} };
    if ((await fetchRoute(r)).status !== 401) throw new Error('no 401');
    list.push({ name: 'GET /tools without credential (401)', small: true, target: 0.75, connections: 32, expect: 401, requests: [r] });
  }
  {
    // Ids that exist but that the 50-tool tenant may not see.
    const requests = sample.filter((i) => i >= 50).slice(0, 200).map((i) => ({ path: toolPath(i), headers: { authorization: auth('small') } }));
    for (const r of requests) if ((await fetchRoute(r)).status !== 404) throw new Error(`${r.path}: not 404`);
    list.push({ name: 'GET /tools/{id} invisible (404)', small: true, target: 0.75, connections: 32, expect: 404, requests });
  }
  return { list: only ? list.filter((s) => s.name.includes(only)) : list, routes };
}

function writeBaselineRoutes(routes: Map<string, RawResponse>): string {
  const specs: { key: string; status: number; headers: Record<string, string>; contractHeaders: Record<string, string>; file?: string }[] = [];
  let n = 0;
  for (const [key, res] of routes) {
    const headers: Record<string, string> = {};
    if (res.body.length > 0 && res.headers['content-type']) headers['content-type'] = String(res.headers['content-type']);
    if (res.headers['content-encoding']) headers['content-encoding'] = String(res.headers['content-encoding']);
    // Every header toolhost sent but the ones node:http adds itself: what the contract asks for (ETag, Vary, ...).
    const contractHeaders: Record<string, string> = {};
    for (const [name, value] of Object.entries(res.headers)) {
      if (!['date', 'connection', 'keep-alive', 'content-length', 'transfer-encoding'].includes(name)) contractHeaders[name] = String(value);
    }
    let file: string | undefined;
    if (res.body.length > 0) {
      file = join(tmp, `body-${n++}.bin`);
      writeFileSync(file, res.body);
    }
    specs.push({ key, status: res.status, headers, contractHeaders, file });
  }
  const file = join(tmp, 'routes.json');
  writeFileSync(file, JSON.stringify(specs));
  return file;
}

// ---- load -------------------------------------------------------------------------

let loadChild: Child;
let jobId = 0;

async function load(job: LoadJob): Promise<LoadResult> {
  const id = ++jobId;
  const reply = await loadChild.ask<{ type: 'result'; id: number; result?: LoadResult; error?: string }>({ type: 'run', id, job }, 'result', (job.duration + 60) * 1000);
  if (reply.error || !reply.result) throw new Error(`load: ${reply.error}`);
  return reply.result;
}

interface Measured extends LoadResult {
  /** Server CPU microseconds per request (all threads). */
  cpuUsPerReq: number;
}

async function measure(url: string, pid: number, s: Scenario, duration: number, overallRate?: number, connections = s.connections): Promise<Measured> {
  const cpu0 = cpuSeconds(pid);
  // The smoke run makes a few requests per connection, so that every scenario is answered however loaded the machine.
  const r = await load({ url, connections, duration, requests: s.requests, ...(overallRate ? { overallRate } : {}), ...(SMOKE ? { amount: connections * 2 } : {}) });
  const cpu = cpuSeconds(pid) - cpu0;
  const wrong = Object.entries(r.statuses).filter(([code]) => Number(code) !== s.expect);
  if (wrong.length > 0 || r.errors > 0) log(`  ${s.name} @ ${url}: unexpected ${JSON.stringify(Object.fromEntries(wrong))}, ${r.errors} errors`);
  return { ...r, cpuUsPerReq: (cpu * 1e6) / Math.max(1, r.requests) };
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
}

interface Server {
  url: string;
  pid: number;
}

async function compare(s: Scenario, host: Server, base: Server, floor?: Server): Promise<Row> {
  const servers = floor ? [host, base, floor] : [host, base];
  if (O.warmup > 0) for (const x of servers) await measure(x.url, x.pid, s, O.warmup);
  const row: Row = { scenario: s, host: [], base: [], floor: [], ratios: [], floorRatios: [], cpuRatios: [] };
  for (let r = 0; r < O.reps; r++) {
    // Alternate the order: T B (F), (F) B T, T B (F) ...
    const order = r % 2 === 0 ? servers : [...servers].reverse();
    const got = new Map<Server, Measured>();
    for (const x of order) got.set(x, await measure(x.url, x.pid, s, s.duration ?? O.duration));
    const h = got.get(host)!;
    const b = got.get(base)!;
    row.host.push(h);
    row.base.push(b);
    row.ratios.push(h.rps / b.rps);
    row.cpuRatios.push(b.cpuUsPerReq / h.cpuUsPerReq);
    if (floor) {
      const f = got.get(floor)!;
      row.floor.push(f);
      row.floorRatios.push(f.rps / b.rps);
    }
  }
  const floorText = floor ? `, bare fastify ${fmt(median(row.floor.map((m) => m.rps)))} (${fmt(median(row.floorRatios), 2)})` : '';
  log(`${s.name}: ${fmt(median(row.host.map((m) => m.rps)))} vs ${fmt(median(row.base.map((m) => m.rps)))} req/s, ratio ${fmt(median(row.ratios), 2)}${floorText}`);
  return row;
}

// ---- list_changed to served -----------------------------------------------------------

interface ChangeResult {
  /** list_changed sent (upstream clock) to the new content answered over HTTP. */
  servedMs: number;
  /** The store's rebuild for that change (scheduleRebuild to swap). */
  buildMs: number;
}

async function listChanged(host: Toolhost, round: number): Promise<ChangeResult> {
  const port = Number(readFileSync(host.controlFile, 'utf8'));
  const index = (round * 7919 + 17) % O.tools;
  const before = (await host.child.ask<{ type: 'builds'; builds: { ms: number }[] }>({ type: 'builds' })).builds.length;
  const res = await fetch(`http://127.0.0.1:${port}/change?index=${index}`, { method: 'POST' });
  const { revision, notifiedAtNs } = (await res.json()) as { name: string; revision: number; notifiedAtNs: string };
  const path = toolPath(index);
  const marker = `(revision ${revision})`;
  const deadline = Date.now() + 30_000;
  for (;;) {
    const r = await get(host.url, path, { authorization: auth('all') });
    if (r.status === 200 && r.body.includes(marker)) break;
    if (Date.now() > deadline) throw new Error(`revision ${revision} of tool ${index} not served within 30 s`);
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
  const servedMs = Number(process.hrtime.bigint() - BigInt(notifiedAtNs)) / 1e6;
  // The swap has happened; its build record arrives just after.
  let builds: { ms: number }[] = [];
  for (let i = 0; i < 100 && builds.length <= before; i++) {
    builds = (await host.child.ask<{ type: 'builds'; builds: { ms: number }[] }>({ type: 'builds' })).builds;
    if (builds.length <= before) await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return { servedMs, buildMs: builds.at(-1)?.ms ?? NaN };
}

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
  const builds = await buildBench();

  // 2. Hosts.
  loadChild = new Child('load', join(HERE, 'load.ts'));
  await loadChild.next('ready');
  const t0 = Date.now();
  const host = await startToolhost(false);
  log(`toolhost up in ${fmt(Date.now() - t0)} ms (first build ${fmt(host.ready.buildMs)} ms) at ${host.url}`);
  const coldStart = { standard: host.ready.processMs, both: await host.compacted };
  const { list, routes } = await scenarios(host);
  type Memory = { rss: number; heapUsed: number; external: number; arrayBuffers: number };
  const memText = (m: Memory) => `RSS ${mb(m.rss)} (JS heap ${mb(m.heapUsed)}, buffers ${mb(m.arrayBuffers)})`;
  const stats0 = await host.child.ask<{ type: 'stats'; memory: Memory }>({ type: 'stats' });
  const warmAll = await host.child.ask<{ type: 'warm-all'; ms: number; memory: Memory }>({ type: 'warm-all' }, 'warm-all');
  log(`after the lists: ${memText(stats0.memory)}; after every per-tool body compressed too: ${memText(warmAll.memory)}`);
  // Settle: collect the start-up and warm-up garbage (a host that has run for a while has), so the
  // first scenarios do not pay for it.
  await host.child.ask({ type: 'stats' });
  const routesFile = writeBaselineRoutes(routes);
  const baseline = new Child('baseline', join(HERE, 'baseline.ts'), [routesFile]);
  const fastifyFloor = new Child('fastify-floor', join(HERE, 'fastify-floor.ts'), [routesFile, ...(process.env.BENCH_FLOOR_CONTRACT_HEADERS ? ['--contract-headers'] : [])]);
  const baseReady = await baseline.next<{ type: 'ready'; url: string }>('ready');
  const floorReady = await fastifyFloor.next<{ type: 'ready'; url: string }>('ready');
  const H = { url: host.url, pid: host.child.pid };
  const B = { url: baseReady.url, pid: baseline.pid };
  const F = { url: floorReady.url, pid: fastifyFloor.pid };

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
  if (byId) {
    for (const c of O.sweep) {
      const h = await measure(H.url, H.pid, byId, O.duration, undefined, c);
      const b = await measure(B.url, B.pid, byId, O.duration, undefined, c);
      sweep.push({ c, host: h.rps, base: b.rps });
      log(`sweep c=${c}: ${fmt(h.rps)} vs ${fmt(b.rps)}`);
    }
    const saturating = Math.max(median(rows.find((r) => r.scenario === byId)!.host.map((m) => m.rps)), ...sweep.map((x) => x.host));
    const rate = Math.round(saturating / 2);
    const dur = Math.max(O.duration, O.latencySeconds);
    latency = { rate, host: await measure(H.url, H.pid, byId, dur, rate, 16), base: await measure(B.url, B.pid, byId, dur, rate, 16) };
    log(`latency at ${fmt(rate)} req/s: p99 ${fmt(latency.host.p99, 2)} ms (baseline ${fmt(latency.base.p99, 2)} ms)`);
  }

  // 5. list_changed to served, and the rebuilds it causes. Spaced: each change
  // reaches a host that has finished the previous one's background work
  // (list bodies joined and compressed again, ≈ 2 s of one core here): the
  // latency of one change, which the target is about. Back to back: 200 ms
  // apart, the previous change's background work still running.
  const changes: ChangeResult[] = [];
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

  // 6. Audit on: the same host, one audit line per request.
  const auditRows: Row[] = [];
  if (O.audit) {
    const audited = await startToolhost(true);
    await audited.child.ask({ type: 'stats' }); // settle, as above
    const A = { url: audited.url, pid: audited.child.pid };
    for (const name of ['GET /tools/{id} standard', `GET /tools ${fmt(O.tools / 10)} standard identity`, 'GET /tools without credential (401)', 'GET /tools/{id} invisible (404)']) {
      const s = list.find((x) => x.name === name);
      if (s) auditRows.push(await compare(s, A, B));
    }
    await audited.child.stop();
  }
  await baseline.stop();
  await fastifyFloor.stop();
  await loadChild.stop();
  closeAgent();

  // 7. Report.
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
      ['cold build, snapshot (classify, annotate, redact, compact, serialize, ETags) < 1.5 s', `${range(cold)} ms, of which the standard view ${range(builds.map((b) => b.coldStandardMs))} ms`, verdict(median(cold) < 1500)],
      ['cold build including the 3 tenants\' list bodies, both views, gzip and br', `${range(coldAll)} ms (lists ${range(builds.map((b) => b.coldListsMs))} ms, compression ${range(coldCompress)} ms)`, verdict(median(coldAll) < 1500)],
      [`one-tool refresh in a ${fmt(O.tools)}-tool catalog < 200 ms (in-process, scheduleRebuild to swap)`, `${range(refresh)} ms`, verdict(median(refresh) < 200)],
      ['… the same rebuild inside the running host (its build metric)', serverBuilds.length ? `${range(serverBuilds)} ms` : 'n/a', verdict(serverBuilds.length ? median(serverBuilds) < 200 : undefined)],
      ['… then the 3 tenants\' list bodies again, both views (the host does this in the background after a swap)', `${range(refreshLists)} ms, and gzip + br of them ${range(refreshCompress)} ms (thread pool)`, ''],
      ['list_changed to served (over HTTP) < 500 ms median, one change at a time (3 s apart)', `${range(served)} ms`, verdict(median(served) < 500)],
      ['… changes 200 ms apart (the previous one\'s background work still running)', rapidServed.length ? `${range(rapidServed)} ms` : 'n/a', ''],
      ['… the transport\'s floor: a bare client re-reading every page of the same upstream (`bench/transport-floor.ts`), 3 s / 200 ms apart', `${range(floorSpaced)} ms / ${range(floorRapid)} ms`, ''],
      ['RSS, all tools loaded, both views, list bodies compressed < 300 MB', memText(stats0.memory), verdict(stats0.memory.rss < 300 * 2 ** 20)],
      ['… and every per-tool body compressed too', `${memText(warmAll.memory)} (compressing took ${fmt(warmAll.ms)} ms)`, verdict(warmAll.memory.rss < 300 * 2 ** 20)],
      [`… after ${changes.length + rapidChanges.length} list_changed refreshes`, memText(statsAfter.memory), ''],
    ],
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
