// A principal's own upstream credentials over HTTP (docs/auth.md "Upstream
// credentials"). Same bearer credential as /tools; a principal sees and
// changes only its own connections, and never reads a secret back:
//
//   GET    /connections               -> { connections: [{ source, label, mode, state, updatedAt?, connectUrl? }] }
//   GET    /connections/{source}      -> one of them (404 for a source whose credentials are shared or unknown)
//   PUT    /connections/{source}      { "secret": "..." } -> 204, stored sealed (per-principal sources)
//   DELETE /connections/{source}      -> 204, or 404 when there was nothing to forget
import type { FastifyInstance, FastifyReply } from 'fastify';
import { ContractError } from '../contract/errors.js';
import { CredentialInputError, type UpstreamCredentials } from '../upstream/credentials.js';
import type { HttpDeps } from './deps.js';
import { requirePrincipal } from './auth-hook.js';
import { JSON_TYPE, sendError } from './respond.js';
import { PROTOCOL_VERSION } from '../contract/protocol.js';

const NOT_FOUND = 'no connection with that source is available';

function sendJson(reply: FastifyReply, body: unknown): FastifyReply {
  return reply.code(200).header('openwop-version', PROTOCOL_VERSION).header('content-type', JSON_TYPE).header('cache-control', 'no-store').send(JSON.stringify(body));
}

export function registerConnectionRoutes(app: FastifyInstance, deps: Pick<HttpDeps, 'authenticator'>, credentials: UpstreamCredentials): void {
  app.get('/connections', async (request, reply) => {
    const principal = await requirePrincipal(request, deps.authenticator);
    return sendJson(reply, { connections: await credentials.connections(principal) });
  });

  app.get('/connections/:source', async (request, reply) => {
    const principal = await requirePrincipal(request, deps.authenticator);
    const { source } = request.params as { source: string };
    const found = (await credentials.connections(principal)).find((c) => c.source === source);
    return found ? sendJson(reply, found) : sendError(reply, 'not_found', NOT_FOUND);
  });

  app.put('/connections/:source', async (request, reply) => {
    const principal = await requirePrincipal(request, deps.authenticator);
    const { source } = request.params as { source: string };
    if (!credentials.governs(source)) return sendError(reply, 'not_found', NOT_FOUND);
    const body = request.body as { secret?: unknown } | undefined;
    if (body === null || typeof body !== 'object' || Array.isArray(body) || Object.keys(body).some((k) => k !== 'secret')) {
      throw new ContractError('validation_error', 'the body must be {"secret": "<your credential for this source>"}');
    }
    try {
      await credentials.setSecret(source, principal, body.secret);
    } catch (err) {
      if (err instanceof CredentialInputError) throw new ContractError('validation_error', err.message);
      throw err;
    }
    return reply.code(204).header('openwop-version', PROTOCOL_VERSION).header('cache-control', 'no-store').send();
  });

  app.delete('/connections/:source', async (request, reply) => {
    const principal = await requirePrincipal(request, deps.authenticator);
    const { source } = request.params as { source: string };
    if (!(await credentials.remove(source, principal))) return sendError(reply, 'not_found', NOT_FOUND);
    return reply.code(204).header('openwop-version', PROTOCOL_VERSION).header('cache-control', 'no-store').send();
  });
}
