// Tool search latency and memory at 10,000 tools (docs/search.md "Latency"):
// the generated corpus (bench/tools.ts) on the real CatalogStore; the
// background filing after the snapshot is ready (its length and the longest
// the event loop waited meanwhile), the first search on a view once it is
// done (the view's slots marked) and without waiting for it (the first of
// three fresh searches, and the least CPU of the three), p50 and p95 per
// query, the heap of the filed tools and of one view, and a one-tool swap's
// update of the table and the views. CPU time beside wall clock: the machine
// is shared. Prints one JSON line.
//
//   node --expose-gc --import tsx bench/search-latency.ts [--runs N] [--signals terms,prior]
import { monitorEventLoopDelay } from 'node:perf_hooks';
import pino from 'pino';
import { CatalogSearch } from '../src/catalog/search/catalog-search.js';
import { loadWordVectors } from '../src/catalog/search/word-vectors.js';
import { CatalogStore } from '../src/catalog/store.js';
import { compileTenant, type Caller } from '../src/catalog/visibility.js';
import { Policy } from '../src/classify/policy.js';
import { createMetrics } from '../src/observability/metrics.js';
import { MCP_DEFAULTS } from '../src/sources/mcp/index.js';
import { ToolCollector } from '../src/sources/mcp/tool-filter.js';
import type { RawTool, ToolSource } from '../src/sources/raw-tool.js';
import { DOMAINS, makeTools } from './tools.js';

const runsArg = process.argv.indexOf('--runs');
const runs = runsArg >= 0 ? Number(process.argv[runsArg + 1]) : 20;
const caller: Caller = { tenant: 'bench', scopes: new Set() };
const round = (x: number, digits = 3): number => Math.round(x * 10 ** digits) / 10 ** digits;
/** CPU time of the process since `since` (this thread and the collector's), in ms: less noisy than wall time on a shared machine. */
const cpuMs = (since: NodeJS.CpuUsage): number => {
  const d = process.cpuUsage(since);
  return (d.user + d.system) / 1000;
};
/** The JS heap and the ArrayBuffers beside it: typed arrays' contents are not counted in heapUsed. */
const heapBytes = (): number => {
  const m = process.memoryUsage();
  return m.heapUsed + m.arrayBuffers;
};
/** The heap once garbage is collected, twice with a turn between (ArrayBuffers' contents are freed after their objects). */
const settledHeap = async (): Promise<number> => {
  for (let i = 0; i < 2; i++) {
    global.gc?.();
    await new Promise((r) => setImmediate(r));
  }
  return heapBytes();
};
const percentile = (sorted: number[], p: number): number => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))];

/** Requests phrased for the generated corpus's domains and actions. */
function syntheticQueries(): string[] {
  const asks = ['list the invoices', 'delete a comment', 'create a deployment', 'search contacts', 'archive old messages', 'export a report', 'sync calendar events', 'assign a label to an issue', 'close the ticket', 'update the user profile'];
  return DOMAINS.flatMap((d, i) => [`${asks[i]} in ${d}`, `${asks[(i + 3) % asks.length]} for ${d}`]);
}

