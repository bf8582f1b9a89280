// The speed limit: a bare node:http server answering the bench's URLs with
// the same bytes toolhost sends, straight from memory. No auth, no routing,
// no headers beyond the minimum: one Map lookup keyed by what selects the
// bytes (credential, URL, Accept-Encoding, If-None-Match), then writeHead and
// end. Forked by bench/run.ts in its own process, like toolhost.
//   node --import tsx bench/baseline.ts ROUTES.json
// ROUTES.json: [{ key, status, headers: { name: value }, file? }] (file: body bytes).
import { readFileSync } from 'node:fs';
import { createServer, type OutgoingHttpHeaders } from 'node:http';
import { handleProfileMessage } from './profiling.js';
import { routeKey } from './shared.js';

interface RouteSpec {
  key: string;
  status: number;
  headers: Record<string, string>;
  file?: string;
}

interface Route {
  status: number;
  headers: OutgoingHttpHeaders;
  body: Buffer;
}

const specs = JSON.parse(readFileSync(process.argv[2], 'utf8')) as RouteSpec[];
const routes = new Map<string, Route>();
for (const s of specs) {
  const body = s.file === undefined ? Buffer.alloc(0) : readFileSync(s.file);
  routes.set(s.key, { status: s.status, headers: { ...s.headers, 'content-length': String(body.length) }, body });
}
const missing: Route = { status: 404, headers: { 'content-length': '0' }, body: Buffer.alloc(0) };

const server = createServer((req, res) => {
  const h = req.headers;
  const route = routes.get(routeKey(h.authorization, req.url ?? '', h['accept-encoding'], h['if-none-match'])) ?? missing;
  res.writeHead(route.status, route.headers);
  res.end(route.body);
});
server.keepAliveTimeout = 72_000;
server.listen(0, '127.0.0.1', () => {
  const addr = server.address();
  const port = typeof addr === 'object' && addr ? addr.port : 0;
  process.send?.({ type: 'ready', url: `http://127.0.0.1:${port}`, pid: process.pid, routes: routes.size });
});
process.on('message', (msg: { type: string }) => {
  if (handleProfileMessage(msg)) return;
  if (msg.type === 'stop') {
    server.closeAllConnections();
    server.close(() => process.exit(0));
  }
  if (msg.type === 'stats') process.send?.({ type: 'stats', memory: process.memoryUsage() });
});
