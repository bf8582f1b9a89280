// The call benchmark: what a tools/call through toolhost's `/mcp` costs next
// to the same call made straight to the upstream (docs/benchmarks.md "A call
// through the front door"). Run alone or from bench/run.ts
// (`runCallScenarios`):
//
//   npx tsx bench/calls.ts [--smoke] [--calls N] [--rounds N] [--concurrency N] [--no-events-row] [--no-fast-calls] [--compare-roads]
//
// Processes (loopback only): server-everything over stdio, spawned by a plain
// SDK client (the direct reference) and by toolhost (bench/toolhost-child.ts,
// rate limits off, the audit line on as by default, events recorded in a
// SQLite file in a temp dir). Every client calls sequentially; rounds
// alternate the order of direct and front-door runs, and each figure is
// min–median–max over rounds.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { stringify } from 'yaml';
import { hashApiKey } from '../src/auth/api-keys.js';
import { callTable, type CallRow } from './call-report.js';
import { RawHttpClient, runSequential, sdkHttpClient, stdioClient, type CallClient, type CallTarget, type ClientRun } from './call-clients.js';
import { REPO_ROOT } from './config.js';
import { Child, cpuSeconds, get } from './procs.js';
import { median, percentile } from './shared.js';

export { callTable, type CallRow } from './call-report.js';

export interface CallScenarioOptions {
  /** Each scenario once with a handful of calls: checks the wiring, measures nothing. */
  smoke?: boolean;
  /** Sequential calls per client per round. */
  calls?: number;
  rounds?: number;
  /** Concurrent clients of the node-pack row. */
  concurrency?: number;
  /** Also measures the front door with no event log, to separate what recording costs. */
  eventsOffRow?: boolean;
  /** Also measures hosts with `mcp.fastCalls: false`, in the same rounds: the fast road's before and after. */
  compareRoads?: boolean;
  /** false: toolhost runs with `mcp.fastCalls: false` (every call through the SDK transport), for before/after figures. */
  fastCalls?: boolean;
  /** A directory for CPU profiles of toolhost during the front-door runs (BENCH_PROFILE). */
  profileDir?: string;
  log?: (line: string) => void;
}

