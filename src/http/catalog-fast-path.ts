// The catalog's reads (docs/contract.md "Endpoints": GET /tools, GET
// /tools/{toolId}) answered on node:http itself, in front of fastify: the
// answers are bytes that already exist, and fastify's request and reply
// objects, route lookup and hook runners cost more than the rest of such a
// request (docs/benchmarks.md "Small answers"). Same answers
// as the fastify routes of tool-routes.ts, byte for byte (status, headers in
// the same order, body; test/http/fast-path-equivalence.property.test.ts),
// made by the same pieces: the protocol gate's rule, callerOf, the
// snapshot's lookup, the ETag and encoding rules and error texts of
// respond.ts, the audit line and the request count.
//
// Only the plain form is taken here: GET, `/tools` or `/tools/{id}`, no
// query or exactly `?view=compact`, a served or absent `OpenWOP-Version`, a
// Host header. Anything else (HEAD, other methods, other queries, a bad
// percent-encoding, an unserved version, tracing on) goes to fastify, which
// answers every form.
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import type { Principal } from '../auth/principal.js';
import type { Body } from '../catalog/body.js';
import { ContractError, ERROR_STATUS, type ErrorCode } from '../contract/errors.js';
import { isServedVersion, PROTOCOL_HEADER, PROTOCOL_VERSION } from '../contract/protocol.js';
import { callerOf, writeAuditLine, type AuthTarget } from './auth-hook.js';
import type { HttpDeps } from './deps.js';
import { countRequest } from './request-observers.js';
import { acceptedEncoding, COMPRESS_MIN_BYTES, errorText, JSON_TYPE, notModified } from './respond.js';
import { NOT_FOUND_MESSAGE, toolIdFromUrl } from './tool-routes.js';

export type RequestListener = (req: IncomingMessage, res: ServerResponse) => void;

/** Longer paths go to fastify, whose router bounds a path parameter (app.ts `maxParamLength`). */
const MAX_FAST_URL = 1024;
const COMPACT_QUERY = '?view=compact';
const CACHE_CONTROL = 'private, no-cache';
const VARY = 'Accept-Encoding, Authorization';

/** The request as the audit line and the request count read it. */
class FastRequest implements AuthTarget {
  principal: Principal | null = null;
  authFailure: string | null = null;
  authFailureKind: string | null = null;
  readonly method = 'GET';
  constructor(readonly headers: IncomingMessage['headers']) {}
}

type Route = '/tools' | '/tools/*';

interface Parsed {
  route: Route;
  compact: boolean;
  /** The toolId (the route /tools/*), percent-decoded. */
  toolId: string;
}

/** The plain form of a catalog read, or undefined for fastify to answer. */
function parse(req: IncomingMessage): Parsed | undefined {
  if (req.method !== 'GET') return undefined;
  const url = req.url;
  if (url === undefined || url.length > MAX_FAST_URL || !url.startsWith('/tools')) return undefined;
  const q = url.indexOf('?');
  const path = q < 0 ? url : url.slice(0, q);
  if (q >= 0 && url.slice(q) !== COMPACT_QUERY) return undefined;
  const compact = q >= 0;
  if (path === '/tools') return { route: '/tools', compact, toolId: '' };
  if (path.length <= '/tools/'.length || path[6] !== '/') return undefined;
  let toolId: string;
  try {
    toolId = toolIdFromUrl(path);
  } catch {
    return undefined;
  }
  return { route: '/tools/*', compact, toolId };
}

function gatePasses(req: IncomingMessage): boolean {
  const asked = req.headers[PROTOCOL_HEADER];
  if (asked !== undefined && (Array.isArray(asked) || !isServedVersion(asked))) return false;
  return req.headers.host !== undefined || req.httpVersion !== '1.1';
}

/**
 * Wraps fastify's request listener: the plain catalog reads are answered
 * here, everything else by fastify. Off when tracing is on (fastify's
 * routes open the request's span).
 */
