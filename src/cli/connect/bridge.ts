// `toolhost connect`: an MCP server on stdio for a client that can only
// spawn a command (Claude Desktop and the like), forwarding to toolhost's
// /mcp over Streamable HTTP, with the official SDK on both sides. Requests
// go up (tools, logging level) with their cancellation and progress; what
// the host sends down during a call (approval and upstream elicitations,
// sampling, roots, log messages, progress, list_changed) reaches the client.
// The session to the host is re-made when the host forgets it (upstream.ts);
// a request that certainly never reached the host is sent again once, a
// call cut off while running is answered with an error saying it may have run.
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import {
  CallToolRequestSchema,
  CallToolResultSchema,
  CreateMessageRequestSchema,
  CreateMessageResultSchema,
  ElicitRequestSchema,
  ElicitResultSchema,
  EmptyResultSchema,
  ErrorCode,
  ListRootsRequestSchema,
  ListRootsResultSchema,
  ListToolsRequestSchema,
  ListToolsResultSchema,
  LoggingMessageNotificationSchema,
  McpError,
  ProgressNotificationSchema,
  RootsListChangedNotificationSchema,
  SetLevelRequestSchema,
  ToolListChangedNotificationSchema,
  type ClientCapabilities,
  type Notification,
  type ProgressNotification,
  type Request,
} from '@modelcontextprotocol/sdk/types.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { AnySchema } from '@modelcontextprotocol/sdk/server/zod-compat.js';
import { BridgeError, describeFailure, networkCode } from './errors.js';
import { Upstream } from './upstream.js';

/** Long: the client behind the bridge and the host each bound their own waits (approval, call timeouts) and cancel. */
const FORWARD_TIMEOUT_MS = 24 * 60 * 60 * 1000;

export interface BridgeOptions {
  url: URL;
  credential: () => string | undefined;
  version: string;
  /** A line for a person (the client's log of this server's stderr). */
  notice: (line: string) => void;
  backoff?: { initialMs: number; maxMs: number };
}

export interface RunningBridge {
  /** Resolves when the client closes stdio (or close() is called). */
  closed: Promise<void>;
  close(): Promise<void>;
}

type Extra = RequestHandlerExtra<Request, Notification>;

/** What of the client's capabilities the host may use through the bridge. */
function forwardedCapabilities(caps: ClientCapabilities | undefined): ClientCapabilities {
  const out: ClientCapabilities = {};
  if (caps?.elicitation) out.elicitation = caps.elicitation;
  if (caps?.sampling) out.sampling = caps.sampling;
  if (caps?.roots) out.roots = caps.roots;
  return out;
}

/** Checks the host (one line on failure, thrown as BridgeError), then serves stdio until the client goes. */
export async function startBridge(options: BridgeOptions): Promise<RunningBridge> {
  let server: Server | undefined;
  const progress: ProgressRoutes = new Map();
  const upstream = new Upstream({
    url: options.url,
    credential: options.credential,
    clientInfo: { name: 'toolhost-connect', version: options.version },
    backoff: options.backoff,
    onNotice: options.notice,
    onReconnected: () => void server?.sendToolListChanged().catch(() => undefined),
    wire: (client, caps) => wireClient(client, caps, () => server, progress),
  });
  const host = await upstream.connect({});
  server = new Server(
    { name: 'toolhost-connect', version: options.version },
    { capabilities: { tools: { listChanged: true }, logging: {} }, instructions: host.instructions },
  );
  wireServer(server, upstream, progress);
  const closed = new Promise<void>((resolve) => {
    server!.onclose = () => void upstream.close().finally(resolve);
  });
  server.oninitialized = () => {
    upstream.recapabilize(forwardedCapabilities(server!.getClientCapabilities())).catch((err: unknown) => options.notice(describeFailure(err, options.url.origin).message));
  };
  await server.connect(new StdioServerTransport());
  // The SDK's stdio transport does not end when stdin does: a client that goes without a signal (it
  // crashed, or closed the pipe) must not leave the bridge running, holding a session on the host.
  process.stdin.once('end', () => void server!.close());
  return { closed, close: () => server!.close() };
}

