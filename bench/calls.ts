// The call benchmark: what a tools/call through toolhost's `/mcp` costs next
// to the same call made straight to the upstream and through the two proxies
// people put in front of a stdio server (docs/benchmarks.md "A call through
// the front door", "Against the proxies"). Run alone or from bench/run.ts
// (`runCallScenarios`); `npm run build` first (toolhost runs compiled):
//
//   npx tsx bench/calls.ts [--smoke] [--calls N] [--rounds N] [--concurrency N] [--no-events-row] [--no-normal-row] [--no-write-ahead-row] [--no-proxies] [--no-fast-calls] [--compare-roads]
//
// Processes (loopback only): server-everything over stdio, spawned by a plain
// SDK client (the direct reference), by toolhost (bench/toolhost-child.ts,
// compiled on dist/ as users run it (bench/compiled-child.ts), rate limits
// off, the audit line on as by default, events recorded in a SQLite file in
// a temp dir, `events.synchronous: full` and a second host with `normal`) and
// by supergateway and mcp-proxy (bench/proxies.ts). The same raw client calls
// every HTTP server. Every client calls sequentially; rounds alternate the
// order of the parties, and each figure is min–median–max over rounds.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { callTable, cpuShareTable, proxyTargets, ROW, type CallRow } from './call-report.js';
import { countEvents, EVERYTHING, startHost, type Host } from './call-hosts.js';
import { PROXIES, startProxy, type Proxy } from './proxies.js';
import { LoadSampler, targetsTable } from './targets.js';
import { RawHttpClient, runSequential, sdkHttpClient, stdioClient, type CallClient, type CallTarget, type ClientRun } from './call-clients.js';
import { REPO_ROOT } from './config.js';
import { cpuSeconds, descendantsCpuSeconds } from './procs.js';
import { median, percentile } from './shared.js';

export { callTable, cpuShareTable, proxyTargets, type CallRow } from './call-report.js';

