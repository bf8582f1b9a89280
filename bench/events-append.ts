// In-process benchmark of the event log's group commit (src/events/sqlite/log.ts,
// group-commit.ts): appends per second, and calls per second where a call is
// what tools/call records (a write-ahead commit of two events, then an answer
// commit of two), for 1, 8 and 64 concurrent writers, under
// events.synchronous full and normal, with each batching trigger. Also the
// call's own cost for a lone caller (p50), with the write-ahead record riding
// on the answer's fsync against one fsync per commit.
// Run: npx tsx bench/events-append.ts [--seconds 1]
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EventLog, type AppendInput, type EventSynchronous, type GroupTrigger } from '../src/events/sqlite/log.js';
import { ToolSession } from '../src/events/session.js';

const secondsArg = process.argv.indexOf('--seconds');
const SECONDS = secondsArg > 0 ? Number(process.argv[secondsArg + 1]) : 1;
const WHO = { tenant: 'acme', principal: 'bench-agent' };
const TOOL = 'openwop:text.uppercase';

type Workload = 'append' | 'call' | 'call, own fsync';

interface Row {
  synchronous: EventSynchronous;
  trigger: GroupTrigger;
  workload: Workload;
  writers: number;
  perSecond: number;
  p50Ms: number;
  eventsPerCommit: number;
  syncs: number;
}

function opened(i: number): AppendInput {
  const sessionId = `s${i}`;
  return { type: 'tool.session.opened', ...WHO, sessionId, payload: { sessionId, toolId: TOOL } };
}

async function oneCall(log: EventLog, ownFsync: boolean): Promise<void> {
  const s = ToolSession.open(log, WHO, TOOL);
  const callId = s.called(TOOL);
  await s.commit({ writeAhead: !ownFsync });
  s.returned(callId, TOOL, 'ok', 0);
  await s.finish('completed');
}

async function measure(synchronous: EventSynchronous, trigger: GroupTrigger, workload: Workload, writers: number): Promise<Row> {
  const dir = mkdtempSync(join(tmpdir(), 'toolhost-bench-append-'));
  const log = EventLog.open(join(dir, 'events.sqlite'), { synchronous, groupTrigger: trigger });
  try {
    // Warm-up: statements, the WAL's first pages.
    for (let i = 0; i < 50; i++) await oneCall(log, false);
    const before = log.groupStats();
    const latencies: number[] = [];
    let done = 0;
    const end = performance.now() + SECONDS * 1000;
    const writer = async () => {
      while (performance.now() < end) {
        const t = performance.now();
        if (workload === 'append') await log.append([opened(done)]);
        else await oneCall(log, workload === 'call, own fsync');
        latencies.push(performance.now() - t);
        done++;
      }
    };
    const started = performance.now();
    await Promise.all(Array.from({ length: writers }, writer));
    const elapsed = (performance.now() - started) / 1000;
    const after = log.groupStats();
    latencies.sort((a, b) => a - b);
    const groups = after.groups - before.groups;
    return {
      synchronous,
      trigger,
      workload,
      writers,
      perSecond: done / elapsed,
      p50Ms: latencies[Math.floor(latencies.length / 2)] ?? Number.NaN,
      eventsPerCommit: (after.events - before.events) / Math.max(1, groups),
      syncs: (after.syncedGroups - before.syncedGroups + after.deferredSyncs - before.deferredSyncs) / elapsed,
    };
  } finally {
    await log.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

const rows: Row[] = [];
for (const synchronous of ['full', 'normal'] as const) {
  for (const trigger of ['immediate', 'microtask'] as const) {
    for (const workload of ['append', 'call', 'call, own fsync'] as const) {
      if (workload === 'call, own fsync' && synchronous === 'normal') continue; // no fsync to own
      for (const writers of [1, 8, 64]) rows.push(await measure(synchronous, trigger, workload, writers));
    }
  }
}

const fmt = (n: number, digits = 0) => n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
console.log(`${SECONDS} s per cell, ${new Date().toISOString()}`);
console.log('| synchronous | trigger | workload | writers | per second | p50 (ms) | events per commit | fsyncs per second |');
console.log('| --- | --- | --- | ---: | ---: | ---: | ---: | ---: |');
for (const r of rows) {
  console.log(`| ${r.synchronous} | ${r.trigger} | ${r.workload} | ${r.writers} | ${fmt(r.perSecond)} | ${fmt(r.p50Ms, 3)} | ${fmt(r.eventsPerCommit, 1)} | ${fmt(r.syncs)} |`);
}
