// The benchmark's upstream: an MCP server (the SDK's low-level `Server`) over
// stdio serving N generated, realistic tools (bench/tools.ts), paged.
//
//   node --import tsx bench/upstream.ts --tools 10000 --page-size 200 --control-file FILE
//
// Control: a loopback HTTP port, written to FILE once listening.
//   POST /change?index=K  -> tool K gets its next revision (new description and
//                            input schema), then `notifications/tools/list_changed`
//                            is sent; answers { name, revision, notifiedAtNs }
//                            (process.hrtime.bigint(), CLOCK_MONOTONIC, comparable
//                            across processes on Linux).
// FILE.first-page: written once, when the first `tools/list` page is
//   asked for: its process.hrtime.bigint() (the start targets count from it).
//
// Pages are serialized once and kept until one of their tools changes, as
// the baseline HTTP server keeps its bytes: what the list_changed figure
// measures is toolhost's re-read, not the upstream's JSON.stringify (28 MB
// takes the SDK's transport about 0.4 s here on every read).
import { writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ListToolsRequestSchema, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { makeTool, makeTools, type GeneratedTool } from './tools.js';

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

const total = Number(arg('tools') ?? 10_000);
const pageSize = Number(arg('page-size') ?? 200);
const controlFile = arg('control-file');

const tools: GeneratedTool[] = makeTools(total);
const revisions = new Map<number, number>();

/** Page results by offset, each with its JSON text, until a tool in the page changes. */
const pages = new Map<number, object>();
const pageJson = new WeakMap<object, string>();

/** The SDK's stdio transport, writing a kept page's text instead of serializing the page again. */
class PageCachingTransport extends StdioServerTransport {
  override send(message: JSONRPCMessage): Promise<void> {
    const m = message as { result?: object; id?: number | string };
    const json = m.result !== undefined ? pageJson.get(m.result) : undefined;
    if (json === undefined) return super.send(message);
    return new Promise((resolve) => {
      if (process.stdout.write(`{"result":${json},"jsonrpc":"2.0","id":${JSON.stringify(m.id)}}\n`)) resolve();
      else process.stdout.once('drain', resolve);
    });
  }
}

const server = new Server({ name: 'toolhost-bench-upstream', version: '1.0.0' }, { capabilities: { tools: { listChanged: true } } });

let firstPageNoted = false;

server.setRequestHandler(ListToolsRequestSchema, async (req) => {
  const cursor = req.params?.cursor;
  if (!firstPageNoted && controlFile !== undefined) {
    firstPageNoted = true;
    // When the first page is asked for: its making (a few ms) counts against the host.
    const atNs = process.hrtime.bigint();
    setImmediate(() => writeFileSync(`${controlFile}.first-page`, String(atNs)));
  }
  const offset = cursor === undefined ? 0 : Number(cursor);
  if (!Number.isInteger(offset) || offset < 0) throw new Error('bad cursor');
  let result = pages.get(offset);
  if (result === undefined) {
    const end = Math.min(tools.length, offset + pageSize);
    const page = tools.slice(offset, end);
    result = end < tools.length ? { tools: page, nextCursor: String(end) } : { tools: page };
    pages.set(offset, result);
    pageJson.set(result, JSON.stringify(result));
  }
  return result as never;
});

server.setRequestHandler(CallToolRequestSchema, async (req) => ({ content: [{ type: 'text', text: `called ${req.params.name}` }] }));

const transport = new PageCachingTransport();
transport.onclose = () => process.exit(0);
process.stdin.on('end', () => process.exit(0));
await server.connect(transport);

if (controlFile !== undefined) {
  const control = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (req.method !== 'POST' || url.pathname !== '/change') return void res.writeHead(404).end();
    const index = Number(url.searchParams.get('index'));
    if (!Number.isInteger(index) || index < 0 || index >= total) return void res.writeHead(400).end('bad index');
    const revision = (revisions.get(index) ?? 0) + 1;
    revisions.set(index, revision);
    tools[index] = makeTool(index, total, revision);
    for (const offset of pages.keys()) if (offset <= index && index < offset + pageSize) pages.delete(offset);
    const notifiedAtNs = process.hrtime.bigint();
    server
      .sendToolListChanged()
      .then(() => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ name: tools[index].name, revision, notifiedAtNs: String(notifiedAtNs) })))
      .catch((err: unknown) => res.writeHead(500).end(String(err)));
  });
  control.listen(0, '127.0.0.1', () => {
    const addr = control.address();
    if (typeof addr === 'object' && addr) writeFileSync(controlFile, String(addr.port));
  });
  control.unref();
}
