// The SDK Server of one MCP session (docs/mcp.md): the host's capabilities,
// tools/list as the session's principal sees the catalog (paged, compact or
// in a provider's profile; the three search tools in search mode),
// tools/call (tool-call.ts), the session's log level, and the resources,
// prompts and completions the principal sees (resource-handlers.ts).
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { ListToolsRequestSchema, SetLevelRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import type { Principal } from '../auth/principal.js';
import { IMPLEMENTATION } from '../contract/protocol.js';
import type { FrontDoorTransport } from './fast-call.js';
import type { FrontDoorParts } from './parts.js';
import type { LogThreshold } from './relay.js';
import { callerOf } from './request-principal.js';
import { SEARCH_MODE_TOOLS } from './search-mode.js';
import type { SessionChoice } from './session-choice.js';
import type { McpSession } from './sessions.js';
import { listPage } from './tool-listing.js';
import { LooseCallToolRequestSchema, toolCallHandler } from './tool-call.js';

export interface SessionServerSpec {
  choice: SessionChoice;
  /** The principal that opens the session (the capabilities it is offered are its own). */
  principal: Principal;
  /** The session once it is registered (undefined before its initialize, and after it closed). */
  session: () => McpSession | undefined;
  transport: FrontDoorTransport;
}

export function buildServer(parts: FrontDoorParts, spec: SessionServerSpec): Server {
  const { deps, items, pageSize } = parts;
  const { compact, mode, profile } = spec.choice;
  const itemCaps = items?.capabilities(spec.principal) ?? {};
  const server = new Server({ name: IMPLEMENTATION.name, version: IMPLEMENTATION.version }, { capabilities: { tools: { listChanged: true }, logging: {}, ...itemCaps } });
  items?.register(server, itemCaps, (extra) => callerOf(extra as Parameters<typeof callerOf>[0]), () => spec.session()?.principal);
  // The session's log level, read by each call's relay (one Server per session, so one level).
  const threshold: LogThreshold = { level: undefined };
  server.setRequestHandler(SetLevelRequestSchema, async (req) => {
    threshold.level = req.params.level;
    return {};
  });
  const search = mode === 'search' ? parts.options.search : undefined;
  if (search !== undefined) parts.searchServers.add(server);
  server.setRequestHandler(ListToolsRequestSchema, async (req, extra) => {
    if (search !== undefined) return { tools: [...SEARCH_MODE_TOOLS] };
    const view = deps.store.current().viewFor(callerOf(extra).principal);
    return listPage(view, req.params?.cursor, pageSize, compact, profile);
  });
  const { sessions, approvalTimeoutMs } = parts;
  server.setRequestHandler(LooseCallToolRequestSchema, toolCallHandler({ deps, sessions, approvalTimeoutMs, server, transport: spec.transport, session: spec.session, threshold, search, profile }));
  return server;
}
