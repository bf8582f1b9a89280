// `GET /whoami`: who the presented credential is to this host (principal id,
// tenant, credential kind), so a person signed in to the catalog browser sees
// whose view they are looking at. It tells the caller only about itself, from
// the principal the authenticator already resolved: no scopes of other
// principals, never the credential; refusals are the same 401/429 as /tools.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Authenticator } from '../auth/principal.js';
import { requirePrincipal } from './auth-hook.js';
import { JSON_TYPE, sendError } from './respond.js';

export function registerWhoamiRoute(app: FastifyInstance, authenticator: Authenticator): void {
  app.get('/whoami', async (request, reply) => {
    const principal = await requirePrincipal(request, authenticator);
    const body = JSON.stringify({ principal: principal.id, tenant: principal.tenant, kind: principal.kind });
    return reply.header('content-type', JSON_TYPE).header('cache-control', 'no-store').send(body);
  });
  const readOnly = (_request: FastifyRequest, reply: FastifyReply) => sendError(reply, 'toolhost.method_not_allowed', '/whoami is read with GET', undefined, { allow: 'GET, HEAD' });
  app.route({ method: ['POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'], url: '/whoami', handler: readOnly });
}
