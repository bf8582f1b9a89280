// The catalog's routes on fastify: GET (and HEAD) /tools and /tools/{toolId}
// in every form, the body chosen by catalog-read.ts, and 405 for the other
// methods (the catalog is read-only).
//
// The handlers are synchronous when the credential can be checked
// synchronously (API keys, a remembered JWT): no promise, no extra turn of
// the event loop on the request path, which is most of the cost of a small
// answer.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Principal } from '../auth/principal.js';
import { PROFILE_IDS, type ProfileId, isProfileId } from '../catalog/profiles/rules.js';
import { ContractError } from '../contract/errors.js';
import type { HttpDeps } from './deps.js';
import { callerOf } from './auth-hook.js';
import { catalogBody, NOT_FOUND_MESSAGE, toolIdFromUrl, type CatalogRoute } from './catalog-read.js';
import { protocolGate, sendBody, sendContractError, sendError } from './respond.js';

const READ_METHODS = 'GET, HEAD';
const OTHER_METHODS = ['POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'] as const;

/** Only exactly `view=compact` selects the compact view; anything else is the standard view. */
function wantsCompact(request: FastifyRequest): boolean {
  return (request.query as Record<string, unknown> | undefined)?.view === 'compact';
}

/**
 * The provider profile of a compact request (docs/compact-view.md "Provider
 * profiles"): undefined without one (or outside the compact view), null when
 * it names no profile (answered 400).
 */
function profileOf(request: FastifyRequest): ProfileId | undefined | null {
  const p = (request.query as Record<string, unknown> | undefined)?.profile;
  if (p === undefined || !wantsCompact(request)) return undefined;
  return isProfileId(p) ? p : null;
}

const UNKNOWN_PROFILE = `profile must be one of ${PROFILE_IDS.join(', ')}`;

function methodNotAllowed(_request: FastifyRequest, reply: FastifyReply): FastifyReply {
  return sendError(reply, 'toolhost.method_not_allowed', 'the catalog is read-only', undefined, { allow: READ_METHODS });
}

/**
 * Runs the protocol gate (these routes have no hook for it), then `answer`
 * with the caller: at once when the credential was checked
 * synchronously, after the check otherwise. A refused credential (a
 * ContractError: 401, 429, 503) is answered here, as the app's error handler
 * would answer it, without a detour through fastify's error path.
 */
function withPrincipal(
  request: FastifyRequest,
  reply: FastifyReply,
  deps: HttpDeps,
  answer: (principal: Principal) => FastifyReply | Promise<FastifyReply>,
): undefined | FastifyReply | Promise<FastifyReply> {
  if (!protocolGate(request, reply)) return reply;
  const caller = callerOf(request, deps.authenticator);
  if (caller instanceof Promise) return caller.then((c) => (c instanceof ContractError ? sendContractError(reply, c) : answer(c)));
  if (caller instanceof ContractError) {
    sendContractError(reply, caller);
    return undefined;
  }
  const sent = answer(caller);
  // A body still being compressed: fastify waits for the promise.
  return sent instanceof Promise ? sent : undefined;
}

/** The GET routes run the protocol gate themselves (app.ts): no hook runner on the hottest path. */
const GATE_INLINE = { config: { protocolGateInline: true } };

/** A catalog read on fastify's road: the profile checked, then the body `catalogBody` chooses. */
function readCatalog(request: FastifyRequest, reply: FastifyReply, deps: HttpDeps, route: CatalogRoute): undefined | FastifyReply | Promise<FastifyReply> {
  return withPrincipal(request, reply, deps, (principal) => {
    const profile = profileOf(request);
    if (profile === null) return sendError(reply, 'validation_error', UNKNOWN_PROFILE);
    const toolId = route === '/tools' ? '' : toolIdFromUrl(request.url);
    const body = catalogBody(deps.store, principal, { route, toolId, compact: wantsCompact(request), profile });
    if (body === undefined) return sendError(reply, 'not_found', NOT_FOUND_MESSAGE);
    return body instanceof Promise ? body.then((b) => sendBody(request, reply, b)) : sendBody(request, reply, body);
  });
}

export function registerToolRoutes(app: FastifyInstance, deps: HttpDeps): void {
  app.get('/tools', GATE_INLINE, (request, reply) => readCatalog(request, reply, deps, '/tools'));
  app.get('/tools/*', GATE_INLINE, (request, reply) => readCatalog(request, reply, deps, '/tools/*'));
  app.route({ method: [...OTHER_METHODS], url: '/tools', handler: methodNotAllowed });
  app.route({ method: [...OTHER_METHODS], url: '/tools/*', handler: methodNotAllowed });
}
