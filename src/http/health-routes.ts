// Liveness, readiness with per-source state, and Prometheus metrics. None of
// them carries credentials: source health holds ids, counts, times and
// redacted error text only.
import type { FastifyInstance } from 'fastify';
import type { HttpDeps } from './app.js';
import { JSON_TYPE } from './respond.js';

export function registerHealthRoutes(app: FastifyInstance, deps: HttpDeps): void {
  app.get('/healthz', async (_request, reply) => reply.header('content-type', JSON_TYPE).header('cache-control', 'no-store').send('{"status":"ok"}'));

  const sourcesReport = () => {
    const sources = deps.sourceHealth();
    const degraded = sources.some((s) => s.state !== 'connected');
    const snapshot = deps.store.current();
    return { status: degraded ? 'degraded' : 'ready', generation: snapshot.generation, tools: snapshot.entries.length, sources };
  };

  // Ready while a snapshot is served, even if some upstream is stale: the
  // last good tools are still answered. `status` says whether all is well.
  app.get('/readyz', async (_request, reply) => reply.header('cache-control', 'no-store').send(sourcesReport()));
  app.get('/health/sources', async (_request, reply) => reply.header('cache-control', 'no-store').send(sourcesReport()));

  app.get('/metrics', async (_request, reply) => {
    const text = await deps.metrics.registry.metrics();
    return reply.header('content-type', deps.metrics.registry.contentType).send(text);
  });
}
