// The HTTP front (docs/contract.md "Endpoints", "Error body"): a fastify instance
// whose every answer, including fastify's and Node's own failures, is the
// contract's error envelope, and which stamps `OpenWOP-Version: 2.0` on every
// response: the protocol gate on routes, sendError on every error (so errors
// raised before any hook, such as a body that fails to parse, carry it too),
// answerClientError for what Node's parser refuses.
//
// The node:http server is made here (fastify's `serverFactory`), so that the
// catalog's plain reads can be answered in front of fastify's own request
// handler and the connection rules apply to every server fastify listens with.
import { createServer, type Server } from 'node:http';
import { EventLogUnavailableError } from '../events/log-health.js';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest, type HookHandlerDoneFunction } from 'fastify';
import { ContractError } from '../contract/errors.js';
import { AuditLines } from './audit-lines.js';
import { refuseAnonymous, registerAuthHooks } from './auth-hook.js';
import { withCatalogFastPath, type RequestListener } from './catalog-fast-path.js';
import { countRequest, registerRequestObservers } from './request-observers.js';
import { prependHook } from './route-hooks.js';
import { DISABLED_TRACING } from '../observability/tracing.js';
import { answerClientError, answerConnect, answerExpectation, trackResponses } from './client-error.js';
import { registerAdminRoutes } from './admin-routes.js';
import { registerDiscoveryRoutes } from './discovery-routes.js';
import type { HttpDeps } from './deps.js';
import { registerEventRoutes } from './events-routes.js';
import { registerConnectionRoutes } from './connection-routes.js';
import { registerOAuthRoutes } from './oauth-routes.js';
import { registerHealthRoutes } from './health-routes.js';
import { protocolGate, sendContractError, sendError } from './respond.js';
import { registerSearchRoutes } from './search-routes.js';
import { registerToolRoutes } from './tool-routes.js';
import { registerUiRoutes } from './ui-routes.js';
import { registerWhoamiRoute } from './whoami-route.js';
import { DEFAULT_CONNECTION_LIMITS, guardConnections, serverTimeoutOptions, type ConnectionLimits } from './connection-limits.js';

/**
 * The node:http server fastify listens with: the timeouts (fastify leaves
 * them to whoever makes the server), the connection rules, the responses
 * followed for the parser's refusals (client-error.ts), the answers to
 * `Expect` and `CONNECT`, and, with tracing off, the catalog's plain reads
 * answered before fastify (catalog-fast-path.ts); with tracing on, fastify's
 * routes answer them, opening each request's span.
 */
function serverFactory(deps: HttpDeps, limits: ConnectionLimits, auditLines: AuditLines | undefined): (fastify: RequestListener) => Server {
  const timeouts = serverTimeoutOptions(limits);
  const tracing = deps.tracing ?? DISABLED_TRACING;
  return (fastify) => {
    const listener = tracing.enabled ? fastify : withCatalogFastPath(fastify, deps, auditLines);
    // Node would answer a Host-less HTTP/1.1 request with a bare 400; the protocol gate answers it in the envelope.
    const server = createServer({ ...timeouts.http, requireHostHeader: false }, listener);
    server.keepAliveTimeout = timeouts.keepAliveTimeout;
    server.requestTimeout = timeouts.requestTimeout;
    server.setTimeout(timeouts.connectionTimeout);
    // The unread-body rule goes in front of the listener above.
    guardConnections(server, limits, deps.logger);
    trackResponses(server);
    server.on('checkExpectation', answerExpectation);
    server.on('connect', answerConnect);
    return server;
  };
}

