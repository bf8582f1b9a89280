// Snapshot build and refresh, in-process, in a fresh process per repetition
// (forked by bench/run.ts): the real CatalogStore, fed by a stand-in MCP
// source whose RawTools come from the same ToolCollector the MCP adapter uses,
// given the previous read as the adapter does: a refresh hands the store the
// previous objects for unchanged tools and a new one for the changed tool.
//
//   node --import tsx --expose-gc bench/build-bench.ts --tools N --refreshes K [--no-compress]
// prints one JSON line: BuildBenchResult. --no-compress skips timing the list
// compressions (the slowest part, and the same work in every process).
import pino from 'pino';
import type { Caller } from '../src/catalog/visibility.js';
import { compileTenant } from '../src/catalog/visibility.js';
import { CatalogStore } from '../src/catalog/store.js';
import type { CatalogSnapshot } from '../src/catalog/snapshot.js';
import type { Encoding } from '../src/catalog/body.js';
import { Policy } from '../src/classify/policy.js';
import { createMetrics } from '../src/observability/metrics.js';
import { MCP_DEFAULTS } from '../src/sources/mcp/index.js';
import { type PreviousRead, ToolCollector } from '../src/sources/mcp/tool-filter.js';
import type { RawTool, ToolSource } from '../src/sources/raw-tool.js';
import { POLICY, PRINCIPAL_SCOPES, SERVER_ID, TENANTS } from './config.js';
import { makeTool, makeTools, tenantGlobs, type GeneratedTool } from './tools.js';

export interface BuildBenchResult {
  tools: number;
  /** Cold build: store.initialBuild() and the compaction that follows it (classification, annotations, redaction, compaction, serialization, ETags). */
  coldSnapshotMs: number;
  /** Of which store.initialBuild(): the standard view served from then on. */
  coldStandardMs: number;
  /** The same two spans in CPU time of the process (user + system), which load on the machine stretches less than wall time. */
  coldSnapshotCpuMs: number;
  coldStandardCpuMs: number;
  /** Then the three tenants' list bodies, both views, identity. */
  coldListsMs: number;
  /** Then gzip and br of those list bodies (on the thread pool, in parallel, as the host does); NaN when skipped. */
  coldCompressMs: number;
  /** Per refresh (one tool changed): scheduleRebuild() to the swap. */
  refreshMs: number[];
  /** Per refresh: the three tenants' list bodies again, identity (what the first GET /tools after the swap pays, or the background warm-up). */
  refreshListsMs: number[];
  /** After the first refresh: gzip and br of those list bodies (empty when skipped). */
  refreshCompressMs: number[];
  /** After the cold build with every list body and compressed form built (after a forced GC). */
  rssMb: number;
  heapUsedMb: number;
}

function arg(name: string, d: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : d;
}

const total = arg('tools', 10_000);
const refreshes = arg('refreshes', 3);
const timeCompression = !process.argv.includes('--no-compress');
const ENCODINGS: readonly Encoding[] = ['gzip', 'br'];

let collected: PreviousRead | undefined;
function collect(tools: readonly GeneratedTool[]): RawTool[] {
  // Through JSON, as the tools arrive over the wire, and through the
  // collector with the previous read, as the MCP source does: unchanged
  // tools come back as the previous RawTool objects.
  const c = new ToolCollector(SERVER_ID, MCP_DEFAULTS, collected);
  JSON.parse(JSON.stringify(tools)).forEach((t: unknown, i: number) => c.add(t, i));
  collected = { collected: c.collected, skipped: c.skipped };
  return c.tools;
}

const generated = makeTools(total);
let list: readonly RawTool[] = collect(generated);
const source: ToolSource = {
  id: `mcp:${SERVER_ID}`,
  kind: 'mcp',
  start: async () => {},
  tools: () => list,
  health: () => ({ id: `mcp:${SERVER_ID}`, kind: 'mcp', state: 'connected', toolCount: list.length }),
  stop: async () => {},
  // Only listed: the build benchmark calls no tool.
  owns: () => false,
  invoke: () => Promise.reject(new Error('the build benchmark calls no tool')),
};
const globs = tenantGlobs(SERVER_ID);
const tenants = new Map(TENANTS.map((t) => [t as string, compileTenant(t, globs[t])]));
const callers: Caller[] = TENANTS.map((t) => ({ tenant: t, scopes: new Set(PRINCIPAL_SCOPES) }));
const store = new CatalogStore({ sources: [source], policy: new Policy(POLICY), tenants, logger: pino({ level: 'silent' }), metrics: createMetrics() });

function lists(snapshot: CatalogSnapshot): number {
  const t0 = performance.now();
  for (const c of callers) {
    const v = snapshot.viewFor(c);
    void v.standard;
    void v.compact;
  }
  return performance.now() - t0;
}

/** gzip and br of every list body, as the host makes them: large ones on the thread pool, all at once. */
async function compress(snapshot: CatalogSnapshot): Promise<number> {
  const t0 = performance.now();
  const work: Promise<Buffer>[] = [];
  for (const c of callers) {
    const v = snapshot.viewFor(c);
    for (const body of [v.standard, v.compact]) for (const e of ENCODINGS) work.push(Promise.resolve(body.encodedSoon(e)));
  }
  await Promise.all(work);
  return performance.now() - t0;
}

globalThis.gc?.();
const cpuMs = (since: NodeJS.CpuUsage) => {
  const u = process.cpuUsage(since);
  return (u.user + u.system) / 1000;
};
let t0 = performance.now();
const cpu0 = process.cpuUsage();
const first = store.initialBuild();
const coldStandardMs = performance.now() - t0;
const coldStandardCpuMs = cpuMs(cpu0);
// The compaction the store starts after the swap, awaited (one runs at a time: this is that one).
await first.compactInBackground();
const coldSnapshotMs = performance.now() - t0;
const coldSnapshotCpuMs = cpuMs(cpu0);
const coldListsMs = lists(first);
const coldCompressMs = timeCompression ? await compress(first) : NaN;
globalThis.gc?.();
const mem = process.memoryUsage();

const refreshMs: number[] = [];
const refreshListsMs: number[] = [];
const refreshCompressMs: number[] = [];
for (let r = 1; r <= refreshes; r++) {
  const k = (r * 7919) % total;
  generated[k] = makeTool(k, total, r);
  list = collect(generated);
  globalThis.gc?.();
  const swapped = new Promise<CatalogSnapshot>((resolve) => {
    const off = store.onSwap((next) => {
      off();
      resolve(next);
    });
  });
  t0 = performance.now();
  store.scheduleRebuild();
  const next = await swapped;
  refreshMs.push(performance.now() - t0);
  refreshListsMs.push(lists(next));
  if (timeCompression && r === 1) refreshCompressMs.push(await compress(next));
  if (!next.byId.get(`mcp:${SERVER_ID}.${generated[k].name}`)?.standard.bytes.includes(`(revision ${r})`)) throw new Error('the refreshed tool is not in the new snapshot');
}

const result: BuildBenchResult = {
  tools: first.entries.length,
  coldSnapshotMs,
  coldStandardMs,
  coldSnapshotCpuMs,
  coldStandardCpuMs,
  coldListsMs,
  coldCompressMs,
  refreshMs,
  refreshListsMs,
  refreshCompressMs,
  rssMb: mem.rss / 2 ** 20,
  heapUsedMb: mem.heapUsed / 2 ** 20,
};
process.stdout.write(`${JSON.stringify(result)}\n`);
