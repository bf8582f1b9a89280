// The front door's transport (docs/mcp.md "Sessions and limits"; the MCP
// Streamable HTTP transport, 2025-06-18): the SDK's
// StreamableHTTPServerTransport, with a shorter road for the request every
// agent makes most: a POST carrying one `tools/call` on an established
// session. The SDK turns each Node request into a web Request and answers
// with a web ReadableStream that @hono/node-server pumps back into Node,
// headers in one write and each event in another; that conversion, not the
// call, is most of what a call through /mcp costs (docs/benchmarks.md "A call
// through the front door"). Here such a POST goes straight to the session's
// MCP Server and its answer is written on the Node response, the headers,
// the event and the end of the stream together when the answer comes first.
// Everything else (initialize, notifications, answers to our own requests,
// GET streams, DELETE, anything the SDK would refuse) takes the SDK's road,
// and so does any request whose headers or body the SDK would judge
// differently: the bytes on the wire are the SDK's either way
// (test/front-door/fast-call.test.ts holds both roads to the same bytes).
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import { StreamableHTTPServerTransport, type StreamableHTTPServerTransportOptions } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { TransportSendOptions } from '@modelcontextprotocol/sdk/shared/transport.js';
import { isJsonContentType } from '@modelcontextprotocol/sdk/shared/mediaType.js';
import { DEFAULT_SSE_KEEP_ALIVE_MS } from '@modelcontextprotocol/sdk/server/sseKeepAlive.js';
import { isJSONRPCRequest, JSONRPCMessageSchema, SUPPORTED_PROTOCOL_VERSIONS, type JSONRPCMessage, type JSONRPCRequest, type RequestId } from '@modelcontextprotocol/sdk/types.js';

/**
 * How long the headers of a call's answer wait for its first event. Within
 * it, a call that answers at once goes out in one write; past it, the
 * client gets the headers as the SDK would have sent them at the start, so
 * a client timing out on headers sees no difference for a long call.
 */
export const HEADER_GRACE_MS = 50;

/**
 * The SDK's road decides the framing on timing: @hono/node-server reads the
 * answer stream once, a few microtasks after the request went in, and an
 * answer already there (one the Server refuses on parsing, say) goes out
 * with Content-Length; anything later is chunked. The fast road draws the
 * line at the same place, counted in microtask hops after the message is
 * handed to the Server: a refusal at parsing answers within 3, the quickest
 * call that reaches the invocation layer takes 10 or more.
 */
const SAME_TURN_HOPS = 6;

/** The answer's stream of one fast call: SSE events on a Node response, framed as the SDK frames them. */
class CallStream {
  /** Still within the turn in which an answer goes out with Content-Length (SAME_TURN_HOPS). */
  sameTurn = true;
  private grace: NodeJS.Timeout | undefined;
  private readonly keepAlive: NodeJS.Timeout;

  constructor(
    private readonly res: ServerResponse,
    private readonly headers: Record<string, string>,
  ) {
    this.grace = setTimeout(() => this.open(), HEADER_GRACE_MS);
    this.grace.unref();
    this.keepAlive = setInterval(() => this.write(': keepalive\n\n'), DEFAULT_SSE_KEEP_ALIVE_MS);
    this.keepAlive.unref();
  }

  /** Sends the headers now (the first event, the grace period over, or the end), once. */
  private open(): void {
    if (this.grace !== undefined) clearTimeout(this.grace);
    this.grace = undefined;
    if (!this.res.headersSent) this.res.writeHead(200, this.headers);
  }

  private write(text: string): void {
    this.open();
    this.res.write(text);
  }

  event(message: JSONRPCMessage): void {
    this.write(`event: message\ndata: ${JSON.stringify(message)}\n\n`);
  }

  /** Ends the stream, with its last event when there is one: headers, event and end in one write when nothing went out yet. */
  end(last?: JSONRPCMessage): void {
    clearInterval(this.keepAlive);
    if (this.sameTurn && last !== undefined && !this.res.headersSent) {
      const text = `event: message\ndata: ${JSON.stringify(last)}\n\n`;
      this.drop();
      this.res.writeHead(200, { ...this.headers, 'content-length': String(Buffer.byteLength(text)) });
      this.res.end(text);
      return;
    }
    this.open();
    if (last === undefined) this.res.end();
    else this.res.end(`event: message\ndata: ${JSON.stringify(last)}\n\n`);
  }

