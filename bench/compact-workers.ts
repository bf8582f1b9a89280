// Experiment (docs/benchmarks.md "Cold start, list_changed and memory"): what
// compacting the catalog in a pool of worker threads would buy over the
// event loop's background slices. The same descriptors compacted on the main
// thread (from the objects, as the host does) and by K workers (from the
// standard JSON text, which is what a worker can be handed), rounds
// alternating; wall and CPU time (all threads), outputs checked equal. Both
// run the compactor compiled (dist/, `npm run build` first), as the host does.
//   node --import tsx bench/compact-workers.ts [--tools N] [--workers K] [--rounds R]
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { buildCatalog } from '../src/catalog/build.js';
import { Policy } from '../src/classify/policy.js';
import type { CompactToolDescriptor, JsonObject, ToolDescriptor } from '../src/contract/descriptor.js';
import type { RawTool } from '../src/sources/raw-tool.js';
import { POLICY, REPO_ROOT, SERVER_ID } from './config.js';
import { makeTools } from './tools.js';

const COMPACTOR = pathToFileURL(join(REPO_ROOT, 'dist/catalog/compact-descriptor.js')).href;
const { compactDescriptor } = (await import(COMPACTOR)) as { compactDescriptor: (d: ToolDescriptor) => CompactToolDescriptor };
const compactText = (d: ToolDescriptor) => JSON.stringify(compactDescriptor(d));
// A worker (plain JavaScript: no loader in workers) compacting the descriptors whose text it is sent.
const WORKER = `
  import { parentPort } from 'node:worker_threads';
  const { compactDescriptor } = await import(${JSON.stringify(COMPACTOR)});
  parentPort.on('message', (texts) => parentPort.postMessage(texts.map((t) => JSON.stringify(compactDescriptor(JSON.parse(t))))));
`;

{
  const { values } = parseArgs({ options: { tools: { type: 'string', default: '10000' }, workers: { type: 'string', default: '2' }, rounds: { type: 'string', default: '3' } } });
  const raws: RawTool[] = makeTools(Number(values.tools)).map((t) => ({ source: 'mcp', toolId: `mcp:${SERVER_ID}.${t.name}`, origin: 'bench', title: t.title, description: t.description, inputSchema: t.inputSchema as JsonObject }));
  const descriptors = buildCatalog(raws, new Policy(POLICY)).tools.map((t) => t.descriptor);
  const texts = descriptors.map((d) => JSON.stringify(d));
  const K = Number(values.workers);
  const workers = await Promise.all(
    Array.from({ length: K }, async () => {
      const w = new Worker(new URL(`data:text/javascript,${encodeURIComponent(WORKER)}`));
      // Warm: the compactor's modules loaded and compiled once, as a pool kept by the host would be.
      await new Promise((resolve) => {
        w.once('message', resolve);
        w.postMessage(texts.slice(0, 50));
      });
      return w;
    }),
  );
  const cpu = () => {
    const u = process.cpuUsage();
    return (u.user + u.system) / 1000;
  };
  const timed = async (run: () => Promise<string[]> | string[]) => {
    const c0 = cpu();
    const t0 = performance.now();
    const out = await run();
    return { wall: performance.now() - t0, cpu: cpu() - c0, out };
  };
  const onMain = () => descriptors.map(compactText);
  const inPool = async () => {
    const size = Math.ceil(texts.length / K);
    const parts = await Promise.all(
      workers.map(
        (w, i) =>
          new Promise<string[]>((resolve) => {
            w.once('message', resolve);
            w.postMessage(texts.slice(i * size, (i + 1) * size));
          }),
      ),
    );
    return parts.flat();
  };
  const rows: string[] = [];
  for (let r = 0; r < Number(values.rounds); r++) {
    const order = r % 2 === 0 ? (['main', 'pool'] as const) : (['pool', 'main'] as const);
    for (const which of order) {
      const load = loadavg()[0];
      const m = await timed(which === 'main' ? onMain : inPool);
      if (m.out.join('\n') !== descriptors.map(compactText).join('\n')) throw new Error(`${which}: outputs differ`);
      rows.push(`${which === 'main' ? 'main thread' : `${K} workers`}: wall ${m.wall.toFixed(0)} ms, CPU ${m.cpu.toFixed(0)} ms (load ${load.toFixed(2)})`);
      process.stderr.write(`${rows.at(-1)}\n`);
    }
  }
  for (const w of workers) await w.terminate();
  console.log(rows.join('\n'));
}