/** What the host sends during a call goes to the client behind the bridge. */
function wireClient(client: Client, caps: ClientCapabilities, server: () => Server | undefined, progress: ProgressRoutes): void {
  const down = <T extends AnySchema>(req: Request, schema: T, extra: { signal: AbortSignal }) => {
    const s = server();
    if (!s) throw new McpError(ErrorCode.InternalError, 'the client behind the bridge is not connected yet');
    return s.request(req as never, schema, { signal: extra.signal, timeout: FORWARD_TIMEOUT_MS });
  };
  if (caps.elicitation) client.setRequestHandler(ElicitRequestSchema, (req, extra) => down(req, ElicitResultSchema, extra));
  if (caps.sampling) client.setRequestHandler(CreateMessageRequestSchema, (req, extra) => down(req, CreateMessageResultSchema, extra));
  if (caps.roots) client.setRequestHandler(ListRootsRequestSchema, (req, extra) => down(req, ListRootsResultSchema, extra));
  // Replaces the SDK's own progress dispatch (by its request ids) with the client's tokens.
  client.setNotificationHandler(ProgressNotificationSchema, (n) => progress.get(n.params.progressToken)?.(n.params));
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => void server()?.sendToolListChanged().catch(() => undefined));
  client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void server()?.notification(n).catch(() => undefined));
}

/** Requests of the client go up to the host. */
function wireServer(server: Server, upstream: Upstream, progress: ProgressRoutes): void {
  server.setRequestHandler(ListToolsRequestSchema, (req, extra) => forward(upstream, progress, req, ListToolsResultSchema, extra, true));
  server.setRequestHandler(CallToolRequestSchema, (req, extra) => forward(upstream, progress, req, CallToolResultSchema, extra, false));
  server.setRequestHandler(SetLevelRequestSchema, (req, extra) => forward(upstream, progress, req, EmptyResultSchema, extra, true));
  server.setNotificationHandler(RootsListChangedNotificationSchema, async () => {
    const client = await upstream.client().catch(() => undefined);
    await client?.sendRootsListChanged().catch(() => undefined);
  });
}

/** Whether a failed request certainly never reached the host (so sending it again cannot run anything twice). */
function notDelivered(err: unknown): boolean {
  return networkCode(err) === 'ECONNREFUSED' || (err as { code?: unknown }).code === 404;
}

/** Whether the session to the host is gone (the host forgot it, went away, or the bridge dropped it). */
function sessionGone(err: unknown): boolean {
  if (err instanceof McpError) return err.code === ErrorCode.ConnectionClosed;
  return networkCode(err) !== undefined || (err as { code?: unknown }).code === 404;
}

/**
 * Progress reports by the client's own token: the token goes up unchanged and
 * the reports come back through this table, not through the SDK's per-request
 * progress callbacks, which drop reports that arrive in one read with the answer.
 */
export type ProgressRoutes = Map<string | number, (params: ProgressNotification['params']) => void>;

async function forward<T extends AnySchema>(upstream: Upstream, progress: ProgressRoutes, req: Request, schema: T, extra: Extra, idempotent: boolean) {
  const progressToken = (req.params?._meta as { progressToken?: string | number } | undefined)?.progressToken;
  const params = req.params;
  let told: Promise<void> | undefined;
  if (progressToken !== undefined) {
    progress.set(progressToken, (p) => {
      told = extra.sendNotification({ method: 'notifications/progress', params: p }).catch(() => undefined);
    });
  }
  try {
    return await forwardOnce(upstream, { method: req.method, params }, schema, extra, idempotent, () => told);
  } finally {
    if (progressToken !== undefined) progress.delete(progressToken);
  }
}

async function forwardOnce<T extends AnySchema>(upstream: Upstream, req: Request, schema: T, extra: Extra, idempotent: boolean, told: () => Promise<void> | undefined) {
  for (let attempt = 0; ; attempt++) {
    let client: Client;
    try {
      client = await upstream.client(extra.signal);
    } catch (err) {
      throw toMcpError(err);
    }
    try {
      const result = await client.request(req as never, schema, { signal: extra.signal, timeout: FORWARD_TIMEOUT_MS });
      // The SDK's client drops progress read in one chunk with the answer: the answer goes a turn of the event loop after the last report.
      const last = told();
      if (last) await last.then(() => new Promise((resolve) => setImmediate(resolve)));
      return result;
    } catch (err) {
      if (extra.signal.aborted || !sessionGone(err)) throw passOn(err);
      upstream.lost(client, networkCode(err) ?? 'the host no longer knows the session');
      if (attempt === 0 && (idempotent || notDelivered(err))) continue;
      throw new McpError(ErrorCode.InternalError, 'the connection to toolhost was lost during this request; it may have run (reconnecting)');
    }
  }
}

/**
 * The host's own JSON-RPC error as it sent it: a plain Error with the code
 * (the SDK sends a thrown error's code and message), since an McpError's
 * message carries an "MCP error N:" prefix the client would add once more.
 */
function passOn(err: unknown): unknown {
  if (!(err instanceof McpError)) return err;
  return Object.assign(new Error(err.message.replace(/^MCP error -?\d+: /, '')), { code: err.code, data: err.data });
}

function toMcpError(err: unknown): McpError {
  if (err instanceof McpError) return err;
  return new McpError(ErrorCode.InternalError, err instanceof BridgeError ? err.message : describeFailure(err, 'toolhost').message);
}
