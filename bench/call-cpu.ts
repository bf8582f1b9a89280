// What one sequential client's call costs the host, split into user and
// system CPU, for the event log's settings side by side (docs/benchmarks.md
// "One commit for a read-only call"): `events.synchronous` full or normal,
// `events.writeAhead` all or changes. Both tools called are `pure` in the
// bench's policy (bench/call-hosts.ts), so under `changes` each call is one
// commit instead of two. Rounds alternate the order of the hosts; each host
// is a fresh compiled child per round; figures are min – median – max.
//
//   npm run build && npx tsx bench/call-cpu.ts [--calls N] [--rounds N]
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { RawHttpClient, runSequential, type CallTarget } from './call-clients.js';
import { startHost } from './call-hosts.js';
import { cpuSplit } from './procs.js';
import { median } from './shared.js';

const argv = process.argv.slice(2);
const opt = (name: string, fallback: number) => (argv.includes(`--${name}`) ? Number(argv[argv.indexOf(`--${name}`) + 1]) : fallback);
const CALLS = opt('calls', 4000);
const ROUNDS = opt('rounds', 3);

const TARGETS: Record<string, CallTarget> = {
  'node-pack': { name: 'openwop:text.uppercase', arguments: { text: 'hello' } },
  echo: { name: 'mcp:everything.echo', arguments: { message: 'hello' } },
};
const HOSTS = [
  { label: 'full, all', synchronous: undefined, writeAhead: undefined },
  { label: 'full, changes', synchronous: undefined, writeAhead: 'changes' as const },
  { label: 'normal, all', synchronous: 'normal' as const, writeAhead: undefined },
  { label: 'normal, changes', synchronous: 'normal' as const, writeAhead: 'changes' as const },
];

type Figures = { wallMs: number[]; userMs: number[]; systemMs: number[] };
const results = new Map<string, Figures>();
const tmp = mkdtempSync(join(os.tmpdir(), 'toolhost-call-cpu-'));
try {
  for (let round = 0; round < ROUNDS; round++) {
    for (const h of round % 2 === 0 ? HOSTS : [...HOSTS].reverse()) {
      const host = await startHost(mkdtempSync(join(tmp, 'host-')), { events: true, fastCalls: true, synchronous: h.synchronous, writeAhead: h.writeAhead }, join(tmp, 'compiled'));
      try {
        const client = await RawHttpClient.open(host.url, host.authorization);
        for (const [tool, target] of Object.entries(TARGETS)) {
          await runSequential(client, target, 300);
          const before = cpuSplit(host.child.pid);
          const started = performance.now();
          await runSequential(client, target, CALLS);
          const wall = performance.now() - started;
          const after = cpuSplit(host.child.pid);
          const key = `${tool}\t${h.label}`;
          const f = results.get(key) ?? { wallMs: [], userMs: [], systemMs: [] };
          f.wallMs.push(wall / CALLS);
          f.userMs.push(((after.user - before.user) * 1000) / CALLS);
          f.systemMs.push(((after.system - before.system) * 1000) / CALLS);
          results.set(key, f);
        }
        await client.close();
      } finally {
        await host.stop();
      }
      process.stderr.write(`[call-cpu] round ${round + 1}/${ROUNDS}: ${h.label} done; load ${os.loadavg()[0].toFixed(2)}\n`);
    }
  }
} finally {
  rmSync(tmp, { recursive: true, force: true });
}
const range = (xs: number[]) => `${Math.min(...xs).toFixed(3)} – ${median(xs).toFixed(3)} – ${Math.max(...xs).toFixed(3)}`;
const lines = ['| tool | events.synchronous, events.writeAhead | ms per call (wall) | host user CPU ms per call | host system CPU ms per call |', '| --- | --- | --- | --- | --- |'];
for (const [key, f] of results) lines.push(`| ${key.split('\t').join(' | ')} | ${range(f.wallMs)} | ${range(f.userMs)} | ${range(f.systemMs)} |`);
process.stdout.write(`${lines.join('\n')}\n\n${ROUNDS} rounds of ${CALLS} calls per tool and host, one sequential raw keep-alive client; load average at the end ${os.loadavg().map((x) => x.toFixed(2)).join(' ')}.\n`);
process.exit(0);
