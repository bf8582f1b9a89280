// The /mcp route (docs/mcp.md): every request authenticated before its body
// is parsed, then matched to its session (held here, rebuilt from another
// replica's signed id, or opened by an initialize) and handed to that
// session's transport inside the request's span. Another identity presenting
// a session id gets the answer of an unknown id.
import { randomUUID } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import type { Principal } from '../auth/principal.js';
import { PROTOCOL_VERSION } from '../contract/protocol.js';
import { requirePrincipal } from '../http/auth-hook.js';
import { requestSpan } from '../http/request-observers.js';
import { DISABLED_TRACING } from '../observability/tracing.js';
import { followPrincipal } from './list-changes.js';
import { recordedCalls, refuseWhileLogDown } from './log-refusal.js';
import type { FrontDoorParts } from './parts.js';
import { withPrincipal } from './request-principal.js';
import { rpcError } from './rpc-errors.js';
import { sessionChoice } from './session-choice.js';
import type { FrontDoorTransport } from './fast-call.js';
import { openSession } from './session-opener.js';
import type { McpSession, SessionTransport } from './sessions.js';

const MAX_MCP_BODY_BYTES = 4 * 1024 * 1024;

/** Names a session of a single replica; made once, so a session's transport holds nothing of the request that opened it. */
const unsignedId = (): string => randomUUID();

/** The request, handed to a session's transport: the answer is the transport's to write. */
async function handOver(parts: FrontDoorParts, request: FastifyRequest, reply: FastifyReply, principal: Principal, transport: SessionTransport): Promise<FastifyReply> {
  const tracing = parts.options.tracing ?? DISABLED_TRACING;
  reply.raw.setHeader('openwop-version', PROTOCOL_VERSION);
  reply.hijack();
  await tracing.withSpan(requestSpan(request), () => transport.handleRequest(withPrincipal(request.raw, reply, principal), reply.raw, request.body));
  return reply;
}

/** An initialize without a session: a new session, if the principal may open one and its choice is good. */
async function initialize(parts: FrontDoorParts, request: FastifyRequest, reply: FastifyReply, principal: Principal, identity: string): Promise<FastifyReply> {
  if (request.method !== 'POST' || !isInitializeRequest(request.body)) return rpcError(reply, 400, -32000, 'Bad Request: no valid session id');
  const { sessions, options, replicas } = parts;
  const query = (request.query ?? {}) as Record<string, unknown>;
  const choice = sessionChoice(query, principal, { compactTenants: options.compactTenants, searchTenants: options.searchTenants, searchAvailable: options.search !== undefined });
  if ('refused' in choice) return rpcError(reply, 400, -32000, choice.refused);
  // Throws the session cap's refusal (auth/principal-caps.ts) when every session of the principal is busy.
  const slot = sessions.admit(identity);
  let transport: FrontDoorTransport | undefined;
  try {
    // Signed before the SDK asks for it: its id generator cannot wait.
    const signedId = await replicas?.newId(identity, request.body, choice);
    const newId = signedId === undefined ? unsignedId : () => signedId;
    transport = (await openSession(parts, request, { principal, identity, choice, newId, slot })).transport;
    return await handOver(parts, request, reply, principal, transport);
  } finally {
    // The transport names its session (and registers it, with the slot) while it handles the initialize; no name, no session.
    if (transport?.sessionId === undefined) slot.release();
  }
}

/** A request of an open session. */
async function inSession(parts: FrontDoorParts, request: FastifyRequest, reply: FastifyReply, principal: Principal, session: McpSession): Promise<FastifyReply> {
  const calls = recordedCalls(request);
  const refused = refuseWhileLogDown(parts.deps, calls, reply);
  if (refused !== undefined) return refused;
  // Calls count against the principal's cap from here until their answers are written or their client has gone
  // (which cancels them): refused before anything runs, with the caps' one refusal (auth/principal-caps.ts).
  if (calls > 0) {
    const endCalls = parts.sessions.beginCalls(session, calls);
    reply.raw.once('finish', endCalls).once('close', endCalls);
  }
  session.lastSeen = Date.now();
  followPrincipal(parts, session, principal);
  parts.replicas?.beforeRequest(session, request);
  await handOver(parts, request, reply, principal, session.transport);
  if (request.method === 'DELETE') parts.replicas?.afterDelete(session, reply.raw.statusCode);
  return reply;
}

/**
 * The session a request names, rebuilt here when it is another replica's
 * (or one this replica let go idle); concurrent requests of one session (its
 * GET stream and a POST) wait for the same rebuild. Throws the session
 * cap's refusal when the principal may not hold one more session.
 */
function sessionFinder(parts: FrontDoorParts): (request: FastifyRequest, id: string, principal: Principal) => Promise<{ session?: McpSession }> {
  const rebuilding = new Map<string, Promise<McpSession | undefined>>();
  return async (request, id, principal) => {
    const { sessions, replicas } = parts;
    const identity = principal.key;
    const held = sessions.get(id);
    const state = held === undefined ? await replicas?.restorable(id, identity) : undefined;
    if (state === undefined) return { session: held };
    // Another request may have rebuilt it meanwhile.
    const session = sessions.get(id);
    if (session !== undefined) return { session };
    let pending = rebuilding.get(id);
    if (pending === undefined) {
      const slot = sessions.admit(identity);
      pending = openSession(parts, request, { principal, identity, choice: state, newId: () => id, slot, restored: { id, state } })
        .then(
          (opened) => opened.session,
          (err: unknown) => {
            slot.release();
            throw err;
          },
        )
        .finally(() => rebuilding.delete(id));
      rebuilding.set(id, pending);
    }
    return { session: await pending };
  };
}

export function registerMcpRoute(app: FastifyInstance, parts: FrontDoorParts): void {
  const principals = new WeakMap<FastifyRequest, Principal>();
  const findSession = sessionFinder(parts);
  app.route({
    method: ['GET', 'POST', 'DELETE'],
    url: '/mcp',
    bodyLimit: MAX_MCP_BODY_BYTES,
    // Authenticate before the body is parsed, so a request without a credential is a 401 whatever it carries.
    onRequest: async (request) => {
      principals.set(request, await requirePrincipal(request, parts.options.authenticator));
      // A DELETE carries no body, whatever Content-Type a client adds: nothing to parse (an empty JSON body would be refused as malformed).
      const { headers } = request.raw;
      if (request.method === 'DELETE' && headers['transfer-encoding'] === undefined && (headers['content-length'] ?? '0') === '0') delete headers['content-type'];
    },
    handler: async (request, reply) => {
      const principal = principals.get(request)!;
      const identity = principal.key;
      const header = request.headers['mcp-session-id'];
      const sessionId = Array.isArray(header) ? header[0] : header;
      if (sessionId === undefined) return initialize(parts, request, reply, principal, identity);
      const found = await findSession(request, sessionId, principal);
      // Another identity (another principal, tenant or credential kind) presenting a session id gets the same answer as an unknown id.
      if (found.session === undefined || found.session.identity !== identity) return rpcError(reply, 404, -32001, 'Session not found');
      return inSession(parts, request, reply, principal, found.session);
    },
  });
}
