// Reading the tool-session event log over HTTP (docs/contract.md "Tool sessions").
// Same bearer credential as /tools; every answer is scoped to the caller's
// tenant, whose events form one stream with its own `sequence`.
//
//   GET /sessions/{sessionId}/events  -> { events }   (unknown and other-tenant sessions: one identical 404)
//   GET /events?after=N&limit=M       -> { events, next }
//   GET /events/stream                -> text/event-stream, resumable with Last-Event-ID
//
// Event names on the wire are those of docs/contract.md "Tool sessions" (`tool.session.opened` /
// `tool.session.closed`); the v2 event code map spells them
// `tool.session-opened` / `tool.session-closed` (see src/events/sqlite/log.ts).
//
// Every answer names the log it was read from (`logId`, in the
// `Toolhost-Event-Log-Id` header and in the /events body): a cursor is only
// meaningful against the log that issued it, and a log recreated after its
// file was lost starts every stream again at 0.
//
// The routes and the per-principal stream cap are here; reading a page and
// its cursors is event-pages.ts, the stream itself event-stream.ts, its
// frames sse.ts.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { PROTOCOL_VERSION } from '../contract/protocol.js';
import { PrincipalCap } from '../auth/principal-caps.js';
import type { ToolEvent } from '../events/event-types.js';
import { openTail, type EventStore, type Tail } from '../events/store.js';
import type { EventRouteOptions, HttpDeps } from './deps.js';
import { requirePrincipal } from './auth-hook.js';
import { lastEventId, pageBody, pageQuery } from './event-pages.js';
import { streamEvents } from './event-stream.js';
import { JSON_TYPE, sendError } from './respond.js';
import { sseComment, SseStream } from './sse.js';

export { DEFAULT_LIMIT, MAX_LIMIT } from './event-pages.js';

const DEFAULT_KEEP_ALIVE_MS = 15_000;
/** Concurrent `GET /events/stream` per principal when `events.maxStreamsPerPrincipal` is not set. */
export const DEFAULT_MAX_STREAMS_PER_PRINCIPAL = 16;
const SESSION_NOT_FOUND = 'no session with that id is available';
const OTHER_METHODS = ['POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'] as const;
export const LOG_ID_HEADER = 'toolhost-event-log-id';

function sendJson(reply: FastifyReply, json: string): FastifyReply {
  return reply.header('content-type', JSON_TYPE).header('cache-control', 'no-store').send(json);
}

/** The stream's answer on the hijacked reply: its headers, and the comment that opens it. */
function openSse(reply: FastifyReply, keepAliveMs: number): SseStream {
  reply.hijack();
  // A hijacked reply skips fastify's headers, the onRequest hook's
  // OpenWOP-Version among them: copy what was set, then add our own.
  const headers: Record<string, string | number | string[]> = {};
  for (const [k, v] of Object.entries(reply.getHeaders())) if (v !== undefined) headers[k] = v;
  const sse = new SseStream(reply.raw, {
    headers: { ...headers, 'openwop-version': PROTOCOL_VERSION, 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-store', 'x-accel-buffering': 'no' },
    keepAliveMs,
    keepAliveComment: 'keep-alive',
  });
  sse.write(sseComment('openwop tool events'));
  return sse;
}

function registerPageRoutes(app: FastifyInstance, deps: HttpDeps, log: EventStore): void {
  app.get('/sessions/:sessionId/events', async (request, reply) => {
    const principal = await requirePrincipal(request, deps.authenticator);
    const { sessionId } = request.params as { sessionId: string };
    reply.header(LOG_ID_HEADER, log.health().logId);
    const events = await log.readSessionSerialized(principal.tenant, sessionId);
    if (events.length === 0) return sendError(reply, 'not_found', SESSION_NOT_FOUND);
    return sendJson(reply, `{"events":[${events.join(',')}]}`);
  });

  app.get('/events', async (request, reply) => {
    const principal = await requirePrincipal(request, deps.authenticator);
    const { after, limit } = pageQuery(request);
    reply.header(LOG_ID_HEADER, log.health().logId);
    return sendJson(reply, await pageBody(log, principal.tenant, after, limit));
  });
}

function registerStreamRoute(app: FastifyInstance, deps: HttpDeps, log: EventStore, options: EventRouteOptions): void {
  const keepAliveMs = options.keepAliveMs ?? DEFAULT_KEEP_ALIVE_MS;
  const open = new Set<() => void>();
  // Open streams per principal: each holds a socket and a subscription for as
  // long as its client likes, so one credential may not hold them without bound.
  const streams = new PrincipalCap({
    setting: 'events.maxStreamsPerPrincipal',
    limit: options.maxStreamsPerPrincipal ?? DEFAULT_MAX_STREAMS_PER_PRINCIPAL,
    // Streams end when their clients go, not on a clock: a hint, longer than the calls' and sessions'.
    retryAfterS: 5,
    holds: 'open event streams',
    advice: 'close one before opening another',
  });
  deps.metrics.gaugeSource('eventStreams', () => streams.total);

  // Hijacked streams never finish by themselves: end them so app.close() can.
  app.addHook('preClose', async () => {
    for (const end of [...open]) end();
  });

  app.get('/events/stream', { exposeHeadRoute: false }, async (request, reply) => {
    // Everything that can fail with an envelope fails before the hijack.
    const principal = await requirePrincipal(request, deps.authenticator);
    const from = lastEventId(request);
    reply.header(LOG_ID_HEADER, log.health().logId);
    const slot = streams.take(principal.key);
    // Where the stream starts is fixed before the answer: an event committed once the client has its 200 is never skipped.
    let listener: (e: ToolEvent) => void = () => undefined;
    let opened: Tail;
    try {
      opened = await openTail(log, principal.tenant, (e) => listener(e));
    } catch (err) {
      slot.release();
      throw err;
    }
    const tail = { ...opened, listen: (fn: (e: ToolEvent) => void) => void (listener = fn) };
    const sse = openSse(reply, keepAliveMs);
    let end: (() => void) | undefined;
    end = streamEvents(sse, log, principal.tenant, from, tail, () => {
      slot.release();
      if (end) open.delete(end);
    });
    if (!reply.raw.writableEnded) open.add(end);
  });
}

export function registerEventRoutes(app: FastifyInstance, deps: HttpDeps, options: EventRouteOptions = {}): void {
  const log = deps.events;
  if (log === undefined) return;
  registerPageRoutes(app, deps, log);
  registerStreamRoute(app, deps, log, options);
  const methodNotAllowed = (_request: FastifyRequest, reply: FastifyReply) => sendError(reply, 'toolhost.method_not_allowed', 'the event log is read-only', undefined, { allow: 'GET, HEAD' });
  app.route({ method: [...OTHER_METHODS], url: '/events', handler: methodNotAllowed });
  app.route({ method: [...OTHER_METHODS], url: '/sessions/:sessionId/events', handler: methodNotAllowed });
  app.route({
    method: [...OTHER_METHODS, 'HEAD'],
    url: '/events/stream',
    handler: (_request, reply) => sendError(reply, 'toolhost.method_not_allowed', 'the event stream is read with GET', undefined, { allow: 'GET' }),
  });
}
