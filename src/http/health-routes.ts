// Liveness, readiness with per-source state and the event log's state, and
// Prometheus metrics. None of them carries credentials: source health holds
// ids, counts, times and redacted error text only; the event log's, its
// logId, reason and SQLite's error text; Redis's, its state, since when and
// an error text without the URL.
import type { FastifyInstance } from 'fastify';
import type { HttpDeps } from './deps.js';
import { JSON_TYPE } from './respond.js';

export function registerHealthRoutes(app: FastifyInstance, deps: HttpDeps): void {
  app.get('/healthz', async (_request, reply) => reply.header('content-type', JSON_TYPE).header('cache-control', 'no-store').send('{"status":"ok"}'));

  const sourcesReport = () => {
    const sources = deps.sourceHealth();
    // Sources whose tools are not in the served catalog yet (still loading, never loaded, or a rebuild on its way).
    const notServed = deps.store.notServed();
    const degraded = notServed.length > 0 || sources.some((s) => s.state !== 'connected');
    const snapshot = deps.store.current();
    const events = deps.events?.health();
    // Redis down is degraded, not unavailable: the replica still serves, with its own buckets.
    const redis = deps.redisHealth?.();
    const status = events?.writable === false ? 'unavailable' : degraded || (redis !== undefined && redis.state !== 'connected') ? 'degraded' : 'ready';
    // The standard view is served as soon as a snapshot is; the compact one once it is compacted (snapshot.ts).
    const views = { standard: 'served', compact: snapshot.compactServed ? 'served' : 'building' };
    return { status, generation: snapshot.generation, tools: snapshot.entries.length, views, notServed, sources, ...(events ? { events } : {}), ...(redis ? { redis } : {}), ...(deps.configStatus ? { config: deps.configStatus() } : {}) };
  };

  // Ready while a snapshot is served, even if some upstream is stale (the
  // last good tools are still answered, and `status` says `degraded`) or the
  // compact view is still being made (`views` says so; a compact list asked
  // for meanwhile is answered once it is made). Not
  // ready (503, `status: unavailable`) while the event log cannot be written:
  // every tool call is refused then, so traffic belongs on another host.
  // /health/sources is the same report, always 200: it describes, it does not gate.
  app.get('/readyz', async (_request, reply) => {
    const report = sourcesReport();
    return reply.code(report.status === 'unavailable' ? 503 : 200).header('cache-control', 'no-store').send(report);
  });
  app.get('/health/sources', async (_request, reply) => reply.header('cache-control', 'no-store').send(sourcesReport()));

  app.get('/metrics', async (_request, reply) => {
    const text = await deps.metrics.registry.metrics();
    return reply.header('content-type', deps.metrics.registry.contentType).send(text);
  });
}
