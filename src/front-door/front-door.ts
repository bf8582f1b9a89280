// The MCP front door (docs/mcp.md; the contract's toolCatalog served as MCP
// tools): `/mcp`, Streamable HTTP, one SDK `Server` per MCP session. Every
// request is judged by the credential it carries: the session must belong to
// the same principal identity (kind, tenant, id), and what the request may
// list, call and approve is that request's principal's view, so a narrowed
// key or a token with fewer scopes takes effect at once. Same visibility rule
// as GET /tools, the host's own annotations, paged tools/list, tools/call
// through the invocation layer, and notifications/tools/list_changed when a
// caller's visible set changes (catalog swap or credential change).
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import { CallToolRequestSchema, ErrorCode, isInitializeRequest, ListToolsRequestSchema, McpError, SetLevelRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import type { Authenticator, Principal } from '../auth/principal.js';
import type { Slot } from '../auth/principal-caps.js';
import type { CatalogSearch } from '../catalog/search/catalog-search.js';
import type { CatalogSnapshot } from '../catalog/snapshot.js';
import { IMPLEMENTATION, PROTOCOL_VERSION } from '../contract/protocol.js';
import { requirePrincipal } from '../http/auth-hook.js';
import { sendError } from '../http/respond.js';
import { requestSpan } from '../http/request-observers.js';
import { DISABLED_TRACING, type Tracing } from '../observability/tracing.js';
import { callCatalogTool, CallRefused } from '../invoke/call.js';
import { EventLogUnavailableError } from '../events/log-health.js';
import type { InvokeDeps } from '../invoke/types.js';
import { DEFAULT_APPROVAL_TIMEOUT_MS, elicitationPrompt } from './approval.js';
import { FrontDoorTransport } from './fast-call.js';
import { callRelay, type LogThreshold } from './relay.js';
import { CALL_TOOL, innerCall, LIST_SOURCES_TOOL, listSources, MCP_MODES, type McpMode, SEARCH_MODE_TOOLS, SEARCH_TOOL, SearchModeRefusal, searchTools } from './search-mode.js';
import { DEFAULT_SESSION_LIMITS, type McpSession, SessionRegistry, type SessionLimits } from './sessions.js';
import { DEFAULT_PAGE_SIZE, listPage } from './tool-listing.js';
import { ReplicaSessions, type ReplicaOptions } from './replica-sessions.js';
import { restoreInitialized } from './session-restore.js';
import { ItemHandlers } from './resource-handlers.js';
import type { SessionState } from './session-token.js';
import { PROFILE_IDS, type ProfileId, isProfileId } from '../catalog/profiles/rules.js';

export interface FrontDoorOptions {
  authenticator: Authenticator;
  /** Host header values accepted besides the loopback forms of the listening port (DNS-rebinding protection). */
  allowedHosts?: string[];
  pageSize?: number;
  /** Tenants whose MCP sessions get compact input schemas by default. */
  compactTenants?: ReadonlySet<string>;
  /** Tool search; without it there is no search mode. */
  search?: CatalogSearch;
  /** Tenants whose MCP sessions are in search mode by default (`?mode=tools` or `?mode=search` chooses per session). */
  searchTenants?: ReadonlySet<string>;
  /** Sessions idle this long are closed (shorter under pressure: see `limits`). */
  sessionIdleMs?: number;
  /** How long a call waits for the client's approval answer. */
  approvalTimeoutMs?: number;
  /**
   * The API-key principals as they stand now, and a signal when they change
   * (keys-file reload): open sessions of a changed key are told at once.
   */
  apiKeys?: { onReplace(listener: () => void): () => void; currentPrincipal(key: string): Principal | undefined; usablePrincipalKeys(): Set<string> };
  /** Runs each request's MCP handling inside its HTTP span, so a tools/call span is that request's child. */
  tracing?: Tracing;
  /** Session and concurrency caps; unset fields take DEFAULT_SESSION_LIMITS. */
  limits?: Partial<Omit<SessionLimits, 'idleMs'>>;
  /**
   * Several replicas without sticky sessions (docs/mcp.md "Several
   * replicas"): signed, self-describing session ids any replica can rebuild
   * a session from, and (with Redis) the bus that carries a client's answers
   * and session closes to the other replicas.
   */
  replicas?: ReplicaOptions;
  /** false: a tools/call takes the SDK transport's road too (`mcp.fastCalls`; src/mcp/fast-call.ts). */
  fastCalls?: boolean;
}

const MAX_MCP_BODY_BYTES = 4 * 1024 * 1024;

/** What is wrong with a tools/call request's params, in words; undefined when the shape is right. */
function callParamsProblem(params: unknown): string | undefined {
  if (typeof params !== 'object' || params === null || Array.isArray(params)) return 'params must be an object';
  const { name, arguments: args } = params as Record<string, unknown>;
  if (typeof name !== 'string' || name === '') return '"name" must be a non-empty string';
  if (args !== undefined && (typeof args !== 'object' || args === null || Array.isArray(args))) return '"arguments" must be an object';
  return undefined;
}

/**
 * tools/call is registered with a schema that checks the params itself: the
 * SDK's strict schema would fail in its dispatcher and answer InternalError
 * with a validator dump. A refinement that throws is the one way to answer
 * from the parse step (the SDK reads the thrown error's code): InvalidParams
 * with the reason. The SDK's Server then checks the rest of CallToolRequest.
 */
const LooseCallToolRequestSchema = CallToolRequestSchema.pick({ method: true })
  .loose()
  .superRefine((request) => {
    const problem = callParamsProblem((request as { params?: unknown }).params);
    if (problem !== undefined) throw protocolError(ErrorCode.InvalidParams, `Invalid tools/call params: ${problem}`);
  });

/**
 * A JSON-RPC error for the SDK to answer with. Not an McpError: its message
 * already reads `MCP error <code>: ...`, and the client's McpError adds that
 * prefix again.
 */
function protocolError(code: number, message: string): Error {
  return Object.assign(new Error(message), { code });
}

function rpcError(reply: FastifyReply, status: number, code: number, message: string, headers: Record<string, string> = {}): FastifyReply {
  return reply.code(status).headers({ ...headers, 'content-type': 'application/json' }).send(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }));
}

