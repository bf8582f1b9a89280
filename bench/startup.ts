// Start-up, command-line and memory cost of running the compiled build with
// plain node against running the TypeScript sources through tsx (what bin/
// and `npm start` did before the build step), measured in one run, with the
// two alternating so that machine load hits both alike.
//   npm run build && npx tsx bench/startup.ts [--reps N] [--tools N] [--before DIR]
// --before DIR adds a third column: an older checkout (its own bin/toolhost.js,
// e.g. `git worktree add DIR <commit>` with node_modules linked), for a
// before/after of a change to how the command starts.
// Prints a Markdown table (docs/benchmarks.md "Build step").
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { stringify } from 'yaml';
import { hashApiKey } from '../src/auth/api-keys.js';
import { benchConfig, REPO_ROOT, TENANTS, type TenantName } from './config.js';

const { values } = parseArgs({ options: { reps: { type: 'string', default: '5' }, tools: { type: 'string', default: '10000' }, before: { type: 'string' } } });
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
const VARIANTS: Variant[] = values.before ? ['before', 'tsx', 'dist'] : ['tsx', 'dist'];
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

function startServe(variant: Variant, config: string): { child: ChildProcess; url: Promise<string> } {
  const child = spawn(process.execPath, [...ENTRY[variant], 'serve', '--config', config, '--port', '0'], { cwd: REPO_ROOT, env: { ...process.env, LOG_LEVEL: 'warn', CI: '' }, stdio: ['ignore', 'pipe', 'inherit'] });
  const url = new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (c: Buffer) => {
      out += String(c);
      const m = /listening on (\S+)/.exec(out);
      if (m) resolve(m[1]);
    });
    child.on('exit', (code) => reject(new Error(`${variant} serve exited ${code}`)));
  });
  return { child, url };
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

function rssMb(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return Number(m![1]) / 1024;
}

/** RSS with TOOLS tools loaded and both views of the biggest tenant served, identity and gzip. */
async function bigRss(variant: Variant): Promise<{ rss: number; startMs: number }> {
  const keys = Object.fromEntries(TENANTS.map((t) => [t, `startup-${t}-key`])) as Record<TenantName, string>;
  const config = join(DIR, `big-${variant}.yaml`);
  writeFileSync(config, stringify({ ...benchConfig({ tools: TOOLS, pageSize: 200, controlFile: join(DIR, `control-${variant}`), keyHashes: Object.fromEntries(TENANTS.map((t) => [t, hashApiKey(keys[t])])) as Record<TenantName, string>, audit: true }), server: { host: '127.0.0.1' } }));
  const t0 = performance.now();
  const { child, url } = startServe(variant, config);
  try {
    const base = await url;
    const auth = { authorization: `Bearer ${keys.all}` };
    await until('all tools', async () => {
      const r = await fetch(`${base}/tools?view=compact`, { headers: auth });
      const body = (await r.json()) as { tools: unknown[] };
      return body.tools.length >= TOOLS ? true : undefined;
    });
    for (const encoding of ['identity', 'gzip']) {
      for (const view of ['', '?view=compact']) await (await fetch(`${base}/tools${view}`, { headers: { ...auth, 'accept-encoding': encoding } })).arrayBuffer();
    }
    const startMs = performance.now() - t0;
    await new Promise((r) => setTimeout(r, 2_000));
    return { rss: rssMb(child.pid!), startMs };
  } finally {
    await stop(child);
  }
}

const fmt = (n: number) => (n >= 100 ? n.toFixed(0) : n.toFixed(1));
const rows: string[][] = [];
function report(what: string, samples: Record<Variant, number[]>, unit: string): void {
  const medians = VARIANTS.map((v) => median(samples[v]));
  rows.push([what, ...medians.map((m) => `${fmt(m)} ${unit}`), `${(medians[medians.length - 1] / medians[0]).toFixed(2)}×`]);
}

const help = perVariant<number>();
const hashKey = perVariant<number>();
for (let i = 0; i < REPS; i++) {
  for (const v of VARIANTS) {
    help[v].push(timeCommand(v, ['--help']));
    hashKey[v].push(timeCommand(v, ['hash-key', 'k']));
  }
}
report('`toolhost --help`', help, 'ms');
report('`toolhost hash-key k`', hashKey, 'ms');

const demo = demoConfig();
const start = perVariant<number>();
for (let i = 0; i < REPS; i++) for (const v of VARIANTS) start[v].push(await demoStart(v, demo));
report('`serve` on the demo: process start to ready and `GET /tools` answered', start, 'ms');

const bigRuns = Math.min(REPS, 3);
const bigStart = perVariant<number>();
const bigMemory = perVariant<number>();
for (let i = 0; i < bigRuns; i++) {
  for (const v of VARIANTS) {
    const b = await bigRss(v);
    bigStart[v].push(b.startMs);
    bigMemory[v].push(b.rss);
  }
}
report(`serve, ${TOOLS.toLocaleString('en')} tools: start to both views served (identity and gzip)`, bigStart, 'ms');
report(`RSS with ${TOOLS.toLocaleString('en')} tools, both views served`, bigMemory, 'MB');

console.log(`| what (median of ${REPS}; ${TOOLS.toLocaleString('en')}-tool rows: of ${bigRuns}) | ${VARIANTS.map((v) => HEADINGS[v]).join(' | ')} | ${HEADINGS.dist} / ${HEADINGS[VARIANTS[0]]} |`);
console.log(`| --- |${VARIANTS.map(() => ' --- |').join('')} --- |`);
for (const r of rows) console.log(`| ${r.join(' | ')} |`);
