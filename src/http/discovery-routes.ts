// GET /.well-known/openwop (CONTRACT.md "Discovery"): unauthenticated, built
// once, with an ETag and 304 on If-None-Match.
import type { FastifyInstance } from 'fastify';
import type { HttpDeps } from './deps.js';
import { sendBody } from './respond.js';

export function registerDiscoveryRoutes(app: FastifyInstance, deps: HttpDeps): void {
  app.get('/.well-known/openwop', async (request, reply) => sendBody(request, reply, deps.discoveryBody, 'public, max-age=60'));
}
