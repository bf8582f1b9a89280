// The answer to one POSTed JSON-RPC request as the MCP Streamable HTTP
// transport sends it (docs/architecture.md "Protocol pieces toolhost owns"):
// status 200, Content-Type text/event-stream, the session's Mcp-Session-Id,
// then one SSE event named `message` per JSON-RPC message, the messages
// related to the request (progress, log lines, the server's own requests)
// before its response, and the stream closed after the response. Headers and
// events are those of the SDK's StreamableHTTPServerTransport, so the front
// door's two roads answer the same bytes (test/front-door/fast-call.test.ts).
//
// How the body is framed is ours, decided by what the request became, never
// by timing: an answer the front door gives without starting the call (a
// refusal, a search) goes out whole, with Content-Length; once the call has
// started its answer streams, chunked. Either way the headers go out with
// the first event, or after a short grace when the answer is slow to come.
import type { ServerResponse } from 'node:http';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { DEFAULT_SSE_KEEP_ALIVE_MS } from '@modelcontextprotocol/sdk/server/sseKeepAlive.js';
import { sseFrame, SseStream } from '../http/sse.js';

/**
 * How long the headers of an answer wait for its first event.
 * Within it, a call that answers at once goes out in one write; past it, the
 * client gets the headers as the SDK would have sent them at the start, so a
 * client timing out on headers sees no difference for a long call.
 */
export const HEADER_GRACE_MS = 50;

/** The keep-alive comment of the SDK's streams. */
const KEEP_ALIVE_COMMENT = 'keepalive';

/** One JSON-RPC message as an event of the answer stream. */
export function messageFrame(message: JSONRPCMessage): string {
  return sseFrame({ event: 'message', data: JSON.stringify(message) });
}

/** The headers of an answer stream, in the SDK's order. */
export function callStreamHeaders(sessionId: string): Record<string, string> {
  return {
    'cache-control': 'no-cache, no-transform',
    connection: 'keep-alive',
    'content-type': 'text/event-stream',
    'mcp-session-id': sessionId,
    'x-accel-buffering': 'no',
  };
}

export class CallStream {
  private readonly sse: SseStream;
  private grace: NodeJS.Timeout | undefined;
  /** The call has started: its answer streams. */
  private started = false;

  constructor(res: ServerResponse, sessionId: string) {
    this.sse = new SseStream(res, { headers: callStreamHeaders(sessionId), keepAliveMs: DEFAULT_SSE_KEEP_ALIVE_MS, keepAliveComment: KEEP_ALIVE_COMMENT });
    this.grace = setTimeout(() => this.sse.open(), HEADER_GRACE_MS);
    this.grace.unref();
  }

  /** The request reached the call itself (the invocation layer): from here its answer streams. */
  start(): void {
    this.started = true;
  }

  /** A message related to the request, before its response. */
  event(message: JSONRPCMessage): void {
    this.sse.write(messageFrame(message));
  }

  /** Ends the stream, with the response when there is one. */
  end(response?: JSONRPCMessage): void {
    this.clearGrace();
    this.sse.end(response === undefined ? undefined : messageFrame(response), !this.started);
  }

  /** The client went away: nothing more is written. */
  drop(): void {
    this.clearGrace();
    this.sse.stop();
  }

  private clearGrace(): void {
    if (this.grace !== undefined) clearTimeout(this.grace);
    this.grace = undefined;
  }
}
