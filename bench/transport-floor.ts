// The transport's floor for a re-read: how long the benchmark's upstream
// (bench/upstream.ts, pages kept serialized) takes to hand a bare client
// every tools/list page over stdio, when that client does nothing with the
// bytes but find the line ends and the next cursor. toolhost's re-read
// after `list_changed` cannot be faster than this on the same machine.
//
//   node --import tsx bench/transport-floor.ts [--tools N] [--reads K] [--gap MS] [--hold]
// prints one JSON line: { tools, bytes, readsMs: [...] }
// --hold keeps the first read's pages parsed (the host's heap holds the
// upstream's tools so): what a heap of parsed tools costs a re-read in GC.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

function arg(name: string, d: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : d;
}
const tools = arg('tools', 10_000);
const reads = arg('reads', 7);
const gap = arg('gap', 200);
const hold = process.argv.includes('--hold');
const held: unknown[] = [];

const upstream = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(new URL('upstream.ts', import.meta.url)), '--tools', String(tools), '--page-size', '200'], { stdio: ['pipe', 'pipe', 'inherit'] });
let pending: ((line: Buffer) => void) | undefined;
let chunks: Buffer[] = [];
upstream.stdout.on('data', (chunk: Buffer) => {
  let from = 0;
  for (let at = chunk.indexOf(10); at >= 0; at = chunk.indexOf(10, from)) {
    chunks.push(chunk.subarray(from, at));
    const line = Buffer.concat(chunks);
    chunks = [];
    from = at + 1;
    pending?.(line);
  }
  if (from < chunk.length) chunks.push(chunk.subarray(from));
});
let id = 0;
function call(method: string, params: unknown): Promise<Buffer> {
  return new Promise((resolve) => {
    pending = resolve;
    upstream.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: ++id, method, params })}\n`);
  });
}
await call('initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'floor', version: '1' } });
upstream.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);

const readsMs: number[] = [];
let bytes = 0;
for (let r = 0; r <= reads; r++) {
  const t0 = performance.now();
  bytes = 0;
  let cursor: string | undefined;
  do {
    const line = await call('tools/list', cursor === undefined ? {} : { cursor });
    bytes += line.length;
    if (hold && r === 0) held.push(JSON.parse(line.toString('utf8')));
    // The cursor sits near the end of the SDK's line: no parse of the page.
    const m = /"nextCursor":"([^"]*)"/.exec(line.subarray(Math.max(0, line.length - 200)).toString('latin1'));
    cursor = m?.[1];
  } while (cursor !== undefined);
  if (r > 0) readsMs.push(performance.now() - t0); // the first read serializes the pages upstream
  await new Promise((resolve) => setTimeout(resolve, gap));
}
upstream.kill();
process.stdout.write(`${JSON.stringify({ tools, bytes, held: held.length, heapUsedMb: Math.round(process.memoryUsage().heapUsed / 2 ** 20), readsMs: readsMs.map((x) => Math.round(x)) })}\n`);
