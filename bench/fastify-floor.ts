// The framework's own floor: a bare fastify app (no hooks, one catch-all
// route, a synchronous handler) answering the same URLs with the same bytes
// from the same Map as bench/baseline.ts. Where toolhost is near this, the
// rest of the distance to the baseline is fastify's, not toolhost's.
//   node --import tsx bench/fastify-floor.ts ROUTES.json
import { readFileSync } from 'node:fs';
import Fastify from 'fastify';
import { handleProfileMessage } from './profiling.js';
import { routeKey } from './shared.js';

interface RouteSpec {
  key: string;
  status: number;
  headers: Record<string, string>;
  /** All of toolhost's response headers (ETag, Cache-Control, Vary, OpenWOP-Version, ...). */
  contractHeaders: Record<string, string>;
  file?: string;
}

// --contract-headers: send every header toolhost sends, to size what the contract's headers cost.
const withContractHeaders = process.argv.includes('--contract-headers');

const specs = JSON.parse(readFileSync(process.argv[2], 'utf8')) as RouteSpec[];
const routes = new Map<string, { status: number; headers: Record<string, string>; body: Buffer }>();
for (const s of specs) routes.set(s.key, { status: s.status, headers: withContractHeaders ? s.contractHeaders : s.headers, body: s.file === undefined ? Buffer.alloc(0) : readFileSync(s.file) });

const app = Fastify({ logger: false, routerOptions: { maxParamLength: 2048 } });
app.get('/*', (request, reply) => {
  const h = request.headers;
  const route = routes.get(routeKey(h.authorization, request.url, h['accept-encoding'], h['if-none-match']));
  if (!route) return void reply.code(404).send();
  reply.code(route.status).headers(route.headers).send(route.body.length > 0 ? route.body : undefined);
});
const url = await app.listen({ host: '127.0.0.1', port: 0 });
process.send?.({ type: 'ready', url, pid: process.pid });
process.on('message', (msg: { type: string }) => {
  if (handleProfileMessage(msg)) return;
  if (msg.type === 'stop') void app.close().then(() => process.exit(0));
});
