// Resolves the caller of a catalog request (docs/contract.md "Authentication and
// tenancy"): a bearer credential is required; any failure is 401 with
// `WWW-Authenticate: Bearer`, never the credential echoed back. An admitted
// principal is then held to its rate limit (429 `rate_limited` with
// `Retry-After`), and recorded on the request for the audit line.
import type { IncomingHttpHeaders } from 'node:http';
import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import { bearerToken, type AuthOutcome, type Authenticator, type Principal } from '../auth/principal.js';
import { ContractError } from '../contract/errors.js';
import type { AuditLines } from './audit-lines.js';
import { sendError } from './respond.js';
import { appendHook } from './route-hooks.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The authenticated caller, once known (the audit line reads it). */
    principal: Principal | null;
    /** Why authentication failed, when it did (the audit line reads it; never the credential). */
    authFailure: string | null;
    /** The same as a bounded category, for metrics: missing, malformed, invalid_api_key, invalid_jwt, unavailable. */
    authFailureKind: string | null;
  }
}

const REALM = 'Bearer realm="toolhost"';

/** The challenge every 401 starts with; with OAuth discovery configured it names the metadata document (RFC 9728 section 5.1). */
const realmOf = (authenticator: Authenticator): string => (authenticator.challenge === undefined ? REALM : `${REALM}, ${authenticator.challenge}`);

/** A JWT is three base64url parts joined by dots; an API key is anything else. */
function isJwtShaped(header: string | undefined): boolean {
  return header !== undefined && /^Bearer +[\w-]+\.[\w-]+\.[\w-]*$/i.test(header.trim());
}

/**
 * The refusals of a credential (401), made once per authenticator and
 * reason and answered as they are: a refused request builds no error object
 * and throws nothing (the 401 path's cost in the benchmark's profile). A
 * reason never holds the credential; the JWT verifier's reasons are a small
 * set, and the map is bounded all the same.
 */
const refusals = new WeakMap<Authenticator, Map<string, ContractError>>();
const MAX_REFUSALS = 64;

function refusalOf(authenticator: Authenticator, presented: boolean, reason: string): ContractError {
  let known = refusals.get(authenticator);
  if (known === undefined) refusals.set(authenticator, (known = new Map()));
  const key = presented ? `1${reason}` : `0${reason}`;
  let refusal = known.get(key);
  if (refusal === undefined) {
    const challenge = presented ? `${realmOf(authenticator)}, error="invalid_token"` : realmOf(authenticator);
    refusal = new ContractError('unauthenticated', reason, undefined, Object.freeze({ 'www-authenticate': challenge }) as Record<string, string>);
    if (known.size >= MAX_REFUSALS) known.clear();
    known.set(key, refusal);
  }
  return refusal;
}

/** The principal, or the refusal to answer with (not thrown). */
function admitted(request: AuthTarget, authenticator: Authenticator, outcome: AuthOutcome): Principal | ContractError | Promise<Principal | ContractError> {
  if (!outcome.ok) {
    request.authFailure = outcome.reason;
    request.authFailureKind = outcome.unavailable ? 'unavailable' : !outcome.presented ? 'missing' : isJwtShaped(request.headers.authorization) ? 'invalid_jwt' : 'invalid_api_key';
    if (outcome.unavailable) return new ContractError('toolhost.unavailable', outcome.reason);
    return refusalOf(authenticator, outcome.presented, outcome.reason);
  }
  const principal = outcome.principal;
  request.principal = principal;
  const wait = authenticator.admit === undefined ? 0 : authenticator.admit(principal);
  // A number unless the buckets are shared (a round trip to Redis).
  if (typeof wait !== 'number') return wait.then((w) => refuseOver(w, principal));
  return refuseOver(wait, principal);
}

function refuseOver(wait: number, principal: Principal): Principal | ContractError {
  if (wait > 0) {
    return new ContractError('rate_limited', `rate limit exceeded for this principal; retry in ${wait} s`, { retryAfter: wait }, { 'retry-after': String(wait) });
  }
  return principal;
}

const malformedRefusals = new WeakMap<Authenticator, ContractError>();

/**
 * The caller of this request, or the refusal to answer with (a
 * ContractError, returned, not thrown: 401, 429, or 503 when signing keys
 * are unavailable): synchronous when the credential can be checked without
 * async work (API keys, a remembered JWT), a promise otherwise.
 */
