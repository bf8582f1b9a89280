// The catalog's reads (docs/contract.md "Endpoints": GET /tools, GET
// /tools/{toolId}) answered on node:http itself, in front of fastify: the
// answers are bytes that already exist, and fastify's request and reply
// objects, route lookup and hook runners cost more than the rest of such a
// request (docs/benchmarks.md "Small answers"). Same answers
// as the fastify routes of tool-routes.ts, byte for byte (status, headers in
// the same order, body; test/http/fast-path-equivalence.property.test.ts),
// made by the same functions: the protocol gate's rule, callerOf, the body
// catalog-read.ts chooses, the answer and headers and error texts of
// respond.ts, the audit line and the request count; only the writing is
// this file's own.
//
// Only the plain form is taken here: GET, `/tools` or `/tools/{id}`, no
// query or exactly `?view=compact`, a served or absent `OpenWOP-Version`, a
// Host header. Anything else (HEAD, other methods, other queries, a bad
// percent-encoding, an unserved version, tracing on) goes to fastify, which
// answers every form.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Principal } from '../auth/principal.js';
import type { Body } from '../catalog/body.js';
import { ContractError, ERROR_STATUS, type ErrorCode } from '../contract/errors.js';
import { isServedVersion, PROTOCOL_HEADER, PROTOCOL_VERSION } from '../contract/protocol.js';
import type { AuditLines } from './audit-lines.js';
import { callerOf, type AuthTarget } from './auth-hook.js';
import type { HttpDeps } from './deps.js';
import { countRequest } from './request-observers.js';
import { catalogBody, NOT_FOUND_MESSAGE, toolIdFromUrl, type CatalogRead, type CatalogRoute } from './catalog-read.js';
import { bodyAnswer, bodyHeaders, errorText, JSON_TYPE, PRIVATE_CACHE, type BodyAnswer } from './respond.js';

export type RequestListener = (req: IncomingMessage, res: ServerResponse) => void;

/** Longer paths go to fastify, whose router bounds a path parameter (app.ts `maxParamLength`). */
const MAX_FAST_URL = 1024;
const COMPACT_QUERY = '?view=compact';

/** The request as the audit line and the request count read it. */
class FastRequest implements AuthTarget {
  principal: Principal | null = null;
  authFailure: string | null = null;
  authFailureKind: string | null = null;
  readonly method = 'GET';
  constructor(readonly headers: IncomingMessage['headers']) {}
}

/** The plain form of a catalog read, or undefined for fastify to answer. */
function parse(req: IncomingMessage): CatalogRead | undefined {
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

function byteLength(parts: readonly Buffer[]): number {
  let n = 0;
  for (const p of parts) n += p.length;
  return n;
}

/** A body of several buffers (a list body's parts), handed to the socket in one go. */
function writeParts(res: ServerResponse, parts: readonly Buffer[]): void {
  if (parts.length === 1) return void res.end(parts[0]);
  res.cork();
  for (let i = 0; i < parts.length - 1; i++) res.write(parts[i]);
  res.end(parts[parts.length - 1]);
  res.uncork();
}

/**
 * Wraps fastify's request handler: the plain catalog reads are answered
 * here, everything else by fastify. Off when tracing is on (fastify's
 * routes open the request's span).
 */
export function withCatalogFastPath(fastify: RequestListener, deps: HttpDeps, auditLines: AuditLines | undefined): RequestListener {
  const { authenticator, metrics } = deps;

  const finish = (res: ServerResponse, status: number, headers: string[], body: Buffer | readonly Buffer[] | string | undefined, request: FastRequest, route: CatalogRoute, started: number): void => {
    res.writeHead(status, headers);
    if (typeof body === 'string' || body === undefined || Buffer.isBuffer(body)) res.end(body);
    else writeParts(res, body);
    countRequest(metrics, route, request, status);
    auditLines?.write(route, request, status, performance.now() - started);
  };

  const sendError = (res: ServerResponse, code: ErrorCode, message: string, details: Record<string, unknown> | undefined, extra: Record<string, string>, request: FastRequest, route: CatalogRoute, started: number): void => {
    const text = errorText(code, message, details);
    const headers = [PROTOCOL_HEADER, PROTOCOL_VERSION, 'content-type', JSON_TYPE, 'cache-control', 'no-store'];
    for (const k in extra) headers.push(k, extra[k]);
    headers.push('content-length', String(Buffer.byteLength(text)));
    finish(res, ERROR_STATUS[code], headers, text, request, route, started);
  };

  const sendBody = (req: IncomingMessage, res: ServerResponse, body: Body, request: FastRequest, route: CatalogRoute, started: number): void => {
    const answer = bodyAnswer(req.headers, body, true);
    const bytes = answer.bytes;
    if (bytes instanceof Promise) {
      void bytes.then((b) => sendAnswer(res, answer, b, request, route, started)).catch((err: unknown) => fault(err, res, request, route, started));
    } else sendAnswer(res, answer, bytes, request, route, started);
  };

  // No closure made per request: under a transpiler that keeps function names, each costs a defineProperty.
  const sendAnswer = (res: ServerResponse, answer: BodyAnswer, bytes: Buffer | readonly Buffer[] | undefined, request: FastRequest, route: CatalogRoute, started: number): void => {
    const headers = bodyHeaders(answer, PRIVATE_CACHE, [PROTOCOL_HEADER, PROTOCOL_VERSION]);
    if (bytes !== undefined) headers.push('content-length', String(Buffer.isBuffer(bytes) ? bytes.length : byteLength(bytes)));
    finish(res, answer.status, headers, bytes, request, route, started);
  };

  const answer = (req: IncomingMessage, res: ServerResponse, read: CatalogRead, principal: Principal, request: FastRequest, started: number): void => {
    const body = catalogBody(deps.store, principal, read);
    if (body === undefined) return sendError(res, 'not_found', NOT_FOUND_MESSAGE, undefined, {}, request, read.route, started);
    if (!(body instanceof Promise)) return sendBody(req, res, body, request, read.route, started);
    void body.then((b) => sendBody(req, res, b, request, read.route, started)).catch((err: unknown) => fault(err, res, request, read.route, started));
  };

  const refuse = (res: ServerResponse, err: ContractError, request: FastRequest, route: CatalogRoute, started: number): void =>
    sendError(res, err.code, err.message, err.details, err.headers, request, route, started);

  /** What fastify's error handler does with a fault: log it, answer 500 in the envelope. */
  const fault = (err: unknown, res: ServerResponse, request: FastRequest, route: CatalogRoute, started: number): void => {
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
