// Start-up, command-line and memory cost of running the compiled build with
// plain node against running the TypeScript sources through tsx (what bin/
// and `npm start` did before the build step), measured in one run, with the
// two alternating so that machine load hits both alike.
//   npm run build && npx tsx bench/startup.ts [--reps N] [--tools N] [--before DIR] [--serve-only] [--no-tsx]
// --before DIR adds a column: an older checkout (its own bin/toolhost.js,
// e.g. `git worktree add DIR <commit>` with node_modules linked and built), for a
// before/after of a change to how the command or the host starts.
// --serve-only measures the 10,000-tool start and memory only (not the command
// line or the demo); --no-tsx leaves out the sources-through-tsx column.
// Prints a Markdown table (docs/benchmarks.md "Build step", "Cold start,
// list_changed and memory") and, per row, every sample (min–median–max).
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { stringify } from 'yaml';
import { hashApiKey } from '../src/auth/api-keys.js';
import { benchConfig, REPO_ROOT, TENANTS, type TenantName } from './config.js';
import { cpuSeconds, rssMb } from './procs.js';

const { values } = parseArgs({
  options: { reps: { type: 'string', default: '5' }, tools: { type: 'string', default: '10000' }, before: { type: 'string' }, 'serve-only': { type: 'boolean' }, 'no-tsx': { type: 'boolean' } },
});
const REPS = Number(values.reps);
const TOOLS = Number(values.tools);
const DIR = mkdtempSync(join(tmpdir(), 'toolhost-startup-'));
process.on('exit', () => rmSync(DIR, { recursive: true, force: true }));

type Variant = 'before' | 'tsx' | 'dist';
const ENTRY: Record<Variant, string[]> = {
  before: values.before ? [join(values.before, 'bin/toolhost.js')] : [],
  tsx: ['--import', 'tsx', join(REPO_ROOT, 'src/cli/main.ts')],
  dist: [join(REPO_ROOT, 'bin/toolhost.js')],
};
const VARIANTS: Variant[] = [...(values.before ? (['before'] as const) : []), ...(values['no-tsx'] ? [] : (['tsx'] as const)), 'dist'];
const HEADINGS: Record<Variant, string> = { before: 'before (bin/ through tsx)', tsx: 'tsx on src/', dist: 'node on dist/' };
const perVariant = <T>(): Record<Variant, T[]> => ({ before: [], tsx: [], dist: [] });

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}

function timeCommand(variant: Variant, args: string[]): number {
  const t0 = performance.now();
  const r = spawnSync(process.execPath, [...ENTRY[variant], ...args], { cwd: REPO_ROOT, stdio: ['ignore', 'ignore', 'pipe'] });
  if (r.status !== 0) throw new Error(`${variant} ${args.join(' ')}: exit ${r.status}: ${String(r.stderr)}`);
  return performance.now() - t0;
}