  /** The client went away: nothing more is written. */
  drop(): void {
    clearInterval(this.keepAlive);
    if (this.grace !== undefined) clearTimeout(this.grace);
    this.grace = undefined;
  }
}

export interface FrontDoorTransportOptions extends StreamableHTTPServerTransportOptions {
  /** false: every request takes the SDK's road (`mcp.fastCalls`). */
  fastCalls: boolean;
}

export class FrontDoorTransport extends StreamableHTTPServerTransport {
  private readonly fast = new Map<RequestId, CallStream>();
  private readonly fastCalls: boolean;
  private readonly hosts: readonly string[];
  private readonly dnsRebindingProtection: boolean;
  private closed = false;

  constructor(options: FrontDoorTransportOptions) {
    super(options);
    this.fastCalls = options.fastCalls;
    this.hosts = options.allowedHosts ?? [];
    this.dnsRebindingProtection = options.enableDnsRebindingProtection ?? false;
    // allowedOrigins is checked by the SDK only; a transport that has them takes its road every time.
    if ((options.allowedOrigins ?? []).length > 0) this.fastCalls = false;
  }

  // The Server sets onclose when it connects; a closing session also ends the streams of its fast calls, as the SDK ends its own.
  override get onclose(): (() => void) | undefined {
    return super.onclose;
  }

  override set onclose(handler: (() => void) | undefined) {
    super.onclose = () => {
      this.closed = true;
      for (const stream of this.fast.values()) stream.end();
      this.fast.clear();
      handler?.();
    };
  }

  override async handleRequest(req: IncomingMessage & { auth?: AuthInfo }, res: ServerResponse, parsedBody?: unknown): Promise<void> {
    const call = this.fastCall(req, parsedBody);
    if (call === undefined) return super.handleRequest(req, res, parsedBody);
    const headers: Record<string, string> = {
      'cache-control': 'no-cache, no-transform',
      connection: 'keep-alive',
      'content-type': 'text/event-stream',
      'mcp-session-id': this.sessionId!,
      'x-accel-buffering': 'no',
    };
    const stream = new CallStream(res, headers);
    this.fast.set(call.id, stream);
    const done = new Promise<void>((resolve) => res.once('close', resolve));
    res.once('close', () => {
      // Gone before its answer: the answer finds no stream, as on the SDK's road.
      if (this.fast.get(call.id) === stream) {
        this.fast.delete(call.id);
        stream.drop();
      }
    });
    const requestHeaders: Record<string, string> = {};
    for (const [name, value] of Object.entries(req.headers)) if (value !== undefined) requestHeaders[name] = Array.isArray(value) ? value.join(', ') : value;
    this.onmessage?.(call, { authInfo: req.auth, requestInfo: { headers: requestHeaders, url: new URL(req.url ?? '/', `http://${req.headers.host ?? 'localhost'}`) } });
    for (let hop = 0; hop < SAME_TURN_HOPS && this.fast.get(call.id) === stream; hop++) await null;
    stream.sameTurn = false;
    await done;
  }

  override async send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    const answer = 'result' in message || 'error' in message;
    const id = answer ? (message as { id: RequestId }).id : options?.relatedRequestId;
    const stream = id === undefined ? undefined : this.fast.get(id);
    if (stream === undefined) return super.send(message, options);
    if (!answer) return stream.event(message);
    this.fast.delete(id!);
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
    if (typeof body !== 'object' || body === null || Array.isArray(body) || (body as { method?: unknown }).method !== 'tools/call') return undefined;
    const h = req.headers;
    if (this.sessionId === undefined || h['mcp-session-id'] !== this.sessionId) return undefined;
    if (this.dnsRebindingProtection && this.hosts.length > 0 && !this.hosts.includes(h.host ?? '')) return undefined;
    const accept = h.accept;
    if (accept === undefined || !accept.includes('application/json') || !accept.includes('text/event-stream')) return undefined;
    if (!isJsonContentType(h['content-type'] ?? null)) return undefined;
    const version = h['mcp-protocol-version'];
    if (version !== undefined && !SUPPORTED_PROTOCOL_VERSIONS.includes(version as string)) return undefined;
    const parsed = JSONRPCMessageSchema.safeParse(body);
    if (!parsed.success || !isJSONRPCRequest(parsed.data) || this.fast.has(parsed.data.id)) return undefined;
    return parsed.data;
  }
}