export async function latencyAt10k(options: ConstructorParameters<typeof CatalogSearch>[1] = {}): Promise<Record<string, number>> {
  const total = 10_000;
  const collector = new ToolCollector('bench', MCP_DEFAULTS, undefined);
  JSON.parse(JSON.stringify(makeTools(total))).forEach((t: unknown, i: number) => collector.add(t, i));
  let list: readonly RawTool[] = collector.tools;
  const source: ToolSource = {
    id: 'mcp:bench',
    kind: 'mcp',
    start: async () => {},
    tools: () => list,
    health: () => ({ id: 'mcp:bench', kind: 'mcp', state: 'connected', toolCount: list.length }),
    stop: async () => {},
    owns: () => false,
    invoke: () => Promise.reject(new Error('the search benchmark calls no tool')),
  };
  const store = new CatalogStore({ sources: [source], policy: new Policy({}), tenants: new Map([['bench', compileTenant('bench', ['*'])]]), logger: pino({ level: 'silent' }), metrics: createMetrics() });
  store.initialBuild();
  // Listeners run in order: the index update is the time between one registered before the search's and one after.
  let swapSeen = 0;
  let swapCpu = process.cpuUsage();
  let indexUpdateMs = 0;
  let indexUpdateCpuMs = 0;
  store.onSwap(() => {
    swapSeen = performance.now();
    swapCpu = process.cpuUsage();
  });
  // The word-vector table, once per process (read from its cache).
  let t0 = performance.now();
  await loadWordVectors();
  const vectorTableMs = performance.now() - t0;
  // Cold: a search at once, with nothing filed yet (the whole table on the search's turn; words alone, as the vectors arrive later).
  const colds: { ms: number; cpu: number }[] = [];
  let cpu0 = process.cpuUsage();
  for (let i = 0; i < 3; i++) {
    const cold = new CatalogSearch(store, { wordVectors: () => loadWordVectors(), ...options });
    t0 = performance.now();
    cpu0 = process.cpuUsage();
    cold.search(caller, 'warm up', 1);
    colds.push({ ms: performance.now() - t0, cpu: cpuMs(cpu0) });
    cold.close();
  }
  // The snapshot's own background work (compaction) done first: its CPU is not the search's.
  await store.current().whenCompacted();
  const heapBefore = await settledHeap();
  const loopDelay = monitorEventLoopDelay({ resolution: 5 });
  loopDelay.enable();
  t0 = performance.now();
  const search = new CatalogSearch(store, { wordVectors: () => loadWordVectors(), preloadVectors: true, ...options });
  store.onSwap(() => {
    indexUpdateMs = performance.now() - swapSeen;
    indexUpdateCpuMs = cpuMs(swapCpu);
  });
  await search.whenReady();
  const prepareMs = performance.now() - t0;
  loopDelay.disable();
  const heapPrepared = await settledHeap();
  const started = performance.now();
  cpu0 = process.cpuUsage();
  search.search(caller, 'warm up', 1);
  const firstSearchMs = performance.now() - started;
  const firstSearchCpuMs = cpuMs(cpu0);
  const queries = syntheticQueries();
  const preparedMb = (heapPrepared - heapBefore) / 1e6;
  const indexMb = ((await settledHeap()) - heapPrepared) / 1e6;
  const times: number[] = [];
  const queriesCpu = process.cpuUsage();
  for (let r = 0; r < runs; r++) {
    for (const q of queries) {
      const t0 = performance.now();
      search.search(caller, q, 10);
      times.push(performance.now() - t0);
    }
  }
  const queryCpuMs = cpuMs(queriesCpu) / times.length;
  times.sort((a, b) => a - b);
  const changed = [...list];
  changed[17] = { ...changed[17], description: `${changed[17].description} Changed.` };
  list = changed;
  const before = store.current();
  store.scheduleRebuild();
  while (store.current() === before) await new Promise((r) => setImmediate(r));
  return {
    tools: total,
    vectorTableMs: round(vectorTableMs, 0),
    prepareMs: round(prepareMs, 0),
    prepareLoopDelayMaxMs: round(loopDelay.max / 1e6, 1),
    firstSearchMs: round(firstSearchMs, 0),
    firstSearchCpuMs: round(firstSearchCpuMs, 0),
    coldFirstSearchMs: round(colds[0].ms, 0),
    coldFirstSearchCpuMs: round(colds[0].cpu, 0),
    coldFirstSearchCpuMinMs: round(Math.min(...colds.map((c) => c.cpu)), 0),
    preparedMb: round(preparedMb, 1),
    indexMb: round(indexMb, 1),
    p50: round(percentile(times, 0.5)),
    p95: round(percentile(times, 0.95)),
    queryCpuMs: round(queryCpuMs),
    indexUpdateMs: round(indexUpdateMs, 1),
    indexUpdateCpuMs: round(indexUpdateCpuMs, 1),
  };
}

if (process.argv[1]?.endsWith('search-latency.ts')) {
  const { loadavg } = await import('node:os');
  const signalsArg = process.argv.indexOf('--signals');
  const signals = signalsArg >= 0 ? (process.argv[signalsArg + 1].split(',') as ('terms' | 'meaning' | 'prior')[]) : undefined;
  console.log(JSON.stringify({ loadavg: loadavg().map((l) => round(l, 2)), signals: signals ?? 'all', latency10k: await latencyAt10k(signals ? { signals } : {}) }));
  process.exit(0);
}
