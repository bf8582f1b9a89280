// The small answers (GET /tools/{id}, 304, 401, 404) of several toolhost
// variants against the baseline, in alternating rounds: a before/after of a
// change to the request path, the audit line on and off, without the rest
// of `npm run bench`.
//   npx tsx bench/small-answers.ts [--tools N] [--rounds N] [--duration S]
//       [--before DIR] [--variants LIST] [--only 'A|B']
// Variants (comma-separated; default: after,after-audit, plus before,before-audit with --before):
//   after, after-audit         this checkout, audit line off / on
//   after-audit-sync           audit on, every log line written at once (pino's default destination)
//   before, before-audit       DIR's bench/toolhost-child.ts (an older checkout with node_modules linked)
// Prints, per scenario and variant, req/s ratio and CPU ratio to the baseline
// (median, min–max over rounds) and server CPU µs per request, and the load average.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { stringify } from 'yaml';
import { hashApiKey } from '../src/auth/api-keys.js';
import { benchConfig, benchKeys, TENANTS, type TenantName } from './config.js';
import { compareInRounds, LoadGenerator, type Server } from './measure.js';
import { Child } from './procs.js';
import { byIdScenarios, refusalScenarios, RouteBook, shuffled } from './scenarios.js';
import { median } from './shared.js';

const { values } = parseArgs({
  options: {
    tools: { type: 'string', default: '10000' },
    rounds: { type: 'string', default: '5' },
    duration: { type: 'string', default: '1.5' },
    before: { type: 'string' },
    variants: { type: 'string' },
    only: { type: 'string' },
  },
});
const TOOLS = Number(values.tools);
const HERE = fileURLToPath(new URL('.', import.meta.url));
const tmp = mkdtempSync(join(os.tmpdir(), 'toolhost-small-'));
process.on('exit', () => rmSync(tmp, { recursive: true, force: true }));
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => process.exit(130));

const loads: number[] = [os.loadavg()[0]];
setInterval(() => loads.push(os.loadavg()[0]), 5000).unref();
const log = (line: string) => process.stderr.write(`[small] ${line}\n`);

const { keys, auth } = benchKeys();

interface Variant {
  name: string;
  root: string;
  audit: boolean;
  env: Record<string, string>;
}

function variantOf(name: string): Variant {
  const [where, ...rest] = name.split('-');
  if (where === 'before' && !values.before) throw new Error(`${name}: needs --before DIR`);
  const root = where === 'before' ? values.before! : join(HERE, '..');
  return { name, root, audit: rest[0] === 'audit', env: rest[1] === 'sync' ? { BENCH_LOG: 'sync' } : {} };
}

async function startVariant(v: Variant): Promise<{ child: Child; server: Server }> {
  const dir = mkdtempSync(join(tmp, `${v.name}-`));
  const config = benchConfig({
    tools: TOOLS,
    pageSize: 200,
    controlFile: join(dir, 'control-port'),
    keyHashes: Object.fromEntries(TENANTS.map((t) => [t, hashApiKey(keys[t])])) as Record<TenantName, string>,
    audit: v.audit,
  });
  const file = join(dir, 'toolhost.yaml');
  writeFileSync(file, stringify(config));
  const child = new Child(v.name, join(v.root, 'bench/toolhost-child.ts'), [file, join(dir, 'toolhost.log')], ['--expose-gc'], 'ignore', v.env);
  const ready = await child.next<{ type: 'ready'; url: string; tools: number }>('ready');
  if (ready.tools !== TOOLS) throw new Error(`${v.name} serves ${ready.tools} tools, expected ${TOOLS}`);
  await child.ask({ type: 'stats' }); // settle: collect the start-up garbage
  return { child, server: { name: v.name, url: ready.url, pid: child.pid } };
}

const names = (values.variants ?? (values.before ? 'after,after-audit,before,before-audit' : 'after,after-audit')).split(',');
const variants = names.map(variantOf);
const started: { child: Child; server: Server }[] = [];
for (const v of variants) {
  started.push(await startVariant(v));
  log(`${v.name} up`);
}
const book = new RouteBook(started[0].server.url);
const sample = shuffled(
  Array.from({ length: TOOLS }, (_, i) => i),
  42,
).slice(0, 1000);
const o = { tools: TOOLS, sample, auth };
let scenarios = [...(await byIdScenarios(book, o)).filter((s) => s.name.endsWith('standard')), ...(await refusalScenarios(book, o))];
if (values.only) scenarios = scenarios.filter((s) => values.only!.split('|').some((w) => s.name.includes(w)));
const baselineChild = new Child('baseline', join(HERE, 'baseline.ts'), [book.write(tmp)]);
const baseReady = await baselineChild.next<{ type: 'ready'; url: string }>('ready');
const baseline: Server = { name: 'baseline', url: baseReady.url, pid: baselineChild.pid };
const load = await LoadGenerator.start(join(HERE, 'load.ts'));

const fmt = (xs: number[], d = 2) => `${median(xs).toFixed(d)} (${Math.min(...xs).toFixed(d)}–${Math.max(...xs).toFixed(d)})`;
const rows: string[] = [];
for (const s of scenarios) {
  const c = await compareInRounds(load, s, started.map((x) => x.server), baseline, { rounds: Number(values.rounds), duration: Number(values.duration), warmup: 0.5, onWrong: log });
  const baseCpu = c.runs.get(baseline)!.map((m) => m.cpuUsPerReq);
  log(`${s.name}: baseline ${median(c.runs.get(baseline)!.map((m) => m.rps)).toFixed(0)} req/s, ${median(baseCpu).toFixed(1)} µs/req`);
  for (const { server } of started) {
    const cpu = c.runs.get(server)!.map((m) => m.cpuUsPerReq);
    const row = `| ${s.name} | ${server.name} | ${fmt(c.ratios.get(server)!)} | ${fmt(c.cpuRatios.get(server)!)} | ${fmt(cpu, 1)} | ${median(baseCpu).toFixed(1)} |`;
    rows.push(row);
    log(row);
  }
}
for (const x of started) await x.child.stop();
await baselineChild.stop();
await load.stop();
process.stdout.write(
  [
    `${TOOLS} tools, ${values.rounds} alternating rounds of ${values.duration} s per server and scenario, 32 connections. Load average (1 min) during the run: median ${median(loads).toFixed(2)}, min ${Math.min(...loads).toFixed(2)}, max ${Math.max(...loads).toFixed(2)}.`,
    '',
    '| scenario | variant | req/s ÷ baseline | CPU ratio (baseline CPU ÷ variant CPU per request) | variant CPU µs/request | baseline CPU µs/request (median) |',
    '| --- | --- | --- | --- | --- | --- |',
    ...rows,
    '',
  ].join('\n'),
);
process.exit(0);