export function buildApp(deps: HttpDeps): FastifyInstance {
  const limits = deps.connectionLimits ?? DEFAULT_CONNECTION_LIMITS;
  const auditLines = deps.authenticator.audit === false ? undefined : new AuditLines(deps.logger);
  const app = Fastify({
    serverFactory: serverFactory(deps, limits, auditLines),
    logger: false,
    routerOptions: { maxParamLength: 2048 },
    bodyLimit: 65_536,
    // fastify's own 503 while closing is not the envelope; requests that
    // arrive while the host drains are answered as usual (from memory).
    return503OnClosing: false,
    // Node's parser refusals (malformed request line or headers, 431, 408) in the envelope.
    clientErrorHandler: answerClientError,
    // Long-lived streams (SSE, MCP) are ended by their own close hooks; idle keep-alive sockets must not hold close() up.
    forceCloseConnections: true,
    // Malformed URLs are fastify's own errors: keep them in the envelope too.
    frameworkErrors: (error, _request, reply) => {
      sendError(reply, 'validation_error', error.code === 'FST_ERR_BAD_URL' ? 'malformed URL' : 'malformed request');
    },
  });
  const tracing = deps.tracing ?? DISABLED_TRACING;

  // The protocol gate runs first on every route (a route-level hook added as
  // routes are registered); the catalog's GET routes run it inline instead,
  // which keeps fastify's onRequest hook runner off their path (the request
  // count's onResponse hook does run there). The not-found handler and
  // fastify's own errors stamp the header themselves.
  const gateHook = (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction): void => {
    if (protocolGate(request, reply)) done();
  };
  app.addHook('onRoute', (route) => {
    if ((route.config as { protocolGateInline?: boolean } | undefined)?.protocolGateInline === true) return;
    route.onRequest = prependHook(route.onRequest, gateHook as never);
  });

  // Audit line per route, global bound on health and discovery (docs/auth.md); before any route.
  registerAuthHooks(app, deps.authenticator, auditLines);
  // The lines of the last answers are written before the host's logger closes.
  if (auditLines !== undefined) app.addHook('onClose', (_instance, done) => { auditLines.flush(); done(); });
  registerRequestObservers(app, deps.metrics, tracing);

  app.setErrorHandler((error, _request, reply) => {
    if (error instanceof ContractError) return sendContractError(reply, error);
    // An event store that cannot be read now (its database is down): the host's state, not the request's fault.
    if (error instanceof EventLogUnavailableError) return sendError(reply, 'toolhost.unavailable', error.message, { reason: error.failure.reason }, { 'retry-after': '1' });
    const status = (error as { statusCode?: number }).statusCode;
    // fastify's own refusals: the body limit, a content type no parser takes, a body that does not parse.
    if (status === 413) return sendError(reply, 'payload_too_large', 'the request body is too large');
    if (status === 415) return sendError(reply, 'unsupported_media_type', 'unsupported content type');
    if (status !== undefined && status >= 400 && status < 500) {
      return sendError(reply, 'validation_error', 'malformed request');
    }
    deps.logger.error({ err: error }, 'unhandled error in request');
    return sendError(reply, 'internal_error', 'internal error');
  });

  app.setNotFoundHandler((request, reply) => {
    if (protocolGate(request, reply) && !refuseAnonymous(reply, deps.authenticator)) sendError(reply, 'not_found', 'no such resource');
    // No route, so no route hooks: the not-found answer is counted here.
    countRequest(deps.metrics, 'unrouted', request, reply.statusCode);
    return reply;
  });

  registerToolRoutes(app, deps);
  if (deps.search) registerSearchRoutes(app, { store: deps.store, authenticator: deps.authenticator, search: deps.search, items: deps.items });
  registerWhoamiRoute(app, deps.authenticator);
  registerDiscoveryRoutes(app, deps);
  registerHealthRoutes(app, deps);
  if (deps.events) registerEventRoutes(app, deps, deps.eventRoutes);
  if (deps.admin) registerAdminRoutes(app, deps.admin);
  if (deps.credentials) registerConnectionRoutes(app, deps, deps.credentials);
  if (deps.credentials?.oauth) registerOAuthRoutes(app, deps, deps.credentials.oauth);
  if (deps.ui) registerUiRoutes(app, { authenticator: deps.authenticator, assets: deps.ui.assets });
  return app;
}
