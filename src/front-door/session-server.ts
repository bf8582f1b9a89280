// The SDK Server of one MCP session (docs/mcp.md): the host's capabilities,
// tools/list as the session's principal sees the catalog (paged, compact or
// in a provider's profile; the three search tools in search mode),
// tools/call (tool-call.ts), the session's log level, and the resources,
// prompts and completions the principal sees (resource-handlers.ts).
//
// An idle session is mostly this Server, so what every session would hold
// the same is made once and shared: the server's name and options (one per
// set of capabilities) and its JSON Schema validator (elicit-validator.ts)
// (docs/benchmarks.md "Idle MCP sessions").
import { Server, type ServerOptions } from '@modelcontextprotocol/sdk/server/index.js';
import { ListToolsRequestSchema, SetLevelRequestSchema, type ListToolsRequest, type ListToolsResult, type ServerCapabilities } from '@modelcontextprotocol/sdk/types.js';
import type { Principal } from '../auth/principal.js';
import { IMPLEMENTATION } from '../contract/protocol.js';
import { SESSION_SCHEMA_VALIDATOR } from './elicit-validator.js';
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

const SERVER_INFO = Object.freeze({ name: IMPLEMENTATION.name, version: IMPLEMENTATION.version });

/** Server options by the capabilities' text: a handful of sets (which of resources, subscriptions, prompts, completions a caller sees). */
const optionsByCapabilities = new Map<string, ServerOptions>();

function serverOptions(itemCaps: ServerCapabilities): ServerOptions {
  const key = JSON.stringify(itemCaps);
  let options = optionsByCapabilities.get(key);
  if (options === undefined) {
    options = {
      capabilities: { tools: { listChanged: true }, logging: {}, ...itemCaps },
      // One validator for every session (elicit-validator.ts): the SDK would build an Ajv per Server.
      jsonSchemaValidator: SESSION_SCHEMA_VALIDATOR,
    };
    optionsByCapabilities.set(key, options);
  }
  return options;
}

export function buildServer(parts: FrontDoorParts, spec: SessionServerSpec): Server {
  const { deps, items } = parts;
  const itemCaps = items?.capabilities(spec.principal) ?? {};
  const server = new Server(SERVER_INFO, serverOptions(itemCaps));
  if (items !== undefined) {
    const session = spec.session;
    items.register(server, itemCaps, (extra) => callerOf(extra as Parameters<typeof callerOf>[0]), () => session()?.principal);
  }
  // The session's log level, read by each call's relay (one Server per session, so one level).
  const threshold: LogThreshold = { level: undefined };
  server.setRequestHandler(SetLevelRequestSchema, async (req) => {
    threshold.level = req.params.level;
    return {};
  });
  const { compact, mode, profile } = spec.choice;
  const search = mode === 'search' ? parts.options.search : undefined;
  if (search !== undefined) parts.searchServers.add(server);
  server.setRequestHandler(ListToolsRequestSchema, listToolsHandler(parts, search !== undefined, compact, profile));
  const { sessions, approvalTimeoutMs } = parts;
  server.setRequestHandler(LooseCallToolRequestSchema, toolCallHandler({ deps, sessions, approvalTimeoutMs, server, transport: spec.transport, session: spec.session, threshold, search, profile }));
  return server;
}

type ListToolsHandler = (request: ListToolsRequest, extra: Parameters<typeof callerOf>[0]) => Promise<ListToolsResult>;

function listToolsHandler(parts: FrontDoorParts, search: boolean, compact: boolean, profile: SessionChoice['profile']): ListToolsHandler {
  if (search) return async () => ({ tools: [...SEARCH_MODE_TOOLS] });
  const { deps, pageSize } = parts;
  return async (req, extra) => {
    const view = deps.store.current().viewFor(callerOf(extra).principal);
    return listPage(view, req.params?.cursor, pageSize, compact, profile);
  };
}