export function callerOf(request: AuthTarget, authenticator: Authenticator): Principal | ContractError | Promise<Principal | ContractError> {
  const token = bearerToken(request.headers.authorization);
  if (token === null) {
    request.authFailure = 'malformed Authorization header';
    request.authFailureKind = 'malformed';
    let refusal = malformedRefusals.get(authenticator);
    if (refusal === undefined) {
      refusal = new ContractError('unauthenticated', 'malformed Authorization header: expected "Bearer <token>"', undefined, Object.freeze({
        'www-authenticate': `${realmOf(authenticator)}, error="invalid_request"`,
      }) as Record<string, string>);
      malformedRefusals.set(authenticator, refusal);
    }
    return refusal;
  }
  const outcome = authenticator.authenticate(token);
  if (outcome instanceof Promise) return outcome.then((o) => admitted(request, authenticator, o));
  return admitted(request, authenticator, outcome);
}

const orThrow = (caller: Principal | ContractError): Principal => {
  if (caller instanceof ContractError) throw caller;
  return caller;
};

/**
 * The caller of this request, as callerOf, but a refusal is thrown (or the
 * promise rejects with it), for routes whose error handler answers it.
 */
export function principalOf(request: FastifyRequest, authenticator: Authenticator): Principal | Promise<Principal> {
  const caller = callerOf(request, authenticator);
  return caller instanceof Promise ? caller.then(orThrow) : orThrow(caller);
}

export async function requirePrincipal(request: FastifyRequest, authenticator: Authenticator): Promise<Principal> {
  return principalOf(request, authenticator);
}

/**
 * Routes that need no credential; they share one global bound instead of
 * per-principal limits (and so do requests that match no route). Liveness and
 * readiness (`/healthz`, `/readyz`, `/health/sources`) are deliberately not
 * here: they are never limited, so a flood of anonymous or unrouted requests
 * cannot make a probe see 429 and restart a healthy host. Their answers cost
 * about what a 429 would; the connection caps and timeouts (docs/config.md
 * "server") bound a flood aimed at them.
 */
export const ANONYMOUS_ROUTES: ReadonlySet<string> = new Set(['/metrics', '/.well-known/openwop']);

/** ANONYMOUS_ROUTES and every other well-known document (the OAuth protected resource metadata). */
const isAnonymousRoute = (url: string): boolean => ANONYMOUS_ROUTES.has(url) || url.startsWith('/.well-known/');

/**
 * Takes from the global bound for a request that needs no credential; when
 * it is exhausted, answers 429 `rate_limited` with `Retry-After` and returns true.
 */
export function refuseAnonymous(reply: FastifyReply, authenticator: Authenticator): boolean {
  const wait = authenticator.admitAnonymous === undefined ? 0 : authenticator.admitAnonymous();
  if (wait === 0) return false;
  sendError(reply, 'rate_limited', `too many requests; retry in ${wait} s`, { retryAfter: wait }, { 'retry-after': String(wait) });
  return true;
}

type Hook = (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) => void;

/** What the audit line and the request count read of a request: FastifyRequest, or the catalog's fast path's own record. */
export interface AuthTarget {
  readonly headers: IncomingHttpHeaders;
  readonly method: string;
  principal: Principal | null;
  authFailure: string | null;
  authFailureKind: string | null;
}

/** The route pattern is captured when the route is registered, so a request builds nothing but its audit line. */
function auditHook(lines: AuditLines, route: string): Hook {
  return (request, reply, done) => {
    lines.write(route, request, reply.statusCode, reply.elapsedTime);
    done();
  };
}

/**
 * Call before any route is registered: decorates requests with the
 * principal, adds the audit line to every route (when `auditLines` is given) and
 * the global anonymous bound to ANONYMOUS_ROUTES. Per-route hooks keep both
 * off the request path of routes that do not need them.
 */
export function registerAuthHooks(app: FastifyInstance, authenticator: Authenticator, auditLines: AuditLines | undefined): void {
  app.decorateRequest('principal', null);
  app.decorateRequest('authFailure', null);
  app.decorateRequest('authFailureKind', null);
  const anonymous: Hook = (_request, reply, done) => {
    if (!refuseAnonymous(reply, authenticator)) done();
  };
  app.addHook('onRoute', (route) => {
    if (auditLines !== undefined) route.onResponse = appendHook(route.onResponse, auditHook(auditLines, route.url) as never);
    if (isAnonymousRoute(route.url) && authenticator.admitAnonymous !== undefined) route.onRequest = appendHook(route.onRequest, anonymous as never);
  });
}
