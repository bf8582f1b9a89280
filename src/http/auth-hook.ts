// Resolves the caller of a catalog request (CONTRACT.md "Authentication and
// tenancy"): a bearer credential is required; any failure is 401 with
// `WWW-Authenticate: Bearer`, never the credential echoed back. An admitted
// principal is then held to its rate limit (429 `rate_limited` with
// `Retry-After`), and recorded on the request for the audit line.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import { bearerToken, type AuthOutcome, type Authenticator, type Principal } from '../auth/principal.js';
import { ContractError } from '../contract/errors.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The authenticated caller, once known (the audit line reads it). */
    principal: Principal | null;
    /** Why authentication failed, when it did (the audit line reads it; never the credential). */
    authFailure: string | null;
  }
}

const REALM = 'Bearer realm="toolhost"';

function admitted(request: FastifyRequest, authenticator: Authenticator, outcome: AuthOutcome): Principal {
  if (!outcome.ok) {
    request.authFailure = outcome.reason;
    if (outcome.unavailable) throw new ContractError('unavailable', outcome.reason);
    const challenge = outcome.presented ? `${REALM}, error="invalid_token"` : REALM;
    throw new ContractError('unauthenticated', outcome.reason, undefined, { 'www-authenticate': challenge });
  }
  const principal = outcome.principal;
  request.principal = principal;
  const wait = authenticator.admit === undefined ? 0 : authenticator.admit(principal);
  if (wait > 0) {
    throw new ContractError('rate_limited', `rate limit exceeded for this principal; retry in ${wait} s`, { retryAfter: wait }, { 'retry-after': String(wait) });
  }
  return principal;
}

/**
 * The caller of this request: synchronous when the credential can be checked
 * without async work (API keys, a remembered JWT), a promise otherwise. Throws
 * (or rejects with) a ContractError: 401, 429, or 503 when signing keys are unavailable.
 */
export function principalOf(request: FastifyRequest, authenticator: Authenticator): Principal | Promise<Principal> {
  const token = bearerToken(request.headers.authorization);
  if (token === null) {
    request.authFailure = 'malformed Authorization header';
    throw new ContractError('unauthenticated', 'malformed Authorization header: expected "Bearer <token>"', undefined, {
      'www-authenticate': `${REALM}, error="invalid_request"`,
    });
  }
  const outcome = authenticator.authenticate(token);
  if (outcome instanceof Promise) return outcome.then((o) => admitted(request, authenticator, o));
  return admitted(request, authenticator, outcome);
}

export async function requirePrincipal(request: FastifyRequest, authenticator: Authenticator): Promise<Principal> {
  return principalOf(request, authenticator);
}

/** Routes that need no credential; they share one global bound instead of per-principal limits. */
export const ANONYMOUS_ROUTES: ReadonlySet<string> = new Set(['/healthz', '/readyz', '/health/sources', '/metrics', '/.well-known/openwop']);

/** Seconds to wait when an anonymous request (or one matching no route) is over the global bound, else 0. */
export function anonymousWait(request: FastifyRequest, authenticator: Authenticator): number {
  if (authenticator.admitAnonymous === undefined) return 0;
  const route = request.routeOptions.url;
  if (route !== undefined && !ANONYMOUS_ROUTES.has(route)) return 0;
  return authenticator.admitAnonymous();
}

const round3 = (ms: number): number => Math.round(ms * 1000) / 1000;

/**
 * The audit trail: one structured line per request that reached
 * authentication (principal id, tenant, credential kind, route pattern,
 * status, duration), and one per failed attempt with the reason. Never the
 * credential, never the raw URL.
 */
export function registerAudit(app: FastifyInstance, logger: Logger): void {
  app.addHook('onResponse', (request, reply, done) => {
    const p = request.principal;
    if (p !== null) {
      logger.info(
        { audit: true, principal: p.id, tenant: p.tenant, kind: p.kind, method: request.method, route: request.routeOptions.url, status: reply.statusCode, durationMs: round3(reply.elapsedTime) },
        'request',
      );
    } else if (request.authFailure !== null) {
      logger.info(
        { audit: true, principal: null, method: request.method, route: request.routeOptions.url, status: reply.statusCode, durationMs: round3(reply.elapsedTime), reason: request.authFailure },
        'request refused',
      );
    }
    done();
  });
}
