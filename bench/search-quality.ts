// Tool search, measured (docs/search.md): retrieval quality on real catalogs
// and latency at 10,000 tools.
//
//   node --import tsx bench/search-quality.ts [--verbose] [--runs N] [--latency-only] [--no-built-in-synonyms]
//
// Quality: the tasks in bench/search-tasks/*.json (natural-language requests,
// each with the tool(s) that solve it) against GitHub's REST description as
// a connector and the published MCP servers, loaded through the real host
// (bench/search-catalogs.ts); recall@1, recall@5 and MRR (over the top 10).
// Latency: the same search over the generated 10,000-tool corpus
// (bench/tools.ts) on the real CatalogStore; p50 and p95 per query, the
// index's build time and heap. Prints a Markdown summary and one JSON line.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pino from 'pino';
import { CatalogSearch } from '../src/catalog/search/catalog-search.js';
import { CatalogStore } from '../src/catalog/store.js';
import { compileTenant, type Caller } from '../src/catalog/visibility.js';
import { Policy } from '../src/classify/policy.js';
import { createMetrics } from '../src/observability/metrics.js';
import { MCP_DEFAULTS } from '../src/sources/mcp/index.js';
import { ToolCollector } from '../src/sources/mcp/tool-filter.js';
import type { RawTool, ToolSource } from '../src/sources/raw-tool.js';
import { SEARCH_MODE_TOOLS, searchTools } from '../src/mcp/search-mode.js';
import { toMcpTool } from '../src/mcp/tool-listing.js';
import type { Principal } from '../src/auth/principal.js';
import { startBenchHost } from './search-catalogs.js';
import { splitOf } from './search-split.js';
import { DOMAINS, makeTools } from './tools.js';

interface TaskFile {
  catalog: string;
  tasks: { task: string; expected: string[] }[];
}

interface Quality {
  /** A task file and split, a split, or all tasks. */
  set: string;
  tasks: number;
  recallAt1: number;
  recallAt5: number;
  mrr: number;
}

interface Tally {
  n: number;
  at1: number;
  at5: number;
  rr: number;
}

function count(tallies: Map<string, Tally>, key: string, rank: number): void {
  let t = tallies.get(key);
  if (t === undefined) tallies.set(key, (t = { n: 0, at1: 0, at5: 0, rr: 0 }));
  t.n++;
  if (rank === 1) t.at1++;
  if (rank >= 1 && rank <= 5) t.at5++;
  if (rank >= 1) t.rr += 1 / rank;
}

const verbose = process.argv.includes('--verbose');
/** Without the built-in synonym groups, which were written while looking at this task set's misses. */
const withoutSynonyms = process.argv.includes('--no-built-in-synonyms');
const runsArg = process.argv.indexOf('--runs');
const runs = runsArg >= 0 ? Number(process.argv[runsArg + 1]) : 20;
const TASK_DIR = fileURLToPath(new URL('./search-tasks/', import.meta.url));
const caller: Caller = { tenant: 'bench', scopes: new Set() };
const round = (x: number, digits = 3): number => Math.round(x * 10 ** digits) / 10 ** digits;

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))];
}

/** What an agent reads, in bytes and in tokens estimated at 4 bytes a token (JSON text of English and identifiers). */
interface TokenFigures {
  listStandardBytes: number;
  listCompactBytes: number;
  searchModeListBytes: number;
  /** Mean search_tools answer (limit 5) over the tasks. */
  searchAnswerBytes: number;
}

const tokens = (bytes: number): number => Math.round(bytes / 4);

