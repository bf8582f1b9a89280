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
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ServerResponse } from 'node:http';
import { ContractError } from '../contract/errors.js';
import { PROTOCOL_VERSION } from '../contract/protocol.js';
import { PrincipalCap } from '../auth/principal-caps.js';
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { SerializedEvent, ToolEvent } from '../events/event-types.js';
import { openTail, type EventStore, type Tail } from '../events/store.js';
import type { EventRouteOptions, HttpDeps } from './deps.js';
import { requirePrincipal } from './auth-hook.js';
import { JSON_TYPE, sendError } from './respond.js';

export const DEFAULT_LIMIT = 100;
export const MAX_LIMIT = 1000;
/** Events read from the log per step while a stream catches up, or per turn of the event loop while a page is assembled. */
const REPLAY_PAGE = 500;
const PAGE_CHUNK = 250;
const DEFAULT_KEEP_ALIVE_MS = 15_000;
/** Concurrent `GET /events/stream` per principal when `events.maxStreamsPerPrincipal` is not set. */
export const DEFAULT_MAX_STREAMS_PER_PRINCIPAL = 16;
const SESSION_NOT_FOUND = 'no session with that id is available';
const OTHER_METHODS = ['POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'] as const;
export const LOG_ID_HEADER = 'toolhost-event-log-id';

interface Problem {
  parameter: string;
  expected: string;
}

/** A sequence cursor: -1 (before the first event) or a non-negative integer, written plainly. */
function parseCursor(text: unknown): number | undefined {
  if (typeof text !== 'string' || !/^(?:-1|0|[1-9][0-9]{0,15})$/.test(text)) return undefined;
  const n = Number(text);
  return Number.isSafeInteger(n) ? n : undefined;
}

function parseLimit(text: unknown): number | undefined {
  if (typeof text !== 'string' || !/^[1-9][0-9]{0,3}$/.test(text)) return undefined;
  const n = Number(text);
  return n <= MAX_LIMIT ? n : undefined;
}

function pageQuery(request: FastifyRequest): { after: number; limit: number } {
  const query = (request.query ?? {}) as Record<string, unknown>;
  const problems: Problem[] = [];
  let after = -1;
  let limit = DEFAULT_LIMIT;
  if (query.after !== undefined) {
    const n = parseCursor(query.after);
    if (n === undefined) problems.push({ parameter: 'after', expected: 'one integer >= -1 (a sequence number)' });
    else after = n;
  }
  if (query.limit !== undefined) {
    const n = parseLimit(query.limit);
    if (n === undefined) problems.push({ parameter: 'limit', expected: `one integer from 1 to ${MAX_LIMIT}` });
    else limit = n;
  }
  if (problems.length > 0) throw new ContractError('validation_error', 'invalid query parameters', { problems });
  return { after, limit };
}

function lastEventId(request: FastifyRequest): number | undefined {
  const header = request.headers['last-event-id'];
  if (header === undefined || header === '') return undefined;
  const n = parseCursor(header);
  if (n === undefined) {
    throw new ContractError('validation_error', 'invalid Last-Event-ID header', {
      problems: [{ parameter: 'Last-Event-ID', expected: 'one integer >= -1 (the id of the last event received)' }],
    });
  }
  return n;
}

function sendJson(reply: FastifyReply, json: string): FastifyReply {
  return reply.header('content-type', JSON_TYPE).header('cache-control', 'no-store').send(json);
}

/** One SSE message; `data` is a single line because JSON never holds a raw newline. */
function frameOf(sequence: number, type: string, json: string): string {
  return `id: ${sequence}\nevent: ${type}\ndata: ${json}\n\n`;
}

/** A live event's frame, made once however many of its tenant's streams are open. */
const liveFrames = new WeakMap<ToolEvent, string>();
function frame(e: ToolEvent): string {
  let text = liveFrames.get(e);
  if (text === undefined) liveFrames.set(e, (text = frameOf(e.sequence, e.type, JSON.stringify(e))));
  return text;
}

/**
 * `{ events, next }` for one page, joined from the events' stored JSON. A
 * large page is read a chunk at a time with a turn of the event loop between
 * chunks, so a thousand-event page does not hold up every other request.
 * Each chunk goes on from the last sequence read: the page is a contiguous
 * run of the stream even if events are appended meanwhile.
 */
async function pageBody(log: EventStore, tenant: string, after: number, limit: number): Promise<string> {
  const parts: string[] = [];
  let cursor = after;
  for (let left = limit; left > 0; ) {
    if (parts.length > 0) await nextTurn();
    const chunk: SerializedEvent[] = await log.readAfterSerialized(tenant, cursor, Math.min(left, PAGE_CHUNK));
    for (const e of chunk) parts.push(e.json);
    if (chunk.length === 0) break;
    cursor = chunk[chunk.length - 1].sequence;
    left -= chunk.length;
    if (chunk.length < PAGE_CHUNK) break;
  }
  return `{"events":[${parts.join(',')}],"next":${cursor},"logId":${JSON.stringify(log.health().logId)}}`;
}

