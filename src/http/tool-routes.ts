// GET /tools and GET /tools/{toolId}, standard and compact (docs/contract.md "The
// catalog", "Views and sessions"). Answers come from the current snapshot:
// a lookup and pre-serialized bytes. Unknown and invisible ids share one 404.
//
// The handlers are synchronous when the credential can be checked
// synchronously (API keys, a remembered JWT): no promise, no extra turn of
// the event loop on the request path, which is most of the cost of a small
// answer.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Principal } from '../auth/principal.js';
import type { Body } from '../catalog/body.js';
import { profileListBody, profiledTool } from '../catalog/profiles/profiled.js';
import { PROFILE_IDS, type ProfileId, isProfileId } from '../catalog/profiles/rules.js';
import { ContractError } from '../contract/errors.js';
import type { HttpDeps } from './deps.js';
import { callerOf } from './auth-hook.js';
import { protocolGate, sendBody, sendContractError, sendError } from './respond.js';

const READ_METHODS = 'GET, HEAD';
const OTHER_METHODS = ['POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'] as const;
export const NOT_FOUND_MESSAGE = 'no tool with that id is available';
const PREFIX_LENGTH = '/tools/'.length;

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

/** The toolId from the raw path, percent-decoded once (ids may hold `:` `/` `.`). */
export function toolIdFromUrl(url: string): string {
  const q = url.indexOf('?', PREFIX_LENGTH);
  const path = q < 0 ? url.slice(PREFIX_LENGTH) : url.slice(PREFIX_LENGTH, q);
  if (!path.includes('%')) return path;
  try {
    return decodeURIComponent(path);
  } catch {
    throw new ContractError('validation_error', 'malformed percent-encoding in toolId');
  }
}

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

export function registerToolRoutes(app: FastifyInstance, deps: HttpDeps): void {
  app.get('/tools', GATE_INLINE, (request, reply) =>
    withPrincipal(request, reply, deps, (principal) => {
      const profile = profileOf(request);
      if (profile === null) return sendError(reply, 'validation_error', UNKNOWN_PROFILE);
      const snapshot = deps.store.current();
      const view = snapshot.viewFor(principal);
      if (profile !== undefined) return sendBody(request, reply, profileListBody(view, profile));
      if (!wantsCompact(request)) return sendBody(request, reply, view.standard);
      // Still being compacted after a start: answered once it is (docs/benchmarks.md "Cold start").
      const compacting = snapshot.whenCompacted();
      return compacting === undefined ? sendBody(request, reply, view.compact) : compacting.then(() => sendBody(request, reply, view.compact));
    }),
  );

  app.get('/tools/*', GATE_INLINE, (request, reply) =>
    withPrincipal(request, reply, deps, (principal) => {
      const profile = profileOf(request);
      if (profile === null) return sendError(reply, 'validation_error', UNKNOWN_PROFILE);
      const entry = deps.store.current().lookup(principal, toolIdFromUrl(request.url));
      if (!entry) return sendError(reply, 'not_found', NOT_FOUND_MESSAGE);
      if (profile !== undefined) return sendBody(request, reply, profiledTool(entry.tool.descriptor, profile).body);
      const body: Body = wantsCompact(request) ? entry.compact : entry.standard;
      return sendBody(request, reply, body);
    }),
  );

  app.route({ method: [...OTHER_METHODS], url: '/tools', handler: methodNotAllowed });
  app.route({ method: [...OTHER_METHODS], url: '/tools/*', handler: methodNotAllowed });
}
