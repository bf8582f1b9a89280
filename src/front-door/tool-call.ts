// tools/call on a session's Server (docs/mcp.md): the search mode's own
// tools, then a catalog call through the invocation layer under the
// principal's call cap, with the client's approval asked by elicitation and
// what the call reports relayed to the client.
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import { CallToolRequestSchema, ErrorCode, type CallToolResult, type ServerNotification, type ServerRequest } from '@modelcontextprotocol/sdk/types.js';
import type { Principal } from '../auth/principal.js';
import type { CatalogSearch } from '../catalog/search/catalog-search.js';
import type { ProfileId } from '../catalog/profiles/rules.js';
import { callCatalogTool, CallRefused } from '../invoke/call.js';
import type { InvokeDeps } from '../invoke/types.js';
import { elicitationPrompt } from './approval.js';
import type { FrontDoorTransport } from './fast-call.js';
import { callRelay, type LogThreshold } from './relay.js';
import { callerOf } from './request-principal.js';
import { protocolError } from './rpc-errors.js';
import { CALL_TOOL, innerCall, LIST_SOURCES_TOOL, listSources, SEARCH_TOOL, SearchModeRefusal, searchTools } from './search-mode.js';
import type { McpSession, SessionRegistry } from './sessions.js';

type CallParams = { name: string; arguments?: Record<string, unknown> };
type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;

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
export const LooseCallToolRequestSchema = CallToolRequestSchema.pick({ method: true })
  .loose()
  .superRefine((request) => {
    const problem = callParamsProblem((request as { params?: unknown }).params);
    if (problem !== undefined) throw protocolError(ErrorCode.InvalidParams, `Invalid tools/call params: ${problem}`);
  });

export interface ToolCallSession {
  deps: InvokeDeps;
  sessions: SessionRegistry;
  approvalTimeoutMs: number;
  server: Server;
  transport: FrontDoorTransport;
  session: () => McpSession | undefined;
  threshold: LogThreshold;
  /** The search mode's index; undefined in the tools mode. */
  search?: CatalogSearch;
  profile?: ProfileId;
}

/** In search mode: the answer of search_tools or list_sources, or the inner call of call_tool; otherwise the params as they are. */
async function searchModeStep(s: ToolCallSession, principal: Principal, params: CallParams): Promise<{ result: CallToolResult } | { params: CallParams }> {
  const search = s.search;
  if (search === undefined || (params.name !== SEARCH_TOOL && params.name !== CALL_TOOL && params.name !== LIST_SOURCES_TOOL)) return { params };
  try {
    if (params.name === SEARCH_TOOL) return { result: await searchTools(search, s.deps.store.current(), principal, params.arguments ?? {}, s.deps.items?.store.current()) };
    if (params.name === LIST_SOURCES_TOOL) return { result: listSources(s.deps.store.current(), principal, params.arguments ?? {}) };
    // call_tool: the inner call takes exactly the path of a direct tools/call.
    return { params: innerCall(params.arguments ?? {}) };
  } catch (err) {
    if (err instanceof SearchModeRefusal) throw protocolError(ErrorCode.InvalidParams, err.message);
    throw err;
  }
}

type Caller = { principal: Principal; signal: AbortSignal };


/** One catalog call through the invocation layer, with its approval prompt and its relay to the client. */
async function catalogCall(s: ToolCallSession, params: CallParams, extra: Extra, { principal, signal }: Caller): Promise<CallToolResult> {
  const names = s.deps.store.current().viewFor(principal).mcpNames;
  // A caller may name a tool by its toolId (as GET /tools shows it): found when the caller sees it, like its MCP name.
  const toolId = names.byName.get(params.name) ?? (names.byToolId.has(params.name) ? params.name : undefined);
  const approve = elicitationPrompt(s.server, { requestId: extra.requestId, signal }, s.approvalTimeoutMs);
  const { relay, finished } = callRelay(s.server, extra, { signal, threshold: s.threshold, requestTimeoutMs: s.approvalTimeoutMs });
  // From here the call runs: its answer streams (call-stream.ts).
  s.transport.callStarted(extra.requestId);
  try {
    return await callCatalogTool(s.deps, { principal, toolId, requested: params.name, args: params.arguments ?? {}, signal, approve, relay, profile: s.profile });
  } finally {
    await finished();
  }
}

/**
 * The tools/call handler of one session's Server. What it answers without
 * starting the call (a search, a refusal) it answers in the turn the request
 * came in: nothing awaited before.
 */
export function toolCallHandler(s: ToolCallSession): (request: unknown, extra: Extra) => Promise<CallToolResult> {
  return async (raw, extra) => {
    // The SDK has checked the params against CallToolRequest by now.
    const caller = callerOf(extra);
    const step = await searchModeStep(s, caller.principal, (raw as { params: CallParams }).params);
    if ('result' in step) return step.result;
    // The call was counted against its principal's cap when its request came in (mcp-route.ts).
    if (s.session() === undefined) throw protocolError(ErrorCode.ConnectionClosed, 'session closed');
    try {
      return await catalogCall(s, step.params, extra, caller);
    } catch (err) {
      if (err instanceof CallRefused) throw protocolError(ErrorCode.InvalidParams, err.message);
      throw err;
    }
  };
}
