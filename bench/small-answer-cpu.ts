// Server CPU per small answer, from /proc, for toolhost hosts and a bare
// node:http server that sends the same bytes (GET /tools/{id}, 32
// keep-alive connections): alternating rounds in one run, medians of user
// and system time per request. On this shared VM req/s ratios swing by 2x
// between runs; CPU per request swings far less (docs/benchmarks.md
// "Small answers, fourth round").
//
//   npm run build && npx tsx bench/small-answer-cpu.ts [--rounds N] [--connections N] [--before DIR]
//
// Hosts: `audit` (the audit line on, the default) and `no-audit` from this
// checkout's dist/; with `--before DIR` (an older checkout, built) also its
// `audit` host. Each serves the demo's text pack to one tenant, rate limit off.
import { spawn, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { cpuSplit } from './procs.js';
import { median } from './shared.js';

// autocannon ships no type declarations; its promise form, as used here (in
// this process: the figures are the servers' CPU, not the load's).
const autocannon = createRequire(import.meta.url)('autocannon') as (opts: Record<string, unknown>) => Promise<{ requests: { total: number; average: number } }>;

const argv = process.argv.slice(2);
const opt = (name: string): string | undefined => (argv.includes(`--${name}`) ? argv[argv.indexOf(`--${name}`) + 1] : undefined);
const ROUNDS = Number(opt('rounds') ?? 7);
const CONNECTIONS = Number(opt('connections') ?? 32);
const BEFORE = opt('before');
const KEY = 'acme-demo-key';
const KEY_HASH = 'sha256:8676d15d94dabdd1283e6c407e2bb08a7b5c13b4e3667d4795c17172e080a3d4';
const PATH = '/tools/openwop%3Atext.uppercase';
const HEADERS = { authorization: `Bearer ${KEY}` };

/** The bare server: the host's answer (status line, headers, body) as captured, sent from memory. */
function serveBaseline(file: string): void {
  const { headers, body } = JSON.parse(readFileSync(file, 'utf8')) as { headers: string[]; body: string };
  const bytes = Buffer.from(body, 'latin1');
  const server = createServer((_req, res) => {
    res.writeHead(200, headers);
    res.end(bytes);
  });
  server.keepAliveTimeout = 72_000;
  server.listen(0, '127.0.0.1', () => {
    const address = server.address();
    process.stdout.write(`${typeof address === 'object' && address ? address.port : 0}\n`);
  });
}

function config(dir: string, audit: boolean): string {
  const file = join(dir, `${audit ? 'audit' : 'no-audit'}.yaml`);
  writeFileSync(file, [
    'tenants:',
    '  acme: { description: bench, tools: ["*"], rateLimit: false }',
    `auth: { audit: ${audit} }`,
    `principals: [{ id: acme-agent, tenant: acme, scopes: [], keyHash: "${KEY_HASH}" }]`,
    `sources: { nodePacks: [{ path: ${JSON.stringify(resolve('examples/demo/packs/text'))} }] }`,
    '',
  ].join('\n'));
  return file;
}

interface Target {
  name: string;
  child: ChildProcess;
  url: string;
  rounds: { rps: number; user: number; system: number }[];
}

async function answered(url: string): Promise<Response> {
  for (let i = 0; i < 300; i++) {
    try {
      const r = await fetch(url, { headers: HEADERS });
      if (r.ok) return r;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${url} never answered 200`);
}

async function startHost(name: string, cwd: string, file: string, port: number): Promise<Target> {
  const child = spawn(process.execPath, ['dist/cli/main.js', 'serve', '--config', file, '--port', String(port)], { cwd, stdio: ['ignore', 'ignore', 'inherit'] });
  const url = `http://127.0.0.1:${port}${PATH}`;
  await answered(url);
  return { name, child, url, rounds: [] };
}

async function startBaseline(dir: string, like: Target): Promise<Target> {
  const answer = await answered(like.url);
  const headers: string[] = [];
  answer.headers.forEach((value, name) => {
    if (!['date', 'connection', 'keep-alive'].includes(name)) headers.push(name, value);
  });
  const file = join(dir, 'answer.json');
  writeFileSync(file, JSON.stringify({ headers, body: Buffer.from(await answer.arrayBuffer()).toString('latin1') }));
  const child = spawn(process.execPath, ['--import', 'tsx', 'bench/small-answer-cpu.ts', '--baseline', file], { stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise<string>((done) => child.stdout!.once('data', (d: Buffer) => done(String(d).trim())));
  return { name: 'node:http, same bytes', child, url: `http://127.0.0.1:${port}/`, rounds: [] };
}

async function measure(t: Target): Promise<void> {
  await autocannon({ url: t.url, headers: HEADERS, connections: CONNECTIONS, duration: 0.7 });
  const before = cpuSplit(t.child.pid!);
  const run = await autocannon({ url: t.url, headers: HEADERS, connections: CONNECTIONS, duration: 2 });
  const after = cpuSplit(t.child.pid!);
  const n = run.requests.total;
  t.rounds.push({ rps: run.requests.average, user: ((after.user - before.user) / n) * 1e6, system: ((after.system - before.system) / n) * 1e6 });
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'toolhost-small-cpu-'));
  const targets: Target[] = [];
  try {
    targets.push(await startHost('toolhost, audit line on', process.cwd(), config(dir, true), 18_401));
    targets.push(await startHost('toolhost, audit line off', process.cwd(), config(dir, false), 18_402));
    if (BEFORE !== undefined) targets.push(await startHost(`${BEFORE}, audit line on`, BEFORE, config(dir, true), 18_403));
    targets.push(await startBaseline(dir, targets[0]));
    for (let round = 0; round < ROUNDS; round++) {
      for (const t of round % 2 === 0 ? targets : [...targets].reverse()) await measure(t);
    }
    console.log(`GET ${PATH}, ${CONNECTIONS} connections, ${ROUNDS} rounds of 2 s, medians (all rounds' user + system in brackets)`);
    console.log('| server | req/s | user µs per request | system µs per request | total |');
    console.log('| --- | --- | --- | --- | --- |');
    for (const t of targets) {
      const totals = t.rounds.map((r) => (r.user + r.system).toFixed(0)).join(' ');
      console.log(`| ${t.name} | ${Math.round(median(t.rounds.map((r) => r.rps)))} | ${median(t.rounds.map((r) => r.user)).toFixed(1)} | ${median(t.rounds.map((r) => r.system)).toFixed(1)} | ${median(t.rounds.map((r) => r.user + r.system)).toFixed(1)} (${totals}) |`);
    }
  } finally {
    for (const t of targets) t.child.kill();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (argv[0] === '--baseline') serveBaseline(argv[1]);
else await main();
