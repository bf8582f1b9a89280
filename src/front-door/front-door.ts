// The MCP front door (docs/mcp.md; the contract's toolCatalog served as MCP
// tools): `/mcp`, Streamable HTTP, one SDK `Server` per MCP session. Every
// request is judged by the credential it carries: the session must belong to
// the same principal identity (kind, tenant, id), and what the request may
// list, call and approve is that request's principal's view, so a narrowed
// key or a token with fewer scopes takes effect at once. Same visibility rule
// as GET /tools, the host's own annotations, paged tools/list, tools/call
// through the invocation layer, and notifications/tools/list_changed when a
// caller's visible set changes (catalog swap or credential change).
//
// This file puts the parts together; each concern has its own file: the
// route and its sessions (mcp-route.ts, session-opener.ts,
// session-restore.ts), a session's Server (session-server.ts, tool-call.ts),
// the transport and its short road (fast-call.ts, call-stream.ts), list
// changes (list-changes.ts), the refusal while events cannot be written
// (log-refusal.ts).
import type { FastifyInstance } from 'fastify';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { InvokeDeps } from '../invoke/types.js';
import { DEFAULT_APPROVAL_TIMEOUT_MS } from './approval.js';
import { followKeyReloads, notifyOnSwaps } from './list-changes.js';
import { registerMcpRoute } from './mcp-route.js';
import type { FrontDoorOptions, FrontDoorParts } from './parts.js';
import { ReplicaSessions } from './replica-sessions.js';
import { ItemHandlers } from './resource-handlers.js';
import { DEFAULT_SESSION_LIMITS, SessionRegistry } from './sessions.js';
import { DEFAULT_PAGE_SIZE } from './tool-listing.js';

export type { FrontDoorOptions } from './parts.js';

function sessionRegistry(options: FrontDoorOptions): SessionRegistry {
  // Unset (undefined) caps keep their defaults.
  const given = Object.fromEntries(Object.entries(options.limits ?? {}).filter(([, v]) => v !== undefined));
  return new SessionRegistry({ ...DEFAULT_SESSION_LIMITS, ...given, idleMs: options.sessionIdleMs ?? DEFAULT_SESSION_LIMITS.idleMs });
}

export function registerMcpFrontDoor(app: FastifyInstance, deps: InvokeDeps, options: FrontDoorOptions): { sessionCount(): number } {
  const sessions = sessionRegistry(options);
  const pageSize = options.pageSize ?? DEFAULT_PAGE_SIZE;
  const parts: FrontDoorParts = {
    deps,
    options,
    sessions,
    items: deps.items === undefined ? undefined : new ItemHandlers(deps.items, pageSize),
    replicas: options.replicas === undefined ? undefined : new ReplicaSessions(options.replicas, sessions),
    searchServers: new WeakSet<Server>(),
    pageSize,
    approvalTimeoutMs: options.approvalTimeoutMs ?? DEFAULT_APPROVAL_TIMEOUT_MS,
  };
  notifyOnSwaps(parts);

  // Often enough for the shortest timeout in play, never more than once a second (sessionMinIdleMs may be 0).
  const { idleMs, minIdleMs } = sessions.limits;
  const sweep = setInterval(() => sessions.sweep(), Math.max(1_000, Math.min(idleMs, minIdleMs, 60_000)));
  sweep.unref();
  const stopFollowingKeys = followKeyReloads(parts);
  app.addHook('onClose', async () => {
    clearInterval(sweep);
    await parts.replicas?.stop();
    stopFollowingKeys?.();
    await Promise.all([...sessions.values()].map((s) => s.transport.close().catch(() => undefined)));
  });

  registerMcpRoute(app, parts);
  return { sessionCount: () => sessions.size };
}