export function withCatalogFastPath(fastify: RequestListener, deps: HttpDeps, auditLogger: Logger | undefined): RequestListener {
  const { authenticator, metrics } = deps;

  const finish = (res: ServerResponse, status: number, headers: OutgoingHttpHeaders, body: Buffer | string | undefined, request: FastRequest, route: Route, started: number): void => {
    res.writeHead(status, headers);
    res.end(body);
    countRequest(metrics, route, request, status);
    if (auditLogger !== undefined) writeAuditLine(auditLogger, route, request, status, performance.now() - started);
  };

  const sendError = (res: ServerResponse, code: ErrorCode, message: string, details: Record<string, unknown> | undefined, extra: Record<string, string>, request: FastRequest, route: Route, started: number): void => {
    const text = errorText(code, message, details);
    const headers: OutgoingHttpHeaders = { [PROTOCOL_HEADER]: PROTOCOL_VERSION, 'content-type': JSON_TYPE, 'cache-control': 'no-store' };
    for (const k in extra) headers[k] = extra[k];
    headers['content-length'] = Buffer.byteLength(text);
    finish(res, ERROR_STATUS[code], headers, text, request, route, started);
  };

  const sendBody = (req: IncomingMessage, res: ServerResponse, body: Body, request: FastRequest, route: Route, started: number): void => {
    const encoding = body.size >= COMPRESS_MIN_BYTES ? acceptedEncoding(req.headers['accept-encoding']) : undefined;
    const etag = body.tagFor(encoding);
    const ifNoneMatch = req.headers['if-none-match'];
    if (ifNoneMatch !== undefined && notModified(ifNoneMatch, body)) {
      finish(res, 304, { [PROTOCOL_HEADER]: PROTOCOL_VERSION, etag, 'cache-control': CACHE_CONTROL, vary: VARY }, undefined, request, route, started);
      return;
    }
    if (encoding === undefined) return sendBytes(res, etag, undefined, body.bytes, request, route, started);
    const encoded = body.encodedSoon(encoding);
    if (encoded instanceof Promise) {
      void encoded.then((bytes) => sendBytes(res, etag, encoding, bytes, request, route, started)).catch((err: unknown) => fault(err, res, request, route, started));
    } else sendBytes(res, etag, encoding, encoded, request, route, started);
  };

  // No closure made per request: under a transpiler that keeps function names, each costs a defineProperty.
  const sendBytes = (res: ServerResponse, etag: string, encoding: string | undefined, bytes: Buffer, request: FastRequest, route: Route, started: number): void => {
    const headers: OutgoingHttpHeaders = { [PROTOCOL_HEADER]: PROTOCOL_VERSION, etag, 'cache-control': CACHE_CONTROL, vary: VARY, 'content-type': JSON_TYPE };
    if (encoding !== undefined) headers['content-encoding'] = encoding;
    headers['content-length'] = bytes.length;
    finish(res, 200, headers, bytes, request, route, started);
  };

  const answer = (req: IncomingMessage, res: ServerResponse, p: Parsed, principal: Principal, request: FastRequest, started: number): void => {
    const snapshot = deps.store.current();
    if (p.route === '/tools') {
      const view = snapshot.viewFor(principal);
      if (!p.compact) return sendBody(req, res, view.standard, request, p.route, started);
      // Still being compacted after a start: answered once it is, as tool-routes.ts does.
      const compacting = snapshot.whenCompacted();
      if (compacting === undefined) return sendBody(req, res, view.compact, request, p.route, started);
      void compacting.then(() => sendBody(req, res, view.compact, request, p.route, started)).catch((err: unknown) => fault(err, res, request, p.route, started));
      return;
    }
    const entry = snapshot.lookup(principal, p.toolId);
    if (!entry) return sendError(res, 'not_found', NOT_FOUND_MESSAGE, undefined, {}, request, p.route, started);
    sendBody(req, res, p.compact ? entry.compact : entry.standard, request, p.route, started);
  };

  const refuse = (res: ServerResponse, err: ContractError, request: FastRequest, route: Route, started: number): void =>
    sendError(res, err.code, err.message, err.details, err.headers, request, route, started);

  /** What fastify's error handler does with a fault: log it, answer 500 in the envelope. */
  const fault = (err: unknown, res: ServerResponse, request: FastRequest, route: Route, started: number): void => {
    deps.logger.error({ err }, 'unhandled error in request');
    if (!res.headersSent) sendError(res, 'internal_error', 'internal error', undefined, {}, request, route, started);
  };

  return (req, res) => {
    const p = parse(req);
    if (p === undefined || !gatePasses(req)) return fastify(req, res);
    const started = performance.now();
    const request = new FastRequest(req.headers);
    try {
      const caller = callerOf(request, authenticator);
      if (caller instanceof Promise) {
        void caller
          .then((c) => (c instanceof ContractError ? refuse(res, c, request, p.route, started) : answer(req, res, p, c, request, started)))
          .catch((err: unknown) => fault(err, res, request, p.route, started));
        return;
      }
      if (caller instanceof ContractError) return refuse(res, caller, request, p.route, started);
      answer(req, res, p, caller, request, started);
    } catch (err) {
      fault(err, res, request, p.route, started);
    }
  };
}