/**
 * Streams a tenant's events to one client, from a tail opened before the
 * client was answered (openTail). With `from` set, replays every event after
 * it from the log, then goes live; without, starts at the tail's start, the
 * stream's end before the answer. A client too slow to take live events is switched back to
 * reading from the log (after its socket drains), so memory held per client
 * stays bounded and nothing is skipped.
 *
 * Reads are asynchronous, so an event may be committed while a read is out:
 * the subscription notes it, and the pump reads again before going live. An
 * event committed before a read began is in what it returns; one committed
 * after reaches the live subscription; whichever delivers it second is
 * skipped by the cursor.
 */
function streamEvents(res: ServerResponse, log: EventStore, tenant: string, from: number | undefined, tail: Tail & { listen(fn: (e: ToolEvent) => void): void }, keepAliveMs: number, onEnd: () => void): () => void {
  let ended = false;
  let live = false;
  let pumping = false;
  // An event arrived while not live: the read in progress may have missed it.
  let missed = false;
  // The last sequence written to the client (or skipped as already seen).
  let cursor = -1;

  const waitDrain = () =>
    new Promise<void>((resolve) => {
      const done = () => {
        res.off('drain', done);
        res.off('close', done);
        resolve();
      };
      res.on('drain', done);
      res.on('close', done);
    });

  const pump = async () => {
    if (pumping) return;
    pumping = true;
    try {
      while (!ended) {
        if (res.writableNeedDrain) await waitDrain();
        if (ended) return;
        missed = false;
        const page = await log.readAfterSerialized(tenant, cursor, REPLAY_PAGE);
        if (ended) return;
        if (page.length === 0) {
          if (missed) continue;
          // Nothing more in the log and nothing committed since the read began: from here on live events follow.
          live = true;
          return;
        }
        for (const e of page) {
          cursor = e.sequence;
          res.write(frameOf(e.sequence, e.type, e.json));
        }
      }
    } catch {
      end(); // the log was closed under us
    } finally {
      pumping = false;
    }
  };

  tail.listen((e) => {
    if (ended) return;
    if (!live) {
      missed = true;
      return;
    }
    if (e.sequence <= cursor) return;
    cursor = e.sequence;
    if (!res.write(frame(e))) {
      live = false;
      void pump();
    }
  });

  const keepAlive = setInterval(() => {
    if (!ended) res.write(': keep-alive\n\n');
  }, keepAliveMs);

  function end(): void {
    if (ended) return;
    ended = true;
    clearInterval(keepAlive);
    tail.unsubscribe();
    onEnd();
    if (!res.writableEnded) res.end();
  }
  res.on('close', end);
  res.on('error', end);
  // The client may have gone while the tail was opened: its close was before these listeners.
  if (res.socket === null || res.socket.destroyed) end();

  // Without Last-Event-ID: from the end before the answer. An id beyond the
  // end (another log file, a made-up id) would hide every future event behind
  // it; resume from the real end instead.
  cursor = from === undefined ? tail.start : Math.min(from, tail.start);
  void pump();
  return end;
}

export function registerEventRoutes(app: FastifyInstance, deps: HttpDeps, options: EventRouteOptions = {}): void {
  const log = deps.events;
  if (log === undefined) return;
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
    reply.hijack();
    const res = reply.raw;
    // A hijacked reply skips fastify's headers, the onRequest hook's
    // OpenWOP-Version among them: copy what was set, then add our own.
    const headers: Record<string, string | number | string[]> = {};
    for (const [k, v] of Object.entries(reply.getHeaders())) if (v !== undefined) headers[k] = v;
    res.writeHead(200, {
      ...headers,
      'openwop-version': PROTOCOL_VERSION,
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      'x-accel-buffering': 'no',
    });
    res.write(': openwop tool events\n\n');
    let end: (() => void) | undefined;
    end = streamEvents(res, log, principal.tenant, from, tail, keepAliveMs, () => {
      slot.release();
      if (end) open.delete(end);
    });
    if (!res.writableEnded) open.add(end);
  });

  const methodNotAllowed = (_request: FastifyRequest, reply: FastifyReply) => sendError(reply, 'toolhost.method_not_allowed', 'the event log is read-only', undefined, { allow: 'GET, HEAD' });
  app.route({ method: [...OTHER_METHODS], url: '/events', handler: methodNotAllowed });
  app.route({ method: [...OTHER_METHODS], url: '/sessions/:sessionId/events', handler: methodNotAllowed });
  app.route({
    method: [...OTHER_METHODS, 'HEAD'],
    url: '/events/stream',
    handler: (_request, reply) => sendError(reply, 'toolhost.method_not_allowed', 'the event stream is read with GET', undefined, { allow: 'GET' }),
  });
}
