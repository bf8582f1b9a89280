// What operations see of each HTTP request (docs/deploy.md "Metrics",
// "Tracing"): a count by route pattern, method and status, refused credentials
// by reason, rate-limit refusals by bucket, and, when tracing is on, a server
// span per request continuing the caller's `traceparent`. Hooks are added per
// route as routes are registered, so nothing runs for what is not observed.
import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import type { HostMetrics } from '../observability/metrics.js';
import type { Span, Tracing } from '../observability/tracing.js';
import type { AuthTarget } from './auth-hook.js';
import { appendHook, prependHook } from './route-hooks.js';

type Hook = (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) => void;

const spans = new WeakMap<FastifyRequest, Span>();

/** The request's server span (tracing on), for handlers that hand the request on (the MCP front door). */
export function requestSpan(request: FastifyRequest): Span | undefined {
  return spans.get(request);
}


/** Which bucket a 429 on this route came from. */
function bucketOf(route: string, request: AuthTarget): string {
  if (route === '/mcp') return 'mcp_sessions';
  if (route === '/events/stream') return 'event_streams';
  return request.principal === null ? 'anonymous' : 'principal';
}

/** Counts one answered request (also used by the not-found handler, which has no route hooks). */
export function countRequest(metrics: HostMetrics, route: string, request: AuthTarget, status: number): void {
  metrics.httpRequests.inc({ route, method: request.method, status });
  if (request.authFailureKind !== null) metrics.authFailures.inc({ reason: request.authFailureKind });
  if (status === 429) metrics.rateLimited.inc({ bucket: bucketOf(route, request) });
}

/** Call before any route is registered. */
export function registerRequestObservers(app: FastifyInstance, metrics: HostMetrics, tracing: Tracing): void {
  app.addHook('onRoute', (route) => {
    const pattern = route.url;
    const count: Hook = (request, reply, done) => {
      countRequest(metrics, pattern, request, reply.statusCode);
      done();
    };
    route.onResponse = appendHook(route.onResponse, count as never);
    if (!tracing.enabled) return;
    const trace: Hook = (request, reply, done) => {
      const span = tracing.startServerSpan(`${request.method} ${pattern}`, request.headers);
      if (span) {
        span.setAttributes({ 'http.request.method': request.method, 'http.route': pattern });
        spans.set(request, span);
        // 'close' ends hijacked answers (MCP, event streams) too, which skip onResponse.
        reply.raw.once('close', () => {
          span.setAttribute('http.response.status_code', reply.raw.statusCode);
          span.end();
        });
      }
      done();
    };
    route.onRequest = prependHook(route.onRequest, trace as never);
  });
}
