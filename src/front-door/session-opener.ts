// Opening an MCP session (docs/mcp.md "Sessions and limits"): a new SDK
// Server and transport, the session registered once the SDK has initialized
// it under its id, and forgotten when its transport closes. A session of
// another replica (docs/mcp.md "Several replicas") opens the same way and is
// then initialized from its signed id (session-restore.ts).
import type { FastifyRequest } from 'fastify';
import type { Principal } from '../auth/principal.js';
import type { Slot } from '../auth/principal-caps.js';
import type { SessionState } from './session-token.js';
import { FrontDoorTransport } from './fast-call.js';
import type { FrontDoorParts } from './parts.js';
import type { SessionChoice } from './session-choice.js';
import { restoreInitialized } from './session-restore.js';
import { buildServer } from './session-server.js';
import type { McpSession } from './sessions.js';

/** The Host header values of the listening port's loopback forms. */
function loopbackHosts(request: FastifyRequest): string[] {
  const address = request.server.server.address();
  const port = typeof address === 'object' && address ? address.port : undefined;
  return port === undefined ? [] : [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`];
}

/** The accepted Host values of each front door's sessions, one array they all share (the transports only read it). */
const sharedHosts = new WeakMap<FrontDoorParts, string[]>();

function allowedHosts(parts: FrontDoorParts, request: FastifyRequest): string[] {
  const hosts = [...loopbackHosts(request), ...(parts.options.allowedHosts ?? [])];
  const shared = sharedHosts.get(parts);
  if (shared !== undefined && shared.length === hosts.length && shared.every((h, i) => h === hosts[i])) return shared;
  sharedHosts.set(parts, hosts);
  return hosts;
}

export interface SessionOpening {
  principal: Principal;
  identity: string;
  choice: SessionChoice;
  /** Names the session when the SDK initializes it. */
  newId: () => string;
  /** Its slot under the principal's session cap (sessions.ts `admit`), held by the session once registered. */
  slot: Slot;
  /** A session of another replica, rebuilt initialized from its signed id. */
  restored?: { id: string; state: SessionState };
}

/** A new Server and transport; the session too when it was restored (a new one registers at its initialize). */
export async function openSession(parts: FrontDoorParts, request: FastifyRequest, opening: SessionOpening): Promise<{ transport: FrontDoorTransport; session?: McpSession }> {
  const { principal, identity, choice, slot } = opening;
  const { sessions } = parts;
  const compact = choice.compact;
  let opened: McpSession | undefined;
  const transport = new FrontDoorTransport({
    fastCalls: parts.options.fastCalls ?? true,
    sessionIdGenerator: opening.newId,
    enableDnsRebindingProtection: true,
    allowedHosts: allowedHosts(parts, request),
    onsessioninitialized: (id) => {
      opened = { id, identity, principal, server, transport, compact, lastSeen: Date.now(), calls: 0 };
      sessions.add(opened, slot);
    },
  });
  const server = buildServer(parts, { choice, principal, session: () => opened, transport });
  const items = parts.items;
  transport.onclose = () => {
    items?.forget(server);
    if (transport.sessionId) sessions.remove(transport.sessionId);
  };
  await server.connect(transport);
  if (opening.restored !== undefined) await restoreInitialized(transport, opening.restored.id, opening.restored.state);
  return { transport, session: opened };
}