const HERE = fileURLToPath(new URL('.', import.meta.url));
const EVERYTHING = join(REPO_ROOT, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');
const ECHO: CallTarget = { name: 'echo', arguments: { message: 'hello' } };
const ECHO_VIA_HOST: CallTarget = { name: 'mcp:everything.echo', arguments: { message: 'hello' } };
const UPPERCASE: CallTarget = { name: 'openwop:text.uppercase', arguments: { text: 'hello' } };
const TENANT = 'bench';

interface Host {
  child: Child;
  url: string;
  authorization: string;
  stop(): Promise<void>;
}

async function startHost(dir: string, events: boolean, fastCalls: boolean): Promise<Host> {
  const key = `bench-calls-${randomBytes(16).toString('hex')}`;
  const config = {
    mcp: { enabled: true, fastCalls },
    ...(events ? { events: { file: join(dir, 'events.sqlite') } } : {}),
    tenants: { [TENANT]: { description: 'call bench', tools: ['*'], rateLimit: false } },
    principals: [{ id: 'bench-caller', tenant: TENANT, scopes: [], keyHash: hashApiKey(key) }],
    policy: {
      rules: [
        { match: ['mcp:everything.echo', 'openwop:text.*'], safetyTier: 'pure', replayPolicy: 'deterministic', egress: 'none' },
        // Everything else server-everything lists stays as the default (write): not called here.
      ],
    },
    sources: {
      nodePacks: [{ path: join(REPO_ROOT, 'examples/demo/packs/text') }],
      mcp: [{ id: 'everything', transport: 'stdio', command: process.execPath, args: [EVERYTHING, 'stdio'], cwd: REPO_ROOT, refreshIntervalMs: 0 }],
    },
  };
  const file = join(dir, 'toolhost.yaml');
  writeFileSync(file, stringify(config));
  const child = new Child(events ? 'toolhost(calls)' : 'toolhost(calls, no events)', join(HERE, 'toolhost-child.ts'), [file, join(dir, 'toolhost.log')], (process.env.BENCH_NODE_FLAGS ?? '').split(' ').filter(Boolean));
  const ready = await child.next<{ type: 'ready'; url: string }>('ready');
  return { child, url: ready.url, authorization: `Bearer ${key}`, stop: () => child.stop() };
}

/** Every event of the tenant's stream, counted page by page. */
async function countEvents(host: Host): Promise<number> {
  let count = 0;
  // Sequences start at 0; -1 reads from the first event.
  let after = -1;
  for (;;) {
    const res = await get(host.url, `/events?after=${after}&limit=1000`, { authorization: host.authorization });
    if (res.status !== 200) throw new Error(`GET /events: HTTP ${res.status}`);
    const page = JSON.parse(res.body.toString('utf8')) as { events: unknown[]; next: number };
    if (page.events.length === 0) return count;
    count += page.events.length;
    after = page.next;
  }
}

interface Tally {
  p50Ms: number[];
  p99Ms: number[];
  callsPerSecond: number[];
  cpuMsPerCall: number[];
}

const tally = (): Tally => ({ p50Ms: [], p99Ms: [], callsPerSecond: [], cpuMsPerCall: [] });

function record(t: Tally, runs: ClientRun[], cpuSecondsUsed?: number): void {
  const all = runs.flatMap((r) => r.latenciesMs).sort((a, b) => a - b);
  const wall = Math.max(...runs.map((r) => r.wallMs));
  t.p50Ms.push(percentile(all, 50));
  t.p99Ms.push(percentile(all, 99));
  t.callsPerSecond.push((all.length / wall) * 1000);
  if (cpuSecondsUsed !== undefined) t.cpuMsPerCall.push((cpuSecondsUsed * 1000) / all.length);
  const errors = runs.reduce((s, r) => s + r.errors, 0);
  if (errors > 0) throw new Error(`${errors} calls answered isError`);
}

/** `clients` clients, each warmed up, then calling at once; closed afterwards. */
async function measureClients(open: () => Promise<CallClient>, clients: number, target: CallTarget, warmup: number, calls: number): Promise<ClientRun[]> {
  const opened = await Promise.all(Array.from({ length: clients }, open));
  try {
    await Promise.all(opened.map((c) => runSequential(c, target, warmup)));
    return await Promise.all(opened.map((c) => runSequential(c, target, calls)));
  } finally {
    await Promise.all(opened.map((c) => c.close()));
  }
}

/** One toolhost of the comparison: with or without an event log, on the fast road or the SDK transport's. */
interface Variant {
  label: string;
  events: boolean;
  fastCalls: boolean;
  host?: Host;
  raw: Tally;
  sdk: Tally;
  pack: Tally;
}

export async function runCallScenarios(options: CallScenarioOptions = {}): Promise<CallRow[]> {
  const smoke = options.smoke ?? false;
  const calls = options.calls ?? (smoke ? 5 : 2000);
  const rounds = options.rounds ?? (smoke ? 1 : 3);
  const concurrency = options.concurrency ?? (smoke ? 2 : 16);
  const warmup = smoke ? 1 : Math.min(200, calls);
  const log = options.log ?? (() => undefined);
  const tmp = mkdtempSync(join(os.tmpdir(), 'toolhost-bench-calls-'));
  const direct = tally();
  const packN = tally();
  const variant = (label: string, events: boolean, fastCalls: boolean): Variant => ({ label, events, fastCalls, raw: tally(), sdk: tally(), pack: tally() });
  const fastRoad = options.fastCalls ?? true;
  const variants = [variant('', true, fastRoad)];
  if (options.eventsOffRow) variants.push(variant('no event log', false, fastRoad));
  if (options.compareRoads && fastRoad) variants.push(variant('SDK transport road (mcp.fastCalls: false)', true, false), variant('SDK transport road, no event log', false, false));
  const main = variants[0];
  try {
    for (const v of variants) v.host = await startHost(mkdtempSync(join(tmp, 'host-')), v.events, v.fastCalls);
    const host = main.host!;
    const viaRaw = (h: Host) => () => RawHttpClient.open(h.url, h.authorization);
    const profile = async (what: 'start' | 'stop', name: string) => {
      if (options.profileDir === undefined) return;
      await host.child.ask(what === 'start' ? { type: 'profile-start' } : { type: 'profile-stop', file: join(options.profileDir, `calls_${name}.toolhost.cpuprofile`) }, `profile-${what}`);
    };
    /** Calls made through the main host, warm-up included: what its event count is divided by. */
    let hostCalls = 0;
    /** Runs clients against a host and records them, with the host's CPU time over the measured calls. */
    const viaHost = async (h: Host, t: Tally, open: () => Promise<CallClient>, clients: number, target: CallTarget, n: number) => {
      const opened = await Promise.all(Array.from({ length: clients }, open));
      try {
        await Promise.all(opened.map((c) => runSequential(c, target, warmup)));
        const cpu0 = cpuSeconds(h.child.pid);
        const runs = await Promise.all(opened.map((c) => runSequential(c, target, n)));
        record(t, runs, cpuSeconds(h.child.pid) - cpu0);
      } finally {
        await Promise.all(opened.map((c) => c.close()));
      }
      if (h === host) hostCalls += clients * (warmup + n);
    };
    for (let round = 0; round < rounds; round++) {
      const runDirect = async () => record(direct, await measureClients(() => stdioClient(process.execPath, [EVERYTHING, 'stdio'], REPO_ROOT), 1, ECHO, warmup, calls));
      const runHosts = async () => {
        // Each round visits the hosts in another order.
        for (const v of round % 2 === 0 ? variants : [...variants].reverse()) {
          const h = v.host!;
          if (v === main) await profile('start', 'raw');
          await viaHost(h, v.raw, viaRaw(h), 1, ECHO_VIA_HOST, calls);
          if (v === main) await profile('stop', 'raw');
          if (v.events) await viaHost(h, v.sdk, () => sdkHttpClient(h.url, h.authorization), 1, ECHO_VIA_HOST, calls);
          if (v.events) await viaHost(h, v.pack, viaRaw(h), 1, UPPERCASE, calls);
        }
      };
      // Alternating order, so neither side always runs on a machine the other has just warmed.
      if (round % 2 === 0) {
        await runDirect();
        await runHosts();
      } else {
        await runHosts();
        await runDirect();
      }
      await profile('start', 'node_pack');
      await viaHost(host, packN, viaRaw(host), concurrency, UPPERCASE, Math.ceil((calls * 2) / concurrency));
      await profile('stop', 'node_pack');
      log(
        `calls round ${round + 1}/${rounds}: direct p50 ${direct.p50Ms.at(-1)!.toFixed(2)} ms; ` +
          variants.map((v) => `[${v.label || 'toolhost'}] raw ${v.raw.p50Ms.at(-1)!.toFixed(2)} ms${v.events ? `, SDK ${v.sdk.p50Ms.at(-1)!.toFixed(2)} ms, node-pack ${v.pack.callsPerSecond.at(-1)!.toFixed(0)}/s` : ''}`).join('; ') +
          `; node-pack ×${concurrency} ${packN.callsPerSecond.at(-1)!.toFixed(0)}/s`,
      );
    }
    const eventsPerCall = (await countEvents(host)) / hostCalls;
    return rows({ direct, variants, packN, concurrency, eventsPerCall, smoke });
  } finally {
    await Promise.all(variants.map((v) => v.host?.stop()));
    rmSync(tmp, { recursive: true, force: true });
  }
}

function rows(t: { direct: Tally; variants: Variant[]; packN: Tally; concurrency: number; eventsPerCall: number; smoke: boolean }): CallRow[] {
  const directP50 = median(t.direct.p50Ms);
  const directRate = median(t.direct.callsPerSecond);
  const [main] = t.variants;
  const judged = (name: string, x: Tally, judge: boolean): CallRow => {
    const added = median(x.p50Ms) - directP50;
    const share = median(x.callsPerSecond) / directRate;
    return {
      name,
      ...x,
      eventsPerCall: judge ? t.eventsPerCall : undefined,
      target: judge ? '< 1 ms added p50, ≥ 0.5× direct calls/s' : undefined,
      met: judge && !t.smoke ? added < 1 && share >= 0.5 : undefined,
      note: `added p50 ${added.toFixed(2)} ms, ${share.toFixed(2)}× direct calls/s`,
    };
  };
  const pack = (name: string, x: Tally, judge: boolean): CallRow => ({
    name,
    ...x,
    eventsPerCall: judge ? t.eventsPerCall : undefined,
    target: judge ? '≥ 2,000 calls/s' : undefined,
    met: judge && !t.smoke ? median(x.callsPerSecond) >= 2000 : undefined,
  });
  const out: CallRow[] = [{ name: 'echo, direct over stdio (SDK client)', ...t.direct }];
  for (const v of t.variants) {
    const suffix = v.label ? `, ${v.label}` : '';
    const judge = v === main;
    out.push(judged(`echo through /mcp, raw keep-alive HTTP client${suffix}`, v.raw, judge));
    if (v.events) out.push(judged(`echo through /mcp, SDK client (Streamable HTTP)${suffix}`, v.sdk, judge));
  }
  for (const v of t.variants) if (v.events) out.push(pack(`node-pack tool through /mcp, 1 raw client${v.label ? `, ${v.label}` : ''}`, v.pack, v === main));
  out.push(pack(`node-pack tool through /mcp, ${t.concurrency} raw clients`, t.packN, true));
  return out;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const argv = process.argv.slice(2);
  const opt = (name: string) => {
    const i = argv.indexOf(`--${name}`);
    return i >= 0 ? Number(argv[i + 1]) : undefined;
  };
  const load = [os.loadavg()[0]];
  const timer = setInterval(() => load.push(os.loadavg()[0]), 5000);
  const started = Date.now();
  runCallScenarios({
    smoke: argv.includes('--smoke'),
    calls: opt('calls'),
    rounds: opt('rounds'),
    concurrency: opt('concurrency'),
    eventsOffRow: !argv.includes('--no-events-row'),
    fastCalls: !argv.includes('--no-fast-calls'),
    compareRoads: argv.includes('--compare-roads'),
    profileDir: process.env.BENCH_PROFILE,
    log: (line) => process.stderr.write(`[calls] ${((Date.now() - started) / 1000).toFixed(1).padStart(6)} s  ${line}\n`),
  }).then(
    (rows) => {
      clearInterval(timer);
      process.stdout.write(`${callTable(rows)}\n\nLoad average (1 min) during the run: median ${median(load).toFixed(2)}, min ${Math.min(...load).toFixed(2)}, max ${Math.max(...load).toFixed(2)}.\n`);
      process.exit(0);
    },
    (err: unknown) => {
      process.stderr.write(`call bench failed: ${err instanceof Error ? err.stack : String(err)}\n`);
      process.exit(1);
    },
  );
}