async function quality(): Promise<{ results: Quality[]; catalogTools: number; latency: { p50: number; p95: number }; tokenFigures: TokenFigures }> {
  const host = await startBenchHost();
  try {
    const ids = new Set(host.store.current().entries.map((e) => e.tool.descriptor.toolId));
    const search = withoutSynonyms ? new CatalogSearch(host.store, { builtInSynonyms: false }) : host.search;
    const tallies = new Map<string, Tally>();
    const times: number[] = [];
    for (const file of readdirSync(TASK_DIR).filter((f) => f.endsWith('.json')).sort()) {
      const set = JSON.parse(readFileSync(join(TASK_DIR, file), 'utf8')) as TaskFile;
      for (const { task, expected } of set.tasks) {
        for (const id of expected) if (!ids.has(id)) throw new Error(`${file}: "${task}" expects ${id}, which the catalog does not hold`);
        const started = performance.now();
        const { hits } = search.search(caller, task, 10);
        times.push(performance.now() - started);
        const rank = hits.findIndex((h) => expected.includes(h.entry.tool.descriptor.toolId)) + 1;
        const part = splitOf(task);
        for (const key of [`${file} ${part}`, part, 'all']) count(tallies, key, rank);
        if (verbose && rank !== 1) console.error(`${part}\t${rank === 0 ? 'miss' : `#${rank}`}\t${task}\t${expected.join(' ')}\t→ ${hits.slice(0, 3).map((h) => h.entry.tool.descriptor.toolId).join(' ')}`);
      }
    }
    const results: Quality[] = [...tallies].map(([set, t]) => ({ set, tasks: t.n, recallAt1: round(t.at1 / t.n), recallAt5: round(t.at5 / t.n), mrr: round(t.rr / t.n) }));
    times.sort((a, b) => a - b);
    const snapshot = host.store.current();
    const view = snapshot.viewFor(caller);
    const listBytes = (compact: boolean): number => Buffer.byteLength(JSON.stringify({ tools: view.entries.map((e) => toMcpTool(e, view.mcpNames.byToolId.get(e.tool.descriptor.toolId)!, compact)) }));
    const principal = { ...caller, id: 'bench', kind: 'api-key' } as unknown as Principal;
    const allTasks = readdirSync(TASK_DIR).filter((f) => f.endsWith('.json')).flatMap((f) => (JSON.parse(readFileSync(join(TASK_DIR, f), 'utf8')) as TaskFile).tasks);
    const answerBytes = allTasks.map((t) => Buffer.byteLength(JSON.stringify(searchTools(host.search, snapshot, principal, { query: t.task, limit: 5 }))));
    const tokenFigures: TokenFigures = {
      listStandardBytes: listBytes(false),
      listCompactBytes: listBytes(true),
      searchModeListBytes: Buffer.byteLength(JSON.stringify({ tools: SEARCH_MODE_TOOLS })),
      searchAnswerBytes: Math.round(answerBytes.reduce((a, b) => a + b, 0) / answerBytes.length),
    };
    return { results, catalogTools: ids.size, latency: { p50: round(percentile(times, 0.5)), p95: round(percentile(times, 0.95)) }, tokenFigures };
  } finally {
    await host.stop();
  }
}

/** Requests phrased for the generated corpus's domains and actions. */
function syntheticQueries(): string[] {
  const asks = ['list the invoices', 'delete a comment', 'create a deployment', 'search contacts', 'archive old messages', 'export a report', 'sync calendar events', 'assign a label to an issue', 'close the ticket', 'update the user profile'];
  return DOMAINS.flatMap((d, i) => [`${asks[i]} in ${d}`, `${asks[(i + 3) % asks.length]} for ${d}`]);
}

async function latencyAt10k(): Promise<{ tools: number; buildMs: number; heapMb: number; p50: number; p95: number; refreshMs: number; indexUpdateMs: number }> {
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
  let indexUpdateMs = 0;
  store.onSwap(() => (swapSeen = performance.now()));
  const search = new CatalogSearch(store);
  store.onSwap(() => (indexUpdateMs = performance.now() - swapSeen));
  global.gc?.();
  const heapBefore = process.memoryUsage().heapUsed;
  const started = performance.now();
  search.search(caller, 'warm up', 1);
  const buildMs = performance.now() - started;
  global.gc?.();
  const heapMb = (process.memoryUsage().heapUsed - heapBefore) / 1e6;
  const queries = syntheticQueries();
  const times: number[] = [];
  for (let r = 0; r < runs; r++) {
    for (const q of queries) {
      const t0 = performance.now();
      search.search(caller, q, 10);
      times.push(performance.now() - t0);
    }
  }
  times.sort((a, b) => a - b);
  // One tool changes: the swap's index update (the store's own rebuild included).
  const changed = [...list];
  changed[17] = { ...changed[17], description: `${changed[17].description} Changed.` };
  list = changed;
  const before = store.current();
  const t1 = performance.now();
  store.scheduleRebuild();
  while (store.current() === before) await new Promise((r) => setImmediate(r));
  const refreshMs = performance.now() - t1;
  return { tools: total, buildMs: round(buildMs, 0), heapMb: round(heapMb, 1), p50: round(percentile(times, 0.5)), p95: round(percentile(times, 0.95)), refreshMs: round(refreshMs, 0), indexUpdateMs: round(indexUpdateMs, 1) };
}

const latencyOnly = process.argv.includes('--latency-only');
if (latencyOnly) {
  const lat = await latencyAt10k();
  console.log(JSON.stringify({ latency10k: lat }));
  process.exit(0);
}
const q = await quality();
const lat = await latencyAt10k();
const order = (set: string): string => `${set.includes(' ') ? 1 : 0}${set}`;
console.log(`| task set | tasks | recall@1 | recall@5 | MRR |\n| --- | --- | --- | --- | --- |`);
for (const r of [...q.results].sort((a, b) => order(a.set).localeCompare(order(b.set)))) console.log(`| ${r.set} | ${r.tasks} | ${r.recallAt1} | ${r.recallAt5} | ${r.mrr} |`);
const tf = q.tokenFigures;
console.log(`\n| what the agent reads (${q.catalogTools} tools) | bytes | tokens (≈ bytes / 4) |\n| --- | --- | --- |`);
console.log(`| tools/list, standard profile (every page) | ${tf.listStandardBytes} | ${tokens(tf.listStandardBytes)} |`);
console.log(`| tools/list, compact profile (every page) | ${tf.listCompactBytes} | ${tokens(tf.listCompactBytes)} |`);
console.log(`| tools/list, search mode | ${tf.searchModeListBytes} | ${tokens(tf.searchModeListBytes)} |`);
console.log(`| one search_tools answer, limit 5 (mean) | ${tf.searchAnswerBytes} | ${tokens(tf.searchAnswerBytes)} |`);
console.log(`\nreal catalogs (${q.catalogTools} tools): search p50 ${q.latency.p50} ms, p95 ${q.latency.p95} ms`);
console.log(`generated corpus (${lat.tools} tools): index build ${lat.buildMs} ms, heap ${lat.heapMb} MB, search p50 ${lat.p50} ms, p95 ${lat.p95} ms; one-tool refresh ${lat.refreshMs} ms (rebuild and index update), of which index update ${lat.indexUpdateMs} ms`);
console.log(JSON.stringify({ quality: q.results, realLatency: q.latency, latency10k: lat, tokenFigures: tf }));
process.exit(0);
