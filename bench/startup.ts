// Start-up, command-line and memory cost of running the compiled build with
// plain node against running the TypeScript sources through tsx (what bin/
// and `npm start` did before the build step), measured in one run, with the
// two alternating so that machine load hits both alike.
//   npm run build && npx tsx bench/startup.ts [--reps N] [--tools N]
// Prints a Markdown table (docs/benchmarks.md "Build step").
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { stringify } from 'yaml';
import { hashApiKey } from '../src/auth/api-keys.js';
import { benchConfig, REPO_ROOT, TENANTS, type TenantName } from './config.js';

const { values } = parseArgs({ options: { reps: { type: 'string', default: '5' }, tools: { type: 'string', default: '10000' } } });
const REPS = Number(values.reps);
const TOOLS = Number(values.tools);
const DIR = mkdtempSync(join(tmpdir(), 'toolhost-startup-'));
process.on('exit', () => rmSync(DIR, { recursive: true, force: true }));

type Variant = 'tsx' | 'dist';
const ENTRY: Record<Variant, string[]> = {
  tsx: ['--import', 'tsx', join(REPO_ROOT, 'src/cli/main.ts')],
  dist: [join(REPO_ROOT, 'bin/toolhost.js')],
};

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
function report(what: string, tsx: number[], dist: number[], unit: string): void {
  const a = median(tsx);
  const b = median(dist);
  rows.push([what, `${fmt(a)} ${unit}`, `${fmt(b)} ${unit}`, `${(b / a).toFixed(2)}×`]);
}

const help: Record<Variant, number[]> = { tsx: [], dist: [] };
const version: Record<Variant, number[]> = { tsx: [], dist: [] };
for (let i = 0; i < REPS; i++) {
  for (const v of ['tsx', 'dist'] as const) {
    help[v].push(timeCommand(v, ['--help']));
    version[v].push(timeCommand(v, ['hash-key', 'k']));
  }
}
report('`toolhost --help`', help.tsx, help.dist, 'ms');
report('`toolhost hash-key k`', version.tsx, version.dist, 'ms');

const demo = demoConfig();
const start: Record<Variant, number[]> = { tsx: [], dist: [] };
for (let i = 0; i < REPS; i++) for (const v of ['tsx', 'dist'] as const) start[v].push(await demoStart(v, demo));
report('`serve` on the demo: process start to ready and `GET /tools` answered', start.tsx, start.dist, 'ms');

const big: Record<Variant, { rss: number; startMs: number }[]> = { tsx: [], dist: [] };
for (let i = 0; i < Math.min(REPS, 3); i++) for (const v of ['tsx', 'dist'] as const) big[v].push(await bigRss(v));
report(`serve, ${TOOLS.toLocaleString('en')} tools: start to both views served (identity and gzip)`, big.tsx.map((b) => b.startMs), big.dist.map((b) => b.startMs), 'ms');
report(`RSS with ${TOOLS.toLocaleString('en')} tools, both views served`, big.tsx.map((b) => b.rss), big.dist.map((b) => b.rss), 'MB');

console.log(`| what (median of ${REPS}; RSS and ${TOOLS.toLocaleString('en')}-tool start: of ${Math.min(REPS, 3)}) | tsx on src/ | node on dist/ | dist / tsx |`);
console.log('| --- | --- | --- | --- |');
for (const r of rows) console.log(`| ${r.join(' | ')} |`);
