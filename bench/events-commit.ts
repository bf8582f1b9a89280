// What a recorded call costs the SQLite event log, this tree against another
// checkout, alternating in one process (docs/benchmarks.md "Event log: what
// a commit costs"). A call is what tools/call records: a write-ahead commit
// of two events, then an answer commit of two (bench/events-append.ts has
// the same workload across triggers). Per round and arm: a fresh file, 50
// warm-up calls, then a pause (a checkpoint worker starts), then `--calls` calls by `--writers` concurrent writers;
// reported: process CPU (all threads: the fdatasync pool and the checkpoint
// worker included) per call and per commit, and the commits' latency
// (p50, p99, max) and the event loop's delay meanwhile, each median
// (min–max) over the rounds.
// Run: npx tsx bench/events-commit.ts --against DIR [--rounds 5] [--calls 3000] [--writers 1] [--synchronous full]
//   DIR: an older commit's tree (`git archive <commit> src | tar -x -C DIR`, node_modules linked).
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { monitorEventLoopDelay } from 'node:perf_hooks';

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : fallback;
}

const ROUNDS = Number(arg('rounds', '5'));
const CALLS = Number(arg('calls', '3000'));
const WRITERS = Number(arg('writers', '1'));
const SYNCHRONOUS = arg('synchronous', 'full');
const AGAINST = arg('against', '');
const WHO = { tenant: 'acme', principal: 'bench-agent' };
const TOOL = 'openwop:text.uppercase';

interface LogLike {
  groupStats(): { groups: number };
  close(): Promise<void>;
}
interface Arm {
  name: string;
  open(file: string): LogLike;
  session: { open(log: LogLike, who: typeof WHO, tool: string): SessionLike };
}
interface SessionLike {
  called(tool: string): string;
  commit(options: { writeAhead: boolean }): Promise<unknown>;
  returned(callId: string, tool: string, status: 'ok', ms: number): void;
  finish(outcome: 'completed'): Promise<unknown>;
}

async function armOf(name: string, root: string, options: Record<string, unknown>): Promise<Arm> {
  const log = await import(pathToFileURL(join(root, 'src/events/sqlite/log.ts')).href);
  const session = await import(pathToFileURL(join(root, 'src/events/session.ts')).href);
  return { name, open: (file) => log.EventLog.open(file, { synchronous: SYNCHRONOUS, ...options }), session: session.ToolSession };
}

interface Sample {
  cpuPerCallUs: number;
  cpuPerCommitUs: number;
  p50: number;
  p99: number;
  max: number;
  /** The event loop's delay (perf_hooks, 1 ms resolution): what a commit holding the main thread costs every other request. */
  loopP99: number;
  loopMax: number;
}

async function round(arm: Arm): Promise<Sample> {
  const dir = mkdtempSync(join(tmpdir(), 'toolhost-bench-commit-'));
  const log = arm.open(join(dir, 'events.sqlite'));
  const latencies: number[] = [];
  const call = async (measure: boolean) => {
    const s = arm.session.open(log, WHO, TOOL);
    const callId = s.called(TOOL);
    let t = performance.now();
    await s.commit({ writeAhead: true });
    if (measure) latencies.push(performance.now() - t);
    s.returned(callId, TOOL, 'ok', 0);
    t = performance.now();
    await s.finish('completed');
    if (measure) latencies.push(performance.now() - t);
  };
  try {
    for (let i = 0; i < 50; i++) await call(false);
    // A checkpoint worker's thread starts with the log: not part of a call's cost.
    await new Promise((r) => setTimeout(r, 300));
    const groups = log.groupStats().groups;
    let left = CALLS;
    const loop = monitorEventLoopDelay({ resolution: 1 });
    loop.enable();
    const cpu = process.cpuUsage();
    const writer = async () => {
      while (left-- > 0) await call(true);
    };
    await Promise.all(Array.from({ length: WRITERS }, writer));
    const used = process.cpuUsage(cpu);
    loop.disable();
    const commits = log.groupStats().groups - groups;
    latencies.sort((a, b) => a - b);
    const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))];
    const us = used.user + used.system;
    return { cpuPerCallUs: us / CALLS, cpuPerCommitUs: us / commits, p50: at(0.5), p99: at(0.99), max: latencies[latencies.length - 1], loopP99: loop.percentile(99) / 1e6, loopMax: loop.max / 1e6 };
  } finally {
    await log.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

const here = resolve(import.meta.dirname, '..');
const arms: Arm[] = [];
if (AGAINST !== '') arms.push(await armOf('against', resolve(AGAINST), {}));
arms.push(await armOf('this tree', here, {}));
arms.push(await armOf('this tree, checkpoints inline', here, { checkpoints: 'inline' }));

const samples = new Map<string, Sample[]>(arms.map((a) => [a.name, []]));
const loads: number[] = [];
for (let r = 0; r < ROUNDS; r++) {
  // Alternating: each round runs every arm, in a rotated order.
  for (let k = 0; k < arms.length; k++) {
    const arm = arms[(r + k) % arms.length];
    loads.push(loadavg()[0]);
    samples.get(arm.name)!.push(await round(arm));
  }
}

const spread = (xs: number[], digits: number) => {
  const s = [...xs].sort((a, b) => a - b);
  const f = (x: number) => x.toFixed(digits);
  return `${f(s[Math.floor((s.length - 1) / 2)])} (${f(s[0])}–${f(s[s.length - 1])})`;
};
console.log(`${new Date().toISOString()}: ${ROUNDS} rounds of ${CALLS} calls, ${WRITERS} writer(s), synchronous ${SYNCHRONOUS}; load average (1 min) ${spread(loads, 1)}`);
console.log('| arm | CPU µs per call | CPU µs per commit | commit p50 ms | commit p99 ms | commit max ms | event-loop delay p99 ms | its max ms |');
console.log('| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
for (const [name, xs] of samples) {
  console.log(`| ${name} | ${spread(xs.map((x) => x.cpuPerCallUs), 0)} | ${spread(xs.map((x) => x.cpuPerCommitUs), 0)} | ${spread(xs.map((x) => x.p50), 3)} | ${spread(xs.map((x) => x.p99), 2)} | ${spread(xs.map((x) => x.max), 1)} | ${spread(xs.map((x) => x.loopP99), 2)} | ${spread(xs.map((x) => x.loopMax), 1)} |`);
}
