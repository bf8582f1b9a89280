// The front door's transport (docs/mcp.md "Sessions and limits"; the MCP
// Streamable HTTP transport, 2025-06-18): an MCP SDK `Transport` of its own
// that hands most requests to the SDK's StreamableHTTPServerTransport and
// answers one kind itself, the request every agent makes most: a POST
// carrying one `tools/call` on an established session. The SDK turns each
// Node request into a web Request and answers with a web ReadableStream that
// @hono/node-server pumps back into Node, headers in one write and each event
// in another; that conversion, not the call, is most of what a call through
// /mcp costs (docs/benchmarks.md "A call through the front door"). Here such
// a POST goes to the session's Server through this transport's `onmessage`,
// as any transport delivers what it receives, and its answer is written on
// the Node response by call-stream.ts, the Streamable HTTP answer format
// toolhost owns (docs/architecture.md "Protocol pieces toolhost owns").
// Everything else (initialize, notifications, answers to our own requests,
// GET streams, DELETE, anything the SDK would refuse) takes the SDK's road,
// and so does any request whose headers or body the SDK would judge
// differently: the bytes on the wire are the SDK's either way
// (test/front-door/fast-call.test.ts holds both roads to the same bytes).
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import { StreamableHTTPServerTransport, type StreamableHTTPServerTransportOptions } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { Transport, TransportSendOptions } from '@modelcontextprotocol/sdk/shared/transport.js';
import { isJsonContentType } from '@modelcontextprotocol/sdk/shared/mediaType.js';
import {
  RELATED_TASK_META_KEY,
  SUPPORTED_PROTOCOL_VERSIONS,
  type JSONRPCMessage,
  type JSONRPCRequest,
  type MessageExtraInfo,
  type RequestId,
} from '@modelcontextprotocol/sdk/types.js';
import { CallStream } from './call-stream.js';
import { principalOnly } from './request-principal.js';

export { HEADER_GRACE_MS } from './call-stream.js';

export interface FrontDoorTransportOptions extends StreamableHTTPServerTransportOptions {
  /** false: every request takes the SDK's road (`mcp.fastCalls`). */
  fastCalls: boolean;
}

type MessageHandler = <T extends JSONRPCMessage>(message: T, extra?: MessageExtraInfo) => void;

export class FrontDoorTransport implements Transport {
  onclose?: () => void;

  private readonly sdk: StreamableHTTPServerTransport;
  /** The answer streams of fast calls in flight (made at the first: most sessions are idle). */
  private fast: Map<RequestId, CallStream> | undefined;
  private readonly fastCalls: boolean;
  private readonly hosts: readonly string[];
  private readonly dnsRebindingProtection: boolean;
  private closed = false;

  constructor(options: FrontDoorTransportOptions) {
    const { fastCalls, ...sdkOptions } = options;
    this.sdk = new StreamableHTTPServerTransport(sdkOptions);
    // A closing session also ends the streams of its fast calls, as the SDK ends its own.
    this.sdk.onclose = () => {
      this.closed = true;
      for (const stream of this.fast?.values() ?? []) stream.end();
      this.fast?.clear();
      this.onclose?.();
    };
    this.hosts = options.allowedHosts ?? [];
    this.dnsRebindingProtection = options.enableDnsRebindingProtection ?? false;
    // allowedOrigins is checked by the SDK only; a transport that has them takes its road every time.
    this.fastCalls = fastCalls && (options.allowedOrigins ?? []).length === 0;
  }

  // What the SDK's transport receives and the errors it sees go to the session's Server as set here: no forwarding function per session.
  get onmessage(): MessageHandler | undefined {
    return this.sdk.onmessage;
  }

  set onmessage(handler: MessageHandler | undefined) {
    this.sdk.onmessage = handler;
  }

  get onerror(): ((error: Error) => void) | undefined {
    return this.sdk.onerror;
  }

  set onerror(handler: ((error: Error) => void) | undefined) {
    this.sdk.onerror = handler;
  }

  get sessionId(): string | undefined {
    return this.sdk.sessionId;
  }

  /** A Host header the transport accepts (a session's rebuilt initialize carries it: session-restore.ts). */
  get allowedHost(): string | undefined {
    return this.hosts[0];
  }

  start(): Promise<void> {
    return this.sdk.start();
  }

  close(): Promise<void> {
    return this.sdk.close();
  }