/** The demo config with absolute paths and its event log in the temp dir. */
function demoConfig(): string {
  const demoDir = join(REPO_ROOT, 'examples/demo');
  const text = readFileSync(join(demoDir, 'toolhost.yaml'), 'utf8')
    .replace(/file: data\/events\.sqlite/, `file: ${join(DIR, 'demo-events.sqlite')}`)
    .replace(/path: (packs\/\w+|workflows)/g, (_m, p: string) => `path: ${join(demoDir, p)}`)
    .replace(/document: openapi\//, `document: ${demoDir}/openapi/`)
    .replace('"../../node_modules/', `"${REPO_ROOT}node_modules/`);
  const file = join(DIR, 'demo.yaml');
  writeFileSync(file, text);
  return file;
}

async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 300_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe().catch(() => undefined);
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** A log line of the host: when (epoch ms) it said `msg`. */
type LogLine = { time: number; msg: string; ms?: number; tools?: number };

function startServe(variant: Variant, config: string, logLevel = 'warn'): { child: ChildProcess; url: Promise<string>; lines: LogLine[] } {
  const child = spawn(process.execPath, [...ENTRY[variant], 'serve', '--config', config, '--port', '0'], { cwd: REPO_ROOT, env: { ...process.env, LOG_LEVEL: logLevel, CI: '' }, stdio: ['ignore', 'pipe', 'inherit'] });
  const lines: LogLine[] = [];
  const url = new Promise<string>((resolve, reject) => {
    let out = '';
    let pending = '';
    child.stdout!.on('data', (c: Buffer) => {
      out += String(c);
      const m = /listening on (\S+)/.exec(out);
      if (m) resolve(m[1]);
      pending += String(c);
      const complete = pending.split('\n');
      pending = complete.pop()!;
      for (const l of complete) if (l.startsWith('{')) lines.push(JSON.parse(l) as LogLine);
      if (out.length > 1 << 16) out = out.slice(-4096);
    });
    child.on('exit', (code) => reject(new Error(`${variant} serve exited ${code}`)));
  });
  return { child, url, lines };
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((r) => child.on('exit', r));
  child.kill('SIGTERM');
  await exited;
}

/** Process start to the first answered GET /tools of the demo (every source loaded). */
async function demoStart(variant: Variant, config: string): Promise<number> {
  const t0 = performance.now();
  const { child, url } = startServe(variant, config);
  try {
    const base = await url;
    await until('the demo catalog', async () => {
      const r = await fetch(`${base}/readyz`);
      return r.status === 200 ? true : undefined;
    });
    await fetch(`${base}/tools`, { headers: { authorization: 'Bearer acme-demo-key' } });
    return performance.now() - t0;
  } finally {
    await stop(child);
  }
}

interface BigStart {
  /** Process start to the standard list of every tool answered (identity). */
  standardMs: number;
  /** … and the compact list too (identity): both views served. */
  bothMs: number;
  /** … and both lists gzip-compressed too. */
  compressedMs: number;
  /** RSS 2 s after that. */
  rss: number;
  /** CPU time of the toolhost process (all threads) at standardMs and at bothMs: what load on the machine does not stretch. */
  standardCpuMs: number;
  bothCpuMs: number;
  /** From the host's log, ms after the spawn: upstream connected, its list read, standard view ready, both views ready. */
  phases: { connected: number; read: number; standard: number; both: number };
}

async function fullBody(base: string, path: string, headers: Record<string, string>): Promise<void> {
  const r = await fetch(`${base}${path}`, { headers });
  const bytes = await r.arrayBuffer();
  if (r.status !== 200 || bytes.byteLength < TOOLS * 50) throw new Error(`${path} ${JSON.stringify(headers['accept-encoding'] ?? '')}: ${r.status}, ${bytes.byteLength} bytes`);
}

/** TOOLS tools, the biggest tenant: when each view is served, and RSS once both are, compressed too. */
async function bigStart(variant: Variant): Promise<BigStart> {
  const keys = Object.fromEntries(TENANTS.map((t) => [t, `startup-${t}-key`])) as Record<TenantName, string>;
  const config = join(DIR, `big-${variant}.yaml`);
  writeFileSync(config, stringify({ ...benchConfig({ tools: TOOLS, pageSize: 200, controlFile: join(DIR, `control-${variant}`), keyHashes: Object.fromEntries(TENANTS.map((t) => [t, hashApiKey(keys[t])])) as Record<TenantName, string>, audit: true }), server: { host: '127.0.0.1' } }));
  const t0 = performance.now();
  const spawnedAt = Date.now();
  const { child, url, lines } = startServe(variant, config, 'info');
  try {
    const base = await url;
    const auth = { authorization: `Bearer ${keys.all}` };
    await until('all tools', async () => {
      const r = await fetch(`${base}/readyz`);
      const report = (await r.json()) as { tools: number };
      return report.tools >= TOOLS ? true : undefined;
    });
    await fullBody(base, '/tools', auth);
    const standardMs = performance.now() - t0;
    const standardCpuMs = cpuSeconds(child.pid!) * 1000;
    await fullBody(base, '/tools?view=compact', auth);
    const bothMs = performance.now() - t0;
    const bothCpuMs = cpuSeconds(child.pid!) * 1000;
    for (const view of ['', '?view=compact']) await fullBody(base, `/tools${view}`, { ...auth, 'accept-encoding': 'gzip' });
    const compressedMs = performance.now() - t0;
    await new Promise((r) => setTimeout(r, 2_000));
    // What the host's log says (its clock, no HTTP): when the upstream answered, its list was read, each view was ready.
    // A start that outlasts its deadline (a loaded machine) serves an empty catalog first: the lines of the full one count.
    const at = (msg: string) => (lines.find((l) => l.msg === msg && (l.tools === undefined || l.tools >= TOOLS))?.time ?? NaN) - spawnedAt;
    const built = at('catalog snapshot built');
    const compacted = at('compact view made');
    const phases = { connected: at('mcp server connected'), read: at('mcp tool list read'), standard: built, both: Number.isNaN(compacted) ? built : compacted };
    return { standardMs, bothMs, compressedMs, rss: rssMb(child.pid!), standardCpuMs, bothCpuMs, phases };
  } finally {
    await stop(child);
  }
}

const fmt = (n: number) => (n >= 100 ? n.toFixed(0) : n.toFixed(1));
const rows: string[][] = [];
const spreads: string[] = [];
function report(what: string, samples: Record<Variant, number[]>, unit: string): void {
  const medians = VARIANTS.map((v) => median(samples[v]));
  rows.push([what, ...medians.map((m) => `${fmt(m)} ${unit}`), `${(medians[medians.length - 1] / medians[0]).toFixed(2)}×`]);
  spreads.push(`${what}: ${VARIANTS.map((v) => `${v} ${fmt(Math.min(...samples[v]))}–${fmt(median(samples[v]))}–${fmt(Math.max(...samples[v]))} ${unit}`).join(', ')}`);
}

/** The variants in the order of round i: reversed every other round, so load drifts hit them alike. */
const inOrder = (i: number): Variant[] => (i % 2 === 0 ? VARIANTS : [...VARIANTS].reverse());

if (!values['serve-only']) {
  const help = perVariant<number>();
  const hashKey = perVariant<number>();
  for (let i = 0; i < REPS; i++) {
    for (const v of inOrder(i)) {
      help[v].push(timeCommand(v, ['--help']));
      hashKey[v].push(timeCommand(v, ['hash-key', 'k']));
    }
  }
  report('`toolhost --help`', help, 'ms');
  report('`toolhost hash-key k`', hashKey, 'ms');

  const demo = demoConfig();
  const start = perVariant<number>();
  for (let i = 0; i < REPS; i++) for (const v of inOrder(i)) start[v].push(await demoStart(v, demo));
  report('`serve` on the demo: process start to ready and `GET /tools` answered', start, 'ms');
}

const bigRuns = values['serve-only'] ? REPS : Math.min(REPS, 3);
const phase = { connected: perVariant<number>(), read: perVariant<number>(), standard: perVariant<number>(), both: perVariant<number>() };
const big = { standard: perVariant<number>(), both: perVariant<number>(), compressed: perVariant<number>(), rss: perVariant<number>(), standardCpu: perVariant<number>(), bothCpu: perVariant<number>() };
const loads: number[] = [loadavg()[0]];
for (let i = 0; i < bigRuns; i++) {
  for (const v of inOrder(i)) {
    const b = await bigStart(v);
    big.standard[v].push(b.standardMs);
    big.both[v].push(b.bothMs);
    big.compressed[v].push(b.compressedMs);
    big.rss[v].push(b.rss);
    big.standardCpu[v].push(b.standardCpuMs);
    big.bothCpu[v].push(b.bothCpuMs);
    for (const k of ['connected', 'read', 'standard', 'both'] as const) phase[k][v].push(b.phases[k]);
    loads.push(loadavg()[0]);
    process.stderr.write(`[startup] ${v}: log: connected ${fmt(b.phases.connected)}, read ${fmt(b.phases.read)}, standard ${fmt(b.phases.standard)}, both ${fmt(b.phases.both)} ms; HTTP: standard ${fmt(b.standardMs)} ms (CPU ${fmt(b.standardCpuMs)} ms), both ${fmt(b.bothMs)} ms (CPU ${fmt(b.bothCpuMs)} ms), gzip too ${fmt(b.compressedMs)} ms, RSS ${fmt(b.rss)} MB\n`);
  }
}
const n = TOOLS.toLocaleString('en');
report(`serve, ${n} tools: process start to the standard view served`, big.standard, 'ms');
report(`serve, ${n} tools: process start to both views served`, big.both, 'ms');
report(`serve, ${n} tools: … and both gzip-compressed`, big.compressed, 'ms');
report('… by the host\'s log: the upstream connected (spawned, initialized)', phase.connected, 'ms');
report('… by the host\'s log: its list read', phase.read, 'ms');
report('… by the host\'s log: the standard view ready (snapshot built)', phase.standard, 'ms');
report('… by the host\'s log: both views ready (compact view made)', phase.both, 'ms');
report(`… toolhost's CPU time (all threads) when the standard view was served`, big.standardCpu, 'ms');
report(`… toolhost's CPU time (all threads) when both views were served`, big.bothCpu, 'ms');
report(`RSS with ${n} tools, both views served, identity and gzip`, big.rss, 'MB');

console.log(`| what (median of ${REPS}; ${n}-tool rows: of ${bigRuns}) | ${VARIANTS.map((v) => HEADINGS[v]).join(' | ')} | ${HEADINGS.dist} / ${HEADINGS[VARIANTS[0]]} |`);
console.log(`| --- |${VARIANTS.map(() => ' --- |').join('')} --- |`);
for (const r of rows) console.log(`| ${r.join(' | ')} |`);
console.log('');
console.log(`Samples (min–median–max): ${spreads.join('; ')}. Load average (1 min) before and after each start: ${loads.map((l) => l.toFixed(2)).join(', ')}.`);
