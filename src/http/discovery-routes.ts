// Unauthenticated discovery documents, each built once, with an ETag and 304
// on If-None-Match: GET /.well-known/openwop (docs/contract.md "Discovery") and,
// with OAuth discovery configured, the protected resource metadata (RFC 9728)
// at the root and path-suffixed well-known paths (docs/auth.md "OAuth discovery").
import type { FastifyInstance } from 'fastify';
import { Body } from '../catalog/body.js';
import type { HttpDeps } from './deps.js';
import { sendBody } from './respond.js';

export function registerDiscoveryRoutes(app: FastifyInstance, deps: HttpDeps): void {
  app.get('/.well-known/openwop', async (request, reply) => sendBody(request, reply, deps.discoveryBody, 'public, max-age=60'));
  const resource = deps.protectedResource;
  if (resource !== undefined) {
    const body = Body.json(JSON.stringify(resource.document));
    for (const path of resource.paths) app.get(path, async (request, reply) => sendBody(request, reply, body, 'public, max-age=300'));
  }
}
