// GET /tools and GET /tools/{toolId}, standard and compact (seed "The
// catalog", "Views and sessions"). Answers come from the current snapshot:
// a lookup and pre-serialized bytes. Unknown and invisible ids share one 404.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ContractError } from '../contract/errors.js';
import type { HttpDeps } from './app.js';
import { principalOf } from './auth-hook.js';
import { sendBody, sendError } from './respond.js';

const READ_METHODS = 'GET, HEAD';
const OTHER_METHODS = ['POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'] as const;
const NOT_FOUND_MESSAGE = 'no tool with that id is available';

/** Only exactly `view=compact` selects the compact view; anything else is the standard view. */
function wantsCompact(request: FastifyRequest): boolean {
  return (request.query as Record<string, unknown> | undefined)?.view === 'compact';
}

/** The toolId from the raw path, percent-decoded once (ids may hold `:` `/` `.`). */
function toolIdFromUrl(url: string): string {
  const path = url.slice('/tools/'.length).split('?', 1)[0];
  try {
    return decodeURIComponent(path);
  } catch {
    throw new ContractError('validation_error', 'malformed percent-encoding in toolId');
  }
}

function methodNotAllowed(_request: FastifyRequest, reply: FastifyReply): FastifyReply {
  return sendError(reply, 'method_not_allowed', 'the catalog is read-only', undefined, { allow: READ_METHODS });
}

export function registerToolRoutes(app: FastifyInstance, deps: HttpDeps): void {
  app.get('/tools', async (request, reply) => {
    // No await when the credential was checked synchronously (API keys, a remembered JWT).
    const resolved = principalOf(request, deps.authenticator);
    const principal = resolved instanceof Promise ? await resolved : resolved;
    const view = deps.store.current().viewFor(principal);
    return sendBody(request, reply, wantsCompact(request) ? view.compact : view.standard);
  });

  app.get('/tools/*', async (request, reply) => {
    // No await when the credential was checked synchronously (API keys, a remembered JWT).
    const resolved = principalOf(request, deps.authenticator);
    const principal = resolved instanceof Promise ? await resolved : resolved;
    const toolId = toolIdFromUrl(request.url);
    const entry = deps.store.current().lookup(principal, toolId);
    if (!entry) return sendError(reply, 'not_found', NOT_FOUND_MESSAGE);
    return sendBody(request, reply, wantsCompact(request) ? entry.compact : entry.standard);
  });

  app.route({ method: [...OTHER_METHODS], url: '/tools', handler: methodNotAllowed });
  app.route({ method: [...OTHER_METHODS], url: '/tools/*', handler: methodNotAllowed });
}
