// Where the CPU goes, per server, from the profiles BENCH_PROFILE=DIR wrote:
//   npx tsx bench/profile-summary.ts DIR [SCENARIO-SUBSTRING] [--top N]
// Self time by category (the leaf frame's code), and the heaviest functions.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: Node[];
  samples: number[];
  timeDeltas: number[];
}

function category(n: Node): string {
  const { functionName: f, url } = n.callFrame;
  if (f === '(idle)') return 'idle';
  if (f === '(garbage collector)') return 'GC';
  if (f === '(program)') return 'V8/native (program)';
  if (url === '') return `native: ${f || '(anonymous)'}`;
  if (url.includes('/src/auth/')) return 'toolhost auth';
  if (url.includes('/src/')) return 'toolhost src';
  if (url.includes('/bench/')) return 'bench harness';
  if (/node_modules\/(fastify|find-my-way|light-my-request|@fastify|fast-querystring|avvio|abstract-logging|toad-cache)/.test(url)) return 'fastify';
  if (url.includes('node_modules/pino') || url.includes('node_modules/sonic-boom')) return 'pino (logging)';
  if (url.includes('node_modules/')) return `module: ${url.split('node_modules/').pop()!.split('/')[0]}`;
  if (url.startsWith('node:')) return 'node core (http, net, streams)';
  return url;
}

function summarize(file: string, top: number): void {
  const p = JSON.parse(readFileSync(file, 'utf8')) as Profile;
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const cat = new Map<string, number>();
  const fn = new Map<string, number>();
  let total = 0;
  for (let i = 0; i < p.samples.length; i++) {
    const n = byId.get(p.samples[i])!;
    const dt = (p.timeDeltas[i] ?? 0) / 1000;
    total += dt;
    const c = category(n);
    cat.set(c, (cat.get(c) ?? 0) + dt);
    if (c !== 'idle') {
      const name = `${n.callFrame.functionName || '(anonymous)'} ${n.callFrame.url.split('/').slice(-2).join('/')}`;
      fn.set(name, (fn.get(name) ?? 0) + dt);
    }
  }
  const busy = total - (cat.get('idle') ?? 0);
  console.log(`\n${file}\n  busy ${busy.toFixed(0)} ms of ${total.toFixed(0)} ms`);
  for (const [c, ms] of [...cat].filter(([c]) => c !== 'idle').sort((a, b) => b[1] - a[1]).slice(0, top)) {
    console.log(`  ${ms.toFixed(0).padStart(7)} ms ${((100 * ms) / busy).toFixed(1).padStart(5)} %  ${c}`);
  }
  console.log('  heaviest functions (self):');
  for (const [f, ms] of [...fn].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`  ${ms.toFixed(0).padStart(7)} ms  ${f}`);
}

const args = process.argv.slice(2);
const dir = args[0];
const topIndex = args.indexOf('--top');
const top = topIndex >= 0 ? Number(args[topIndex + 1]) : 12;
const filter = args[1] !== undefined && !args[1].startsWith('--') ? args[1] : '';
for (const f of readdirSync(dir).filter((x) => x.endsWith('.cpuprofile') && x.includes(filter)).sort()) summarize(join(dir, f), top);
