// The load generator, in its own process (never the server's): autocannon,
// keep-alive, one job at a time over IPC.
//   <- { type: 'run', id, job: LoadJob }  -> { type: 'result', id, result: LoadResult }
import { createRequire } from 'node:module';
import type { EventEmitter } from 'node:events';
import { percentile } from './shared.js';

// autocannon ships no type declarations: the part used here, typed.
interface AutocannonResult {
  duration: number;
  requests: { total: number };
  throughput: { total: number };
  errors: number;
  timeouts: number;
  statusCodeStats?: Record<string, { count: number }>;
}
type Autocannon = (opts: Record<string, unknown>, cb: (err: Error | null, result: AutocannonResult) => void) => EventEmitter;
const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon;

export interface LoadJob {
  url: string;
  connections: number;
  /** Seconds. */
  duration: number;
  /** Headers sent with every request. */
  headers?: Record<string, string>;
  /** Requests cycled through in order by every connection (a pre-shuffled list gives random ids). */
  requests: { path: string; headers?: Record<string, string> }[];
  /** Requests per second over all connections; absent: as fast as the server answers. */
  overallRate?: number;
  /** Requests in all (at least one per connection): the run ends when they are answered, whatever the duration. */
  amount?: number;
}

export interface LoadResult {
  requests: number;
  seconds: number;
  rps: number;
  bytesPerSec: number;
  /** Milliseconds, from every response's own timing (no coordinated-omission correction). */
  p50: number;
  p99: number;
  max: number;
  errors: number;
  timeouts: number;
  statuses: Record<string, number>;
}

function run(job: LoadJob): Promise<LoadResult> {
  return new Promise((resolve, reject) => {
    let lat = new Float64Array(1 << 16);
    let n = 0;
    const instance = autocannon(
      {
        url: job.url,
        connections: job.connections,
        duration: job.duration,
        headers: job.headers ?? {},
        requests: job.requests.map((r) => ({ method: 'GET', path: r.path, ...(r.headers ? { headers: r.headers } : {}) })),
        ...(job.overallRate ? { overallRate: job.overallRate } : {}),
        ...(job.amount ? { amount: job.amount } : {}),
        timeout: 30,
        // autocannon stops only at a sample tick (1 s by default): tick often, so a run lasts what was asked.
        sampleInt: job.amount ? 5 : 100,
      },
      (err, result) => {
        if (err) return reject(err);
        const sorted = lat.subarray(0, n).sort();
        const seconds = result.duration;
        const statuses: Record<string, number> = {};
        for (const [code, v] of Object.entries(result.statusCodeStats ?? {})) statuses[code] = v.count;
        resolve({
          requests: result.requests.total,
          seconds,
          rps: result.requests.total / seconds,
          bytesPerSec: result.throughput.total / seconds,
          p50: percentile(sorted, 50),
          p99: percentile(sorted, 99),
          max: n > 0 ? sorted[n - 1] : NaN,
          errors: result.errors,
          timeouts: result.timeouts,
          statuses,
        });
      },
    );
    instance.on('response', (_client: unknown, _status: number, _bytes: number, responseTime: number) => {
      if (n === lat.length) {
        const bigger = new Float64Array(lat.length * 2);
        bigger.set(lat);
        lat = bigger;
      }
      lat[n++] = responseTime;
    });
  });
}

process.on('message', (msg: { type: string; id: number; job: LoadJob }) => {
  if (msg.type === 'run') {
    run(msg.job).then(
      (result) => process.send?.({ type: 'result', id: msg.id, result }),
      (err: unknown) => process.send?.({ type: 'result', id: msg.id, error: String(err) }),
    );
  } else if (msg.type === 'stop') process.exit(0);
});
process.send?.({ type: 'ready', pid: process.pid });
