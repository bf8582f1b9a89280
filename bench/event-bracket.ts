// What recording a call costs by itself: the four events of one tool session
// (opened, called, returned, closed), committed to the SQLite event log as a
// tools/call commits them (the write-ahead record, then the answer record),
// one call after the other, without HTTP or MCP.
// docs/benchmarks.md "A call through the front door".
//
//   npx tsx bench/event-bracket.ts [--calls N]
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EventLog } from '../src/events/sqlite/log.js';
import { ToolSession } from '../src/events/session.js';
import { percentile } from './shared.js';

const i = process.argv.indexOf('--calls');
const calls = i >= 0 ? Number(process.argv[i + 1]) : 3000;
const dir = mkdtempSync(join(tmpdir(), 'toolhost-bench-bracket-'));
try {
  const log = EventLog.open(join(dir, 'events.sqlite'));
  const who = { tenant: 'bench', principal: 'bench-caller' };
  const toolId = 'mcp:everything.echo';
  const latencies: number[] = [];
  const cpu0 = process.cpuUsage();
  const start = performance.now();
  for (let n = 0; n < calls; n++) {
    const t = performance.now();
    const session = ToolSession.open(log, who, toolId);
    const callId = session.called(toolId);
    await session.commit({ writeAhead: true });
    session.returned(callId, toolId, 'ok', 1);
    await session.finish('completed');
    latencies.push(performance.now() - t);
  }
  const wall = performance.now() - start;
  const cpu = process.cpuUsage(cpu0);
  latencies.sort((a, b) => a - b);
  const ms = (x: number) => x.toFixed(3);
  process.stdout.write(
    `${calls} brackets: p50 ${ms(percentile(latencies, 50))} ms, p99 ${ms(percentile(latencies, 99))} ms, max ${ms(latencies.at(-1)!)} ms, mean ${ms(wall / calls)} ms; ` +
      `CPU ${ms((cpu.user + cpu.system) / 1000 / calls)} ms per bracket (user ${ms(cpu.user / 1000 / calls)}, system ${ms(cpu.system / 1000 / calls)})\n`,
  );
  await log.close();
} finally {
  rmSync(dir, { recursive: true, force: true });
}