/** The JSON-RPC `tools/call`s (alone or in a batch) that run a tool and record a tool session: any but the search mode's search and list tools. */
function recordedCalls(body: unknown): number {
  const messages = Array.isArray(body) ? body : [body];
  return messages.filter((m) => {
    const message = m as { method?: unknown; params?: { name?: unknown } } | null;
    return message?.method === 'tools/call' && message.params?.name !== SEARCH_TOOL && message.params?.name !== LIST_SOURCES_TOOL;
  }).length;
}

function loopbackHosts(request: FastifyRequest): string[] {
  const address = request.server.server.address();
  const port = typeof address === 'object' && address ? address.port : undefined;
  return port === undefined ? [] : [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`];
}

/**
 * The request's principal travels to the SDK handlers as the transport's auth
 * info (never the credential itself), with a signal that fires when the
 * client drops the connection before its answer was written: nobody could
 * receive that answer any more, so a call (or an approval) waiting on it is
 * cancelled.
 */
function withPrincipal(raw: IncomingMessage, reply: FastifyReply, principal: Principal): IncomingMessage & { auth: AuthInfo } {
  const req = raw as IncomingMessage & { auth: AuthInfo };
  const gone = new AbortController();
  reply.raw.once('close', () => {
    if (!reply.raw.writableFinished) gone.abort(new Error('the client disconnected'));
  });
  req.auth = { token: '', clientId: principal.id, scopes: [], extra: { principal, gone: gone.signal } };
  return req;
}

function callerOf(extra: { authInfo?: AuthInfo; signal: AbortSignal }): { principal: Principal; signal: AbortSignal } {
  const principal = extra.authInfo?.extra?.principal as Principal | undefined;
  // Every request reaching a handler passed through withPrincipal; anything else is a bug, not a caller.
  if (principal === undefined) throw new McpError(ErrorCode.InternalError, 'request without a principal');
  const gone = extra.authInfo?.extra?.gone as AbortSignal | undefined;
  return { principal, signal: gone === undefined ? extra.signal : AbortSignal.any([extra.signal, gone]) };
}

function sameIds(a: ReadonlySet<string>, b: ReadonlySet<string>): boolean {
  if (a === b) return true;
  if (a.size !== b.size) return false;
  for (const id of a) if (!b.has(id)) return false;
  return true;
}

export function registerMcpFrontDoor(app: FastifyInstance, deps: InvokeDeps, options: FrontDoorOptions): { sessionCount(): number } {
  // Unset (undefined) caps keep their defaults.
  const given = Object.fromEntries(Object.entries(options.limits ?? {}).filter(([, v]) => v !== undefined));
  const sessions = new SessionRegistry({ ...DEFAULT_SESSION_LIMITS, ...given, idleMs: options.sessionIdleMs ?? DEFAULT_SESSION_LIMITS.idleMs });
  const principals = new WeakMap<FastifyRequest, Principal>();
  const pageSize = options.pageSize ?? DEFAULT_PAGE_SIZE;
  const approvalTimeoutMs = options.approvalTimeoutMs ?? DEFAULT_APPROVAL_TIMEOUT_MS;
  const tracing = options.tracing ?? DISABLED_TRACING;

  /** Sessions in search mode: their list is fixed, so a swap never changes it. */
  const searchServers = new WeakSet<Server>();

  const items = deps.items === undefined ? undefined : new ItemHandlers(deps.items, pageSize);
  const buildServer = (compact: boolean, mode: McpMode, session: () => McpSession | undefined, principal: Principal, profile?: ProfileId): Server => {
    const itemCaps = items?.capabilities(principal) ?? {};
    const server = new Server({ name: IMPLEMENTATION.name, version: IMPLEMENTATION.version }, { capabilities: { tools: { listChanged: true }, logging: {}, ...itemCaps } });
    items?.register(server, itemCaps, (extra) => callerOf(extra as Parameters<typeof callerOf>[0]), () => session()?.principal);
    // The session's log level, read by each call's relay (one Server per session, so one level).
    const threshold: LogThreshold = { level: undefined };
    server.setRequestHandler(SetLevelRequestSchema, async (req) => {
      threshold.level = req.params.level;
      return {};
    });
    const search = mode === 'search' ? options.search : undefined;
    if (search !== undefined) searchServers.add(server);
    server.setRequestHandler(ListToolsRequestSchema, async (req, extra) => {
      if (search !== undefined) return { tools: [...SEARCH_MODE_TOOLS] };
      const view = deps.store.current().viewFor(callerOf(extra).principal);
      return listPage(view, req.params?.cursor, pageSize, compact, profile);
    });
    server.setRequestHandler(LooseCallToolRequestSchema, async (raw, extra) => {
      // The SDK has checked the params against CallToolRequest by now.
      let params = (raw as unknown as { params: { name: string; arguments?: Record<string, unknown> } }).params;
      const { principal, signal } = callerOf(extra);
      if (search !== undefined && (params.name === SEARCH_TOOL || params.name === CALL_TOOL || params.name === LIST_SOURCES_TOOL)) {
        try {
          if (params.name === SEARCH_TOOL) return searchTools(search, deps.store.current(), principal, params.arguments ?? {}, deps.items?.store.current());
          if (params.name === LIST_SOURCES_TOOL) return listSources(deps.store.current(), principal, params.arguments ?? {});
          // call_tool: the inner call takes exactly the path of a direct tools/call below.
          params = innerCall(params.arguments ?? {});
        } catch (err) {
          if (err instanceof SearchModeRefusal) throw protocolError(ErrorCode.InvalidParams, err.message);
          throw err;
        }
      }
      // The call was counted against its principal's cap when its request came in (the route handler below).
      if (session() === undefined) throw protocolError(ErrorCode.ConnectionClosed, 'session closed');
      try {
        const names = deps.store.current().viewFor(principal).mcpNames;
        // A caller may name a tool by its toolId (as GET /tools shows it): found when the caller sees it, like its MCP name.
        const toolId = names.byName.get(params.name) ?? (names.byToolId.has(params.name) ? params.name : undefined);
        const approve = elicitationPrompt(server, { requestId: extra.requestId, signal }, approvalTimeoutMs);
        const { relay, finished } = callRelay(server, extra, { signal, threshold, requestTimeoutMs: approvalTimeoutMs });
        try {
          return await callCatalogTool(deps, { principal, toolId, requested: params.name, args: params.arguments ?? {}, signal, approve, relay, profile });
        } finally {
          await finished();
        }
      } catch (err) {
        if (err instanceof CallRefused) throw protocolError(ErrorCode.InvalidParams, err.message);
        throw err;
      }
    });
    return server;
  };

  // A caller's list changed when its view's bytes changed: compare the per-view ETags.
  items?.onSwap((next, previous) => {
    for (const s of sessions.values()) items.notifyChanges(s.server, next.viewFor(s.principal), previous.viewFor(s.principal));
  });
  deps.store.onSwap((next: CatalogSnapshot, previous: CatalogSnapshot) => {
    for (const s of sessions.values()) {
      if (searchServers.has(s.server)) continue;
      if (next.viewFor(s.principal).standard.etag !== previous.viewFor(s.principal).standard.etag) {
        s.server.sendToolListChanged().catch(() => undefined);
      }
    }
  });

  // Often enough for the shortest timeout in play, never more than once a second (sessionMinIdleMs may be 0).
  const { idleMs, minIdleMs } = sessions.limits;
  const sweep = setInterval(() => sessions.sweep(), Math.max(1_000, Math.min(idleMs, minIdleMs, 60_000)));
  sweep.unref();
  /** A new SDK Server and transport for a session; `newId` names it at initialize, `restored` instead rebuilds an initialized one. */
  const openSession = async (
    request: FastifyRequest,
    principal: Principal,
    identity: string,
    choice: { compact: boolean; mode: McpMode; profile?: ProfileId },
    newId: () => string,
    slot: Slot,
    restored?: { id: string; state: SessionState },
  ): Promise<{ transport: StreamableHTTPServerTransport; session?: McpSession }> => {
    let opened: McpSession | undefined;
    const server = buildServer(choice.compact, choice.mode, () => opened, principal, choice.profile);
    const add = (id: string): McpSession => {
      opened = { id, identity, principal, server, transport, compact: choice.compact, lastSeen: Date.now(), calls: 0 };
      sessions.add(opened, slot);
      return opened;
    };
    const transport: StreamableHTTPServerTransport = new FrontDoorTransport({
      fastCalls: options.fastCalls ?? true,
      sessionIdGenerator: newId,
      enableDnsRebindingProtection: true,
      allowedHosts: [...loopbackHosts(request), ...(options.allowedHosts ?? [])],
      onsessioninitialized: (id) => void add(id),
    });
    transport.onclose = () => {
      items?.forget(server);
      if (transport.sessionId) sessions.remove(transport.sessionId);
    };
    await server.connect(transport);
    if (restored === undefined) return { transport };
    restoreInitialized(server, transport, restored.id, restored.state);
    return { transport, session: add(restored.id) };
  };

  const replicas = options.replicas === undefined ? undefined : new ReplicaSessions(options.replicas, sessions);
  /** Sessions being rebuilt here: concurrent requests of one session (its GET stream and a POST) wait for the same rebuild. */
  const rebuilding = new Map<string, Promise<McpSession | undefined>>();

  app.addHook('onClose', async () => {
    clearInterval(sweep);
    await replicas?.stop();
    stopFollowingKeys?.();
    await Promise.all([...sessions.values()].map((s) => s.transport.close().catch(() => undefined)));
  });

  /** A request of the session's own identity whose principal changed (reloaded key, another token): tell the client if its list did. */
  const follow = (session: McpSession, principal: Principal): void => {
    if (session.principal === principal) return;
    const snapshot = deps.store.current();
    const changed = !sameIds(snapshot.viewFor(principal).ids, snapshot.viewFor(session.principal).ids);
    const itemViews = deps.items?.store.current();
    if (itemViews !== undefined) items?.notifyChanges(session.server, itemViews.viewFor(principal), itemViews.viewFor(session.principal));
    session.principal = principal;
    if (changed && !searchServers.has(session.server)) session.server.sendToolListChanged().catch(() => undefined);
  };

  // A keys-file reload changes an API-key session's rights without any request of its own: follow it now.
  let usableKeys = options.apiKeys?.usablePrincipalKeys();
  const stopFollowingKeys = options.apiKeys?.onReplace(() => {
    // A key taken away revokes its principal's sessions for good, held here or not: restoring the key later does not bring them back.
    const now = options.apiKeys!.usablePrincipalKeys();
    for (const identity of usableKeys ?? []) if (!now.has(identity)) replicas?.revoke(identity);
    usableKeys = now;
    for (const s of sessions.values()) {
      if (s.principal.kind !== 'api-key') continue;
      const now = options.apiKeys!.currentPrincipal(s.identity);
      // A revoked, removed or expired key: close its sessions, which also ends a GET stream opened with it.
      if (now === undefined) sessions.close(s);
      else follow(s, now);
    }
  });

  app.route({
    method: ['GET', 'POST', 'DELETE'],
    url: '/mcp',
    bodyLimit: MAX_MCP_BODY_BYTES,
    // Authenticate before the body is parsed, so a request without a credential is a 401 whatever it carries.
    onRequest: async (request) => {
      principals.set(request, await requirePrincipal(request, options.authenticator));
      // A DELETE carries no body, whatever Content-Type a client adds: nothing to parse (an empty JSON body would be refused as malformed).
      const { headers } = request.raw;
      if (request.method === 'DELETE' && headers['transfer-encoding'] === undefined && (headers['content-length'] ?? '0') === '0') delete headers['content-type'];
    },
    handler: async (request, reply) => {
      const principal = principals.get(request)!;
      const identity = principal.key;
      const header = request.headers['mcp-session-id'];
      const sessionId = Array.isArray(header) ? header[0] : header;
      let session = sessionId === undefined ? undefined : sessions.get(sessionId);
      const state = sessionId !== undefined && session === undefined ? await replicas?.restorable(sessionId, identity) : undefined;
      if (state !== undefined) {
        // Another replica's session (or one this replica let go idle), rebuilt from its signed id; another request may have rebuilt it meanwhile.
        session = sessions.get(sessionId!);
        if (session === undefined) {
          let pending = rebuilding.get(sessionId!);
          if (pending === undefined) {
            const slot = sessions.admit(identity);
            pending = openSession(request, principal, identity, state, () => sessionId!, slot, { id: sessionId!, state })
              .then(
                (opened) => opened.session,
                (err: unknown) => {
                  slot.release();
                  throw err;
                },
              )
              .finally(() => rebuilding.delete(sessionId!));
            rebuilding.set(sessionId!, pending);
          }
          session = await pending;
        }
      }
      // Another identity (another principal, tenant or credential kind) presenting a session id gets the same answer as an unknown id.
      if (sessionId !== undefined && (!session || session.identity !== identity)) {
        return rpcError(reply, 404, -32001, 'Session not found');
      }
      if (!session) {
        if (request.method !== 'POST' || !isInitializeRequest(request.body)) return rpcError(reply, 400, -32000, 'Bad Request: no valid session id');
        const query = (request.query ?? {}) as Record<string, unknown>;
        const compact = query.view === 'compact' || (options.compactTenants?.has(principal.tenant) ?? false);
        const asked = query.mode;
        if (asked !== undefined && !MCP_MODES.includes(asked as McpMode)) return rpcError(reply, 400, -32000, `Bad Request: mode must be one of ${MCP_MODES.join(', ')}`);
        const mode: McpMode = (asked as McpMode | undefined) ?? (options.searchTenants?.has(principal.tenant) ? 'search' : 'tools');
        if (mode === 'search' && options.search === undefined) return rpcError(reply, 400, -32000, 'Bad Request: search mode is not available on this host');
        const profile = query.profile;
        if (profile !== undefined && !isProfileId(profile)) return rpcError(reply, 400, -32000, `Bad Request: profile must be one of ${PROFILE_IDS.join(', ')}`);
        const choice = { compact, mode, ...(profile !== undefined ? { profile } : {}) };
        const slot = sessions.admit(identity);
        let transport: StreamableHTTPServerTransport | undefined;
        try {
          const signedId = await replicas?.newId(identity, request.body, choice);
          const newId = signedId === undefined ? () => randomUUID() : () => signedId;
          transport = (await openSession(request, principal, identity, choice, newId, slot)).transport;
          reply.raw.setHeader('openwop-version', PROTOCOL_VERSION);
          reply.hijack();
          await tracing.withSpan(requestSpan(request), () => transport!.handleRequest(withPrincipal(request.raw, reply, principal), reply.raw, request.body));
        } finally {
          // The transport names its session (and registers it, with the slot) while it handles the initialize; no name, no session.
          if (transport?.sessionId === undefined) slot.release();
        }
        return reply;
      }
      // A call that would be recorded while the event store cannot be written
      // (a database that is down, a full disk): refused before it reaches the
      // MCP layer, 503 with a vendor code, so a load balancer or client can
      // take it elsewhere; what needs no record (tools/list) is still answered.
      const events = deps.events?.health();
      const calls = request.method === 'POST' ? recordedCalls(request.body) : 0;
      if (events !== undefined && !events.writable && calls > 0) {
        const refusal = new EventLogUnavailableError({ reason: events.reason ?? 'other', code: 'UNAVAILABLE', message: events.error ?? 'unknown' });
        return sendError(reply, 'toolhost.unavailable', refusal.message, { reason: refusal.failure.reason, since: events.since }, { 'retry-after': '1' });
      }
      // Calls count against the principal's cap from here until their answers are written or their client has gone
      // (which cancels them): refused before anything runs, with the caps' one refusal (auth/principal-caps.ts).
      if (calls > 0) {
        const endCalls = sessions.beginCalls(session, calls);
        reply.raw.once('finish', endCalls).once('close', endCalls);
      }
      session.lastSeen = Date.now();
      follow(session, principal);
      replicas?.beforeRequest(session, request);
      reply.raw.setHeader('openwop-version', PROTOCOL_VERSION);
      reply.hijack();
      await tracing.withSpan(requestSpan(request), () => session.transport.handleRequest(withPrincipal(request.raw, reply, principal), reply.raw, request.body));
      if (request.method === 'DELETE') replicas?.afterDelete(session, reply.raw.statusCode);
      return reply;
    },
  });
  return { sessionCount: () => sessions.size };
}