  async handleRequest(req: IncomingMessage & { auth?: AuthInfo }, res: ServerResponse, parsedBody?: unknown): Promise<void> {
    const call = this.fastCall(req, parsedBody);
    if (call === undefined) return this.sdk.handleRequest(req, res, parsedBody);
    const stream = new CallStream(res, this.sessionId!);
    const fast = (this.fast ??= new Map());
    fast.set(call.id, stream);
    const done = new Promise<void>((resolve) => res.once('close', resolve));
    // The SDK cancels a request by its id, and not one whose id is 0: such a call keeps the request's own disconnect signal.
    const cancellable = call.id !== 0 && call.id !== '';
    res.once('close', () => {
      // Gone before its answer: the call is cancelled (as a client's notifications/cancelled would), and its answer finds no stream, as on the SDK's road.
      if (fast.get(call.id) === stream) {
        fast.delete(call.id);
        stream.drop();
        if (cancellable) this.onmessage?.({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: call.id, reason: 'the client disconnected' } });
      }
    });
    // What the handlers read of the request: its principal (request-principal.ts); the headers and URL (requestInfo) no handler of a call reads.
    const auth = req.auth === undefined || !cancellable ? req.auth : principalOnly(req.auth);
    this.onmessage?.(call, { authInfo: auth });
    await done;
  }

  /** The call of request `id` has started (reached the invocation layer): a fast call's answer now streams. */
  callStarted(id: RequestId): void {
    this.fast?.get(id)?.start();
  }

  async send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    const answer = 'result' in message || 'error' in message;
    const id = answer ? (message as { id: RequestId }).id : options?.relatedRequestId;
    const stream = id === undefined ? undefined : this.fast?.get(id);
    if (stream === undefined) return this.sdk.send(message, options);
    if (!answer) return stream.event(message);
    this.fast!.delete(id!);
    stream.end(message);
  }

  /**
   * The request as a fast call, or undefined when the SDK must handle it:
   * anything but a POST of one valid tools/call request whose headers the
   * SDK's own checks (Host, Accept, Content-Type, session, protocol version)
   * would pass.
   */
  private fastCall(req: IncomingMessage, body: unknown): JSONRPCRequest | undefined {
    if (!this.fastCalls || this.closed || req.method !== 'POST') return undefined;
    const call = toolsCallRequest(body);
    if (call === undefined) return undefined;
    const h = req.headers;
    if (this.sessionId === undefined || h['mcp-session-id'] !== this.sessionId) return undefined;
    if (this.dnsRebindingProtection && this.hosts.length > 0 && !this.hosts.includes(h.host ?? '')) return undefined;
    const accept = h.accept;
    if (accept === undefined || !accept.includes('application/json') || !accept.includes('text/event-stream')) return undefined;
    if (!isJsonContentType(h['content-type'] ?? null)) return undefined;
    const version = h['mcp-protocol-version'];
    if (version !== undefined && !SUPPORTED_PROTOCOL_VERSIONS.includes(version as string)) return undefined;
    if (this.fast?.has(call.id) === true) return undefined;
    return call;
  }
}

const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isRequestId = (v: unknown): boolean => typeof v === 'string' || Number.isSafeInteger(v);

/**
 * The body as one JSON-RPC tools/call request, or undefined: checked once,
 * in place, as the SDK's JSONRPCRequestSchema would accept it (exactly the
 * keys jsonrpc "2.0", id, method, params; an id that is a string or an
 * integer; params an object whose `_meta`, if any, is an object with a
 * valid progressToken). What it is unsure of (a task's related-task key) is
 * left to the SDK's road, which judges it as before
 * (test/front-door/fast-call.test.ts sends both roads the same bodies).
 */
export function toolsCallRequest(body: unknown): JSONRPCRequest | undefined {
  if (!isPlainObject(body) || body.method !== 'tools/call' || body.jsonrpc !== '2.0' || !isRequestId(body.id)) return undefined;
  for (const key in body) if (key !== 'jsonrpc' && key !== 'id' && key !== 'method' && key !== 'params') return undefined;
  const params = body.params;
  if (params !== undefined) {
    if (!isPlainObject(params)) return undefined;
    const meta = params._meta;
    if (meta !== undefined) {
      if (!isPlainObject(meta) || RELATED_TASK_META_KEY in meta) return undefined;
      if (meta.progressToken !== undefined && !isRequestId(meta.progressToken)) return undefined;
    }
  }
  return body as JSONRPCRequest;
}