export interface CallScenarioOptions {
  /** Each scenario once with a handful of calls: checks the wiring, measures nothing. */
  smoke?: boolean;
  /** Sequential calls per client per round. */
  calls?: number;
  rounds?: number;
  /** Concurrent clients of the many-clients rows (node-pack, and echo through toolhost and each proxy). */
  concurrency?: number;
  /** false: no supergateway and mcp-proxy rows. */
  proxies?: boolean;
  /** false: no second host with `events.synchronous: normal`. */
  normalRow?: boolean;
  /** false: no host with `events.writeAhead: changes`. */
  writeAheadRow?: boolean;
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

const ECHO: CallTarget = { name: 'echo', arguments: { message: 'hello' } };
const ECHO_VIA_HOST: CallTarget = { name: 'mcp:everything.echo', arguments: { message: 'hello' } };
const UPPERCASE: CallTarget = { name: 'openwop:text.uppercase', arguments: { text: 'hello' } };
/** The node-pack rows' targets: 1 client, and the many-clients row. */
const PACK_ONE_TARGET = 2000;
const PACK_MANY_TARGET = 3000;

interface Tally {
  p50Ms: number[];
  p99Ms: number[];
  callsPerSecond: number[];
  cpuMsPerCall: number[];
  /** The CPU per call of the processes the server spawned (its upstreams), and of this process (the clients). */
  upstreamCpuMsPerCall: number[];
  clientCpuMsPerCall: number[];
}

const tally = (): Tally => ({ p50Ms: [], p99Ms: [], callsPerSecond: [], cpuMsPerCall: [], upstreamCpuMsPerCall: [], clientCpuMsPerCall: [] });

/** Where the CPU of one measured run went: the server, the processes it spawned, the clients (this process). */
interface CpuUse {
  server: number;
  upstreams: number;
  clients: number;
}

function record(t: Tally, runs: ClientRun[], cpu?: CpuUse): void {
  const all = runs.flatMap((r) => r.latenciesMs).sort((a, b) => a - b);
  const wall = Math.max(...runs.map((r) => r.wallMs));
  t.p50Ms.push(percentile(all, 50));
  t.p99Ms.push(percentile(all, 99));
  t.callsPerSecond.push((all.length / wall) * 1000);
  if (cpu !== undefined) {
    t.cpuMsPerCall.push((cpu.server * 1000) / all.length);
    t.upstreamCpuMsPerCall.push((cpu.upstreams * 1000) / all.length);
    t.clientCpuMsPerCall.push((cpu.clients * 1000) / all.length);
  }
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
  /** `normal`: the host runs with `events.synchronous: normal` (raw echo row only); unset: the default, `full`. */
  synchronous?: 'normal';
  /** `changes`: `events.writeAhead: changes` (raw echo and node-pack rows: both tools are pure here, so one commit a call). */
  writeAhead?: 'changes';
  /** Events its log holds per call made through it, counted back at the end. */
  eventsPerCall?: number;
  host?: Host;
  raw: Tally;
  sdk: Tally;
  pack: Tally;
}

/** One proxy of the comparison and its two rows: one client, and many at once. */
interface ProxyRun {
  proxy: Proxy;
  one: Tally;
  many: Tally;
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
  const echoN = tally();
  const variant = (label: string, events: boolean, fastCalls: boolean, synchronous?: 'normal', writeAhead?: 'changes'): Variant => ({ label, events, fastCalls, synchronous, writeAhead, raw: tally(), sdk: tally(), pack: tally() });
  const fastRoad = options.fastCalls ?? true;
  const variants = [variant('', true, fastRoad)];
  if (options.normalRow ?? true) variants.push(variant('events.synchronous: normal', true, fastRoad, 'normal'));
  if (options.writeAheadRow ?? true) variants.push(variant('events.writeAhead: changes', true, fastRoad, undefined, 'changes'));
  if (options.eventsOffRow) variants.push(variant('no event log', false, fastRoad));
  if (options.compareRoads && fastRoad) variants.push(variant('SDK transport road (mcp.fastCalls: false)', true, false), variant('SDK transport road, no event log', false, false));
  const main = variants[0];
  const proxies: ProxyRun[] = [];
  const compiled = join(tmp, 'compiled');
  try {
    for (const v of variants) v.host = await startHost(mkdtempSync(join(tmp, 'host-')), v, compiled);
    for (const name of options.proxies === false ? [] : PROXIES) proxies.push({ proxy: await startProxy(name, process.execPath, [EVERYTHING, 'stdio'], REPO_ROOT), one: tally(), many: tally() });
    const host = main.host!;
    const viaRaw = (url: string, authorization: string) => () => RawHttpClient.open(url, authorization);
    const profile = async (what: 'start' | 'stop', name: string) => {
      if (options.profileDir === undefined) return;
      await host.child.ask(what === 'start' ? { type: 'profile-start' } : { type: 'profile-stop', file: join(options.profileDir, `calls_${name}.toolhost.cpuprofile`) }, `profile-${what}`);
    };
    /** Calls made through each host, warm-up included: what its event count is divided by. */
    const hostCalls = new Map<number, number>();
    /** Runs clients against a server and records them, with the server process's CPU time over the measured calls. */
    const viaServer = async (pid: number, t: Tally, open: () => Promise<CallClient>, clients: number, target: CallTarget, n: number) => {
      const opened = await Promise.all(Array.from({ length: clients }, open));
      try {
        await Promise.all(opened.map((c) => runSequential(c, target, warmup)));
        const [server0, upstreams0, clients0] = [cpuSeconds(pid), descendantsCpuSeconds(pid), process.cpuUsage()];
        const runs = await Promise.all(opened.map((c) => runSequential(c, target, n)));
        const clients = process.cpuUsage(clients0);
        record(t, runs, { server: cpuSeconds(pid) - server0, upstreams: descendantsCpuSeconds(pid) - upstreams0, clients: (clients.user + clients.system) / 1e6 });
      } finally {
        await Promise.all(opened.map((c) => c.close()));
      }
      hostCalls.set(pid, (hostCalls.get(pid) ?? 0) + clients * (warmup + n));
    };
    const viaHost = (h: Host, t: Tally, open: () => Promise<CallClient>, clients: number, target: CallTarget, n: number) => viaServer(h.child.pid, t, open, clients, target, n);
    const manyCalls = Math.ceil((calls * 2) / concurrency);
    for (let round = 0; round < rounds; round++) {
      /** Each round visits the parties in another order, so none always runs on a machine another has just warmed. */
      const inTurn = async (parties: Array<() => Promise<void>>) => {
        for (const party of round % 2 === 0 ? parties : [...parties].reverse()) await party();
      };
      const runDirect = async () => record(direct, await measureClients(() => stdioClient(process.execPath, [EVERYTHING, 'stdio'], REPO_ROOT), 1, ECHO, warmup, calls));
      const runHost = (v: Variant) => async () => {
        const h = v.host!;
        if (v === main) await profile('start', 'raw');
        await viaHost(h, v.raw, viaRaw(h.url, h.authorization), 1, ECHO_VIA_HOST, calls);
        if (v === main) await profile('stop', 'raw');
        if (v.events && v.synchronous === undefined) {
          if (v.writeAhead === undefined) await viaHost(h, v.sdk, () => sdkHttpClient(h.url, h.authorization), 1, ECHO_VIA_HOST, calls);
          await viaHost(h, v.pack, viaRaw(h.url, h.authorization), 1, UPPERCASE, calls);
        }
      };
      const runProxy = (p: ProxyRun) => () => viaServer(p.proxy.pid, p.one, viaRaw(p.proxy.url, ''), 1, ECHO, calls);
      await inTurn([runDirect, ...variants.map(runHost), ...proxies.map(runProxy)]);
      // Many clients at once: the node-pack tool, then echo through toolhost and through each proxy.
      await inTurn([
        async () => {
          await profile('start', 'node_pack');
          await viaHost(host, packN, viaRaw(host.url, host.authorization), concurrency, UPPERCASE, manyCalls);
          await profile('stop', 'node_pack');
        },
        () => viaHost(host, echoN, viaRaw(host.url, host.authorization), concurrency, ECHO_VIA_HOST, manyCalls),
        ...proxies.map((p) => () => viaServer(p.proxy.pid, p.many, viaRaw(p.proxy.url, ''), concurrency, ECHO, manyCalls)),
      ]);
      log(
        `calls round ${round + 1}/${rounds}: direct p50 ${direct.p50Ms.at(-1)!.toFixed(2)} ms; ` +
          variants.map((v) => `[${v.label || 'toolhost'}] raw ${v.raw.p50Ms.at(-1)!.toFixed(2)} ms ${v.raw.callsPerSecond.at(-1)!.toFixed(0)}/s${v.sdk.p50Ms.length ? `, SDK ${v.sdk.p50Ms.at(-1)!.toFixed(2)} ms` : ''}${v.pack.p50Ms.length ? `, node-pack ${v.pack.callsPerSecond.at(-1)!.toFixed(0)}/s` : ''}`).join('; ') +
          proxies.map((p) => `; [${p.proxy.name}] ${p.one.p50Ms.at(-1)!.toFixed(2)} ms ${p.one.callsPerSecond.at(-1)!.toFixed(0)}/s, ×${concurrency} ${p.many.callsPerSecond.at(-1)!.toFixed(0)}/s`).join('') +
          `; toolhost ×${concurrency}: node-pack ${packN.callsPerSecond.at(-1)!.toFixed(0)}/s, echo ${echoN.callsPerSecond.at(-1)!.toFixed(0)}/s`,
      );
    }
    for (const v of variants) if (v.events) v.eventsPerCall = (await countEvents(v.host!)) / hostCalls.get(v.host!.child.pid)!;
    return rows({ direct, variants, packN, echoN, proxies, concurrency, smoke });
  } finally {
    await Promise.all([...variants.map((v) => v.host?.stop()), ...proxies.map((p) => p.proxy.stop())]);
    rmSync(tmp, { recursive: true, force: true });
  }
}

function rows(t: { direct: Tally; variants: Variant[]; packN: Tally; echoN: Tally; proxies: ProxyRun[]; concurrency: number; smoke: boolean }): CallRow[] {
  const directP50 = median(t.direct.p50Ms);
  const directRate = median(t.direct.callsPerSecond);
  const [main] = t.variants;
  const judged = (name: string, x: Tally, v: Variant): CallRow => {
    const added = median(x.p50Ms) - directP50;
    const share = median(x.callsPerSecond) / directRate;
    const judge = v === main;
    return {
      name,
      ...x,
      eventsPerCall: v.eventsPerCall,
      target: judge ? '< 1 ms added p50, ≥ 0.5× direct calls/s' : undefined,
      met: judge && !t.smoke ? added < 1 && share >= 0.5 : undefined,
      note: `added p50 ${added.toFixed(2)} ms, ${share.toFixed(2)}× direct calls/s`,
    };
  };
  const pack = (name: string, x: Tally, v: Variant, wanted: number): CallRow => ({
    name,
    ...x,
    eventsPerCall: v.eventsPerCall,
    target: v === main ? `≥ ${wanted.toLocaleString('en-US')} calls/s` : undefined,
    met: v === main && !t.smoke ? median(x.callsPerSecond) >= wanted : undefined,
  });
  const labelled = (name: string, v: Variant) => (v.label ? `${name}, ${v.label}` : name);
  const out: CallRow[] = [{ name: ROW.direct, ...t.direct }];
  for (const v of t.variants) {
    out.push(v.synchronous === 'normal' ? { name: ROW.rawNormal, ...v.raw, eventsPerCall: v.eventsPerCall } : judged(labelled(ROW.raw, v), v.raw, v));
    if (v.sdk.p50Ms.length > 0) out.push(judged(labelled(ROW.sdk, v), v.sdk, v));
  }
  for (const p of t.proxies) out.push({ name: ROW.viaProxy(p.proxy.name), ...p.one });
  for (const v of t.variants) if (v.pack.p50Ms.length > 0) out.push(pack(labelled(ROW.pack, v), v.pack, v, PACK_ONE_TARGET));
  out.push(pack(ROW.packMany(t.concurrency), t.packN, main, PACK_MANY_TARGET));
  out.push({ name: ROW.many(t.concurrency), ...t.echoN, eventsPerCall: main.eventsPerCall });
  for (const p of t.proxies) out.push({ name: ROW.manyViaProxy(p.proxy.name, t.concurrency), ...p.many });
  return out;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const argv = process.argv.slice(2);
  const opt = (name: string) => {
    const i = argv.indexOf(`--${name}`);
    return i >= 0 ? Number(argv[i + 1]) : undefined;
  };
  const load = new LoadSampler();
  const started = Date.now();
  const concurrency = opt('concurrency');
  runCallScenarios({
    smoke: argv.includes('--smoke'),
    calls: opt('calls'),
    rounds: opt('rounds'),
    concurrency,
    eventsOffRow: !argv.includes('--no-events-row'),
    normalRow: !argv.includes('--no-normal-row'),
    writeAheadRow: !argv.includes('--no-write-ahead-row'),
    proxies: !argv.includes('--no-proxies'),
    fastCalls: !argv.includes('--no-fast-calls'),
    compareRoads: argv.includes('--compare-roads'),
    profileDir: process.env.BENCH_PROFILE,
    log: (line) => process.stderr.write(`[calls] ${((Date.now() - started) / 1000).toFixed(1).padStart(6)} s  ${line}\n`),
  }).then(
    (rows) => {
      load.stop();
      const clients = concurrency ?? (argv.includes('--smoke') ? 2 : 16);
      process.stdout.write(`${callTable(rows)}\n\n${cpuShareTable(rows)}\n\n${targetsTable(proxyTargets(rows, clients), load)}\n\nLoad average (1 min) during the run: median ${median(load.within()).toFixed(2)}, min ${Math.min(...load.within()).toFixed(2)}, max ${Math.max(...load.within()).toFixed(2)}.\n`);
      process.exit(0);
    },
    (err: unknown) => {
      process.stderr.write(`call bench failed: ${err instanceof Error ? err.stack : String(err)}\n`);
      process.exit(1);
    },
  );
}
