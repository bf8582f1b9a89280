// One measured run of a scenario against one server: the load generator
// (bench/load.ts, its own process) drives it, and the server's CPU time over
// the run is read from /proc, so every figure has its CPU cost per request
// beside its rate. Also the alternating comparison of servers in rounds.
import type { LoadJob, LoadResult } from './load.js';
import { Child, cpuSeconds } from './procs.js';
import type { Scenario } from './scenarios.js';

export interface Measured extends LoadResult {
  /** Server CPU microseconds per request (all threads). */
  cpuUsPerReq: number;
}

export interface Server {
  name: string;
  url: string;
  pid: number;
}

export interface MeasureOptions {
  overallRate?: number;
  connections?: number;
  /** A fixed number of requests per connection (the smoke run: answered however loaded the machine). */
  perConnection?: number;
}

export class LoadGenerator {
  private jobId = 0;

  private constructor(private readonly child: Child) {}

  static async start(script: string): Promise<LoadGenerator> {
    const child = new Child('load', script);
    await child.next('ready');
    return new LoadGenerator(child);
  }

  private async run(job: LoadJob): Promise<LoadResult> {
    const id = ++this.jobId;
    const reply = await this.child.ask<{ type: 'result'; id: number; result?: LoadResult; error?: string }>({ type: 'run', id, job }, 'result', (job.duration + 60) * 1000);
    if (reply.error || !reply.result) throw new Error(`load: ${reply.error}`);
    return reply.result;
  }

  /** Runs `s` against `server` for `duration` seconds; `onWrong` hears of any unexpected status or error. */
  async measure(server: Server, s: Scenario, duration: number, o: MeasureOptions = {}, onWrong?: (line: string) => void): Promise<Measured> {
    const connections = o.connections ?? s.connections;
    const cpu0 = cpuSeconds(server.pid);
    const r = await this.run({
      url: server.url,
      connections,
      duration,
      requests: s.requests,
      ...(o.overallRate ? { overallRate: o.overallRate } : {}),
      ...(o.perConnection ? { amount: connections * o.perConnection } : {}),
    });
    const cpu = cpuSeconds(server.pid) - cpu0;
    const wrong = Object.entries(r.statuses).filter(([code]) => Number(code) !== s.expect);
    if (wrong.length > 0 || r.errors > 0) onWrong?.(`${s.name} @ ${server.name}: unexpected ${JSON.stringify(Object.fromEntries(wrong))}, ${r.errors} errors`);
    return { ...r, cpuUsPerReq: (cpu * 1e6) / Math.max(1, r.requests) };
  }

  stop(): Promise<void> {
    return this.child.stop();
  }
}

/** Each server's runs of one scenario, and their ratios to the baseline's run in the same round. */
export interface Compared {
  scenario: Scenario;
  runs: Map<Server, Measured[]>;
  /** server rps ÷ baseline rps, per round. */
  ratios: Map<Server, number[]>;
  /** baseline CPU per request ÷ server CPU per request, per round. */
  cpuRatios: Map<Server, number[]>;
}

export interface CompareOptions {
  rounds: number;
  duration: number;
  warmup: number;
  perConnection?: number;
  onWrong?: (line: string) => void;
}

/**
 * Measures `s` on every server, `rounds` times, the order alternating from
 * round to round (A B C, C B A, ...), after a warm-up run of each; ratios are
 * to `baseline`'s run of the same round.
 */
export async function compareInRounds(load: LoadGenerator, s: Scenario, servers: Server[], baseline: Server, o: CompareOptions): Promise<Compared> {
  const all = [baseline, ...servers.filter((x) => x !== baseline)];
  const m: MeasureOptions = { perConnection: o.perConnection };
  if (o.warmup > 0) for (const x of all) await load.measure(x, s, o.warmup, m);
  const out: Compared = { scenario: s, runs: new Map(all.map((x) => [x, []])), ratios: new Map(), cpuRatios: new Map() };
  for (const x of servers) {
    out.ratios.set(x, []);
    out.cpuRatios.set(x, []);
  }
  for (let r = 0; r < o.rounds; r++) {
    const order = r % 2 === 0 ? all : [...all].reverse();
    const got = new Map<Server, Measured>();
    for (const x of order) got.set(x, await load.measure(x, s, s.duration ?? o.duration, m, o.onWrong));
    const b = got.get(baseline)!;
    for (const [x, run] of got) {
      out.runs.get(x)!.push(run);
      if (x === baseline) continue;
      out.ratios.get(x)!.push(run.rps / b.rps);
      out.cpuRatios.get(x)!.push(b.cpuUsPerReq / run.cpuUsPerReq);
    }
  }
  return out;
}
