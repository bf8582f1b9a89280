// The search latency benchmark in rounds (docs/benchmarks.md "Search"): runs
// `bench/search-quality.ts --latency-only` ROUNDS times, each in a fresh
// process, and prints min, median and max of each figure with the load
// average before and after (the machine is shared: say how busy it was).
//
//   node --import tsx bench/search-rounds.ts [ROUNDS] [DIR]
//
// DIR is the checkout whose bench/search-quality.ts runs (default this one),
// so an older commit can be measured the same way.
import { execFileSync } from 'node:child_process';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const rounds = Number(process.argv[2] ?? 5);
const dir = process.argv[3] ?? fileURLToPath(new URL('..', import.meta.url));
const load = (): string => loadavg().map((l) => l.toFixed(2)).join(' ');

const loadBefore = load();
const figures: Record<string, number>[] = [];
for (let r = 0; r < rounds; r++) {
  const out = execFileSync(process.execPath, ['--expose-gc', '--import', 'tsx', join(dir, 'bench/search-quality.ts'), '--latency-only'], { cwd: dir, encoding: 'utf8' });
  figures.push(JSON.parse(out.trim().split('\n').pop()!).latency10k);
}
const loadAfter = load();
console.log(`| figure (${rounds} rounds) | min | median | max |\n| --- | --- | --- | --- |`);
for (const key of Object.keys(figures[0]).filter((k) => k !== 'tools')) {
  const values = figures.map((f) => f[key]).filter((v) => v !== undefined).sort((a, b) => a - b);
  if (values.length === 0) continue;
  console.log(`| ${key} | ${values[0]} | ${values[Math.floor(values.length / 2)]} | ${values[values.length - 1]} |`);
}
console.log(`\nload average (1, 5, 15 min) before: ${loadBefore}; after: ${loadAfter}`);
