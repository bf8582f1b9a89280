// The MCP front door (issue 7): `/mcp`, Streamable HTTP, one SDK `Server` per
// MCP session bound to the principal that opened it. Same credentials and the
// same visibility rule as GET /tools (the snapshot's views), the host's own
// annotations, paged tools/list, tools/call through the invocation layer, and
// notifications/tools/list_changed when a caller's visible set changes.
import { randomUUID } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, ErrorCode, isInitializeRequest, ListToolsRequestSchema, McpError } from '@modelcontextprotocol/sdk/types.js';
import type { Authenticator, Principal } from '../auth/principal.js';
import type { CatalogSnapshot } from '../catalog/snapshot.js';
import { IMPLEMENTATION, PROTOCOL_VERSION } from '../contract/protocol.js';
import { requirePrincipal } from '../http/auth-hook.js';
import { callCatalogTool, CallRefused } from '../invoke/call.js';
import type { ApprovalPrompt, InvokeDeps } from '../invoke/types.js';
import { DEFAULT_PAGE_SIZE, listPage } from './tool-listing.js';

export interface FrontDoorOptions {
  authenticator: Authenticator;
  /** Host header values accepted besides the loopback forms of the listening port (DNS-rebinding protection). */
  allowedHosts?: string[];
  pageSize?: number;
  /** Tenants whose MCP sessions get compact input schemas by default. */
  compactTenants?: ReadonlySet<string>;
  /** Sessions idle this long are closed. */
  sessionIdleMs?: number;
}

interface McpSession {
  id: string;
  principal: Principal;
  server: Server;
  transport: StreamableHTTPServerTransport;
  compact: boolean;
  lastSeen: number;
}

const MAX_MCP_BODY_BYTES = 4 * 1024 * 1024;

function rpcError(reply: FastifyReply, status: number, code: number, message: string): FastifyReply {
  return reply.code(status).header('content-type', 'application/json').send(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }));
}

function loopbackHosts(request: FastifyRequest): string[] {
  const address = request.server.server.address();
  const port = typeof address === 'object' && address ? address.port : undefined;
  return port === undefined ? [] : [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`];
}

export function registerMcpFrontDoor(app: FastifyInstance, deps: InvokeDeps, options: FrontDoorOptions): { sessionCount(): number } {
  const sessions = new Map<string, McpSession>();
  const principals = new WeakMap<FastifyRequest, Principal>();
  const pageSize = options.pageSize ?? DEFAULT_PAGE_SIZE;
  const idleMs = options.sessionIdleMs ?? 30 * 60_000;

  const buildServer = (principal: Principal, compact: boolean): Server => {
    const server = new Server({ name: IMPLEMENTATION.name, version: IMPLEMENTATION.version }, { capabilities: { tools: { listChanged: true } } });
    server.setRequestHandler(ListToolsRequestSchema, async (req) => {
      const snapshot = deps.store.current();
      return listPage(snapshot, snapshot.viewFor(principal), req.params?.cursor, pageSize, compact);
    });
    const approve: ApprovalPrompt = async (message) => {
      if (!server.getClientCapabilities()?.elicitation) return 'unsupported';
      const answer = await server.elicitInput({
        message,
        requestedSchema: { type: 'object', properties: { approve: { type: 'boolean', title: 'Approve this call' } }, required: ['approve'] },
      });
      if (answer.action !== 'accept') return answer.action;
      return answer.content?.approve === true ? 'accept' : 'decline';
    };
    server.setRequestHandler(CallToolRequestSchema, async (req, extra) => {
      const toolId = deps.store.current().mcpNames.byName.get(req.params.name);
      try {
        return await callCatalogTool(deps, { principal, toolId, requested: req.params.name, args: req.params.arguments ?? {}, signal: extra.signal, approve });
      } catch (err) {
        if (err instanceof CallRefused) throw new McpError(ErrorCode.InvalidParams, err.message);
        throw err;
      }
    });
    return server;
  };

  // A caller's list changed when its view's bytes changed: compare the per-view ETags.
  deps.store.onSwap((next: CatalogSnapshot, previous: CatalogSnapshot) => {
    for (const s of sessions.values()) {
      if (next.viewFor(s.principal).standard.etag !== previous.viewFor(s.principal).standard.etag) {
        s.server.sendToolListChanged().catch(() => undefined);
      }
    }
  });

  const sweep = setInterval(() => {
    const cutoff = Date.now() - idleMs;
    for (const s of sessions.values()) if (s.lastSeen < cutoff) void s.transport.close();
  }, Math.min(idleMs, 60_000));
  sweep.unref();
  app.addHook('onClose', async () => {
    clearInterval(sweep);
    await Promise.all([...sessions.values()].map((s) => s.transport.close().catch(() => undefined)));
  });

  app.route({
    method: ['GET', 'POST', 'DELETE'],
    url: '/mcp',
    bodyLimit: MAX_MCP_BODY_BYTES,
    // Authenticate before the body is parsed, so a request without a credential is a 401 whatever it carries.
    onRequest: async (request) => {
      principals.set(request, await requirePrincipal(request, options.authenticator));
    },
    handler: async (request, reply) => {
      const principal = principals.get(request)!;
      const header = request.headers['mcp-session-id'];
      const sessionId = Array.isArray(header) ? header[0] : header;
      let session = sessionId === undefined ? undefined : sessions.get(sessionId);
      // Another principal presenting someone's session id gets the same answer as an unknown id.
      if (sessionId !== undefined && (!session || session.principal.id !== principal.id || session.principal.tenant !== principal.tenant)) {
        return rpcError(reply, 404, -32001, 'Session not found');
      }
      if (!session) {
        if (request.method !== 'POST' || !isInitializeRequest(request.body)) return rpcError(reply, 400, -32000, 'Bad Request: no valid session id');
        const compact = (request.query as Record<string, unknown>)?.view === 'compact' || (options.compactTenants?.has(principal.tenant) ?? false);
        const server = buildServer(principal, compact);
        const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
          sessionIdGenerator: () => randomUUID(),
          enableDnsRebindingProtection: true,
          allowedHosts: [...loopbackHosts(request), ...(options.allowedHosts ?? [])],
          onsessioninitialized: (id) => {
            sessions.set(id, { id, principal, server, transport, compact, lastSeen: Date.now() });
          },
        });
        transport.onclose = () => {
          if (transport.sessionId) sessions.delete(transport.sessionId);
        };
        await server.connect(transport);
        reply.raw.setHeader('openwop-version', PROTOCOL_VERSION);
        reply.hijack();
        await transport.handleRequest(request.raw, reply.raw, request.body);
        return reply;
      }
      session.lastSeen = Date.now();
      reply.raw.setHeader('openwop-version', PROTOCOL_VERSION);
      reply.hijack();
      await session.transport.handleRequest(request.raw, reply.raw, request.body);
      return reply;
    },
  });
  return { sessionCount: () => sessions.size };
}
