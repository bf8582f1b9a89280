// The PostgreSQL event store as several replicas use it (docs/benchmarks.md
// "Event store on PostgreSQL"): three writer processes, each with its own
// store (pool and LISTEN connection), append a call's record (two events)
// from many concurrent sessions against one real PostgreSQL 15 (fsync on,
// synchronous_commit on); meanwhile this process appends a probe event every
// 10 ms through one store and times its arrival at a subscriber of another
// store (NOTIFY, then a read): the live-feed delay between replicas.
//
//   npx tsx bench/pg-events.ts [--seconds 10] [--concurrency 64] [--writers 3]
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { PostgresEventStore } from '../src/events/postgres/store.js';
import type { AppendInput } from '../src/events/event-types.js';
import { startPostgres } from '../test/helpers/postgres.js';

const self = fileURLToPath(import.meta.url);

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
}

function callRecord(tenant: string, sessionId: string): AppendInput[] {
  const base = { tenant, principal: `${tenant}-agent`, sessionId };
  return [
    { ...base, type: 'agent.toolReturned', payload: { sessionId, toolId: 'demo.echo', callId: `${sessionId}-1`, status: 'ok', durationMs: 0.4 } },
    { ...base, type: 'tool.session.closed', payload: { sessionId, toolId: 'demo.echo', outcome: 'completed' } },
  ];
}

/** One writer replica: appends call records for `seconds`, then reports how many events it got acknowledged. */
async function writer(url: string, id: number, seconds: number, concurrency: number): Promise<void> {
  const store = await PostgresEventStore.open({ url });
  // Ready, then wait for the parent's go: every writer starts at once, whatever its start-up took.
  process.send!({ ready: true });
  await new Promise((r) => process.once('message', r));
  const tenants = ['acme', 'globex', 'initech', 'umbrella'];
  let events = 0;
  const latencies: number[] = [];
  const until = performance.now() + seconds * 1000;
  await Promise.all(
    Array.from({ length: concurrency }, async (_, c) => {
      for (let i = 0; performance.now() < until; i++) {
        const t0 = performance.now();
        const stored = await store.append(callRecord(tenants[(c + i) % tenants.length], `w${id}-${c}-${i}`));
        events += stored.length;
        latencies.push(performance.now() - t0);
      }
    }),
  );
  await store.close();
  process.send!({ events, latencies: summarize(latencies) });
}

function summarize(values: number[]): { p50: number; p99: number; n: number } {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN;
  return { p50: round(at(0.5)), p99: round(at(0.99)), n: sorted.length };
}

const round = (x: number) => Math.round(x * 100) / 100;

/** Probe events appended through `from`, timed from acknowledgement to delivery at a subscriber of `to`. */
async function probeDelays(from: PostgresEventStore, to: PostgresEventStore, seconds: number): Promise<number[]> {
  const acked = new Map<string, number>();
  const delays: number[] = [];
  const early = new Map<string, number>();
  const unsubscribe = to.subscribe('probe', (e) => {
    const at = performance.now();
    const sent = acked.get(e.sessionId);
    if (sent === undefined) early.set(e.sessionId, at);
    else delays.push(at - sent);
  });
  const until = performance.now() + seconds * 1000;
  for (let i = 0; performance.now() < until; i++) {
    const sessionId = `p${i}`;
    await from.append([{ type: 'tool.session.opened', tenant: 'probe', principal: 'probe', sessionId, payload: { sessionId, toolId: 'demo.echo' } }]);
    const now = performance.now();
    const before = early.get(sessionId);
    // Delivered before the writer saw its own acknowledgement: no delay to speak of.
    if (before !== undefined) delays.push(Math.max(0, before - now));
    else acked.set(sessionId, now);
    await new Promise((r) => setTimeout(r, 10));
  }
  await new Promise((r) => setTimeout(r, 200));
  unsubscribe();
  return delays;
}

async function main(): Promise<void> {
  const seconds = arg('seconds', 10);
  const concurrency = arg('concurrency', 64);
  const writers = arg('writers', 3);
  const server = await startPostgres({ fast: false });
  try {
    const url = await server.newDatabase();
    const a = await PostgresEventStore.open({ url });
    const b = await PostgresEventStore.open({ url });
    const idle = summarize(await probeDelays(a, b, 3));
    type Report = { events: number; latencies: { p50: number; p99: number; n: number } };
    const forked = Array.from({ length: writers }, (_, id) => fork(self, ['writer', url, String(id), String(seconds), String(concurrency)], { execArgv: ['--import', 'tsx'] }));
    const done = forked.map(
      (child, id) =>
        new Promise<Report>((resolve, reject) => {
          child.on('message', (m) => {
            if (!(m as { ready?: boolean }).ready) resolve(m as Report);
          });
          child.once('exit', (code) => code !== 0 && reject(new Error(`writer ${id} exited with ${code}`)));
        }),
    );
    await Promise.all(forked.map((child) => new Promise((r) => child.once('message', r))));
    for (const child of forked) child.send('go');
    const children = done;
    const started = performance.now();
    const loaded = probeDelays(a, b, seconds);
    const results = await Promise.all(children);
    const elapsed = (performance.now() - started) / 1000;
    const underLoad = summarize(await loaded);
    await a.close();
    await b.close();
    const events = results.reduce((n, r) => n + r.events, 0);
    console.log(`PostgreSQL 15 (fsync on, synchronous_commit on), ${writers} writer processes × ${concurrency} concurrent sessions, ${seconds} s`);
    console.log(`events appended: ${events} in ${elapsed.toFixed(1)} s = ${Math.round(events / elapsed)} events/s (${Math.round(events / 2 / elapsed)} call records/s)`);
    for (const [i, r] of results.entries()) console.log(`  writer ${i}: ${r.events} events, append latency p50 ${r.latencies.p50} ms, p99 ${r.latencies.p99} ms`);
    console.log(`live-feed delay between stores, idle: median ${idle.p50} ms, p99 ${idle.p99} ms (${idle.n} probes)`);
    console.log(`live-feed delay between stores, under that load: median ${underLoad.p50} ms, p99 ${underLoad.p99} ms (${underLoad.n} probes)`);
  } finally {
    await server.close();
  }
}

if (process.argv[2] === 'writer') {
  const [, , , url, id, seconds, concurrency] = process.argv;
  void writer(url, Number(id), Number(seconds), Number(concurrency)).catch((err) => {
    console.error(err);
    process.exit(1);
  });
} else {
  void main().catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
