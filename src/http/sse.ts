// The one writer of server-sent events (the event stream format of the
// WHATWG HTML standard, "Server-sent events"; docs/architecture.md
// "Protocol pieces toolhost owns"): the tool-event stream of GET
// /events/stream and the answer stream of a tools/call on the MCP front
// door's short road both frame their events here and keep their connections
// alive with the same comments. Each event is `field: value` lines ended by a
// blank line; a data value holding line breaks becomes one `data:` line per
// line, which is how a reader joins it back (with "\n").
import type { OutgoingHttpHeaders, ServerResponse } from 'node:http';

export interface SseEvent {
  /** The event's id (a client's Last-Event-ID on reconnection). */
  id?: string | number;
  /** The event type; a reader without one takes "message". */
  event?: string;
  data: string;
}

const LINE_BREAK = /\r\n|\r|\n/;

/** The `name: value` line of a field whose value may not break a line (id, event). */
function singleLine(name: string, value: string): string {
  if (LINE_BREAK.test(value)) throw new Error(`an SSE ${name} cannot hold a line break`);
  return `${name}: ${value}\n`;
}

/** One event as it goes on the wire, blank line included. */
export function sseFrame(e: SseEvent): string {
  let text = '';
  if (e.id !== undefined) text += singleLine('id', String(e.id));
  if (e.event !== undefined) text += singleLine('event', e.event);
  // JSON never holds a raw line break, so the usual data is one line, unsplit.
  if (!LINE_BREAK.test(e.data)) return `${text}data: ${e.data}\n\n`;
  for (const line of e.data.split(LINE_BREAK)) text += `data: ${line}\n`;
  return `${text}\n`;
}

/** A comment line: readers ignore it, proxies and idle timers see traffic. */
export function sseComment(text: string): string {
  if (LINE_BREAK.test(text)) throw new Error('an SSE comment cannot hold a line break');
  return `: ${text}\n\n`;
}

export interface SseStreamOptions {
  /** Status 200's headers, written with the first thing that goes out (or at `open()`). */
  headers: OutgoingHttpHeaders;
  /** A comment every this many milliseconds while the stream is open; 0: none. */
  keepAliveMs: number;
  /** The keep-alive comment's text. */
  keepAliveComment: string;
}

/**
 * An event stream on a Node response. The headers wait until the first write
 * (or `open()`), so an answer whose only event is ready at once can go out
 * whole: headers with Content-Length, the event and the end in one write.
 */
export class SseStream {
  private readonly keepAlive: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(
    readonly res: ServerResponse,
    private readonly options: SseStreamOptions,
  ) {
    if (options.keepAliveMs > 0) {
      const comment = sseComment(options.keepAliveComment);
      this.keepAlive = setInterval(() => this.write(comment), options.keepAliveMs);
      this.keepAlive.unref();
    }
  }

  /** Sends the headers now, once. */
  open(): void {
    if (!this.res.headersSent) this.res.writeHead(200, this.options.headers);
  }

  /** Writes framed text (sseFrame, sseComment); false when the socket's buffer is full (wait for 'drain'). */
  write(text: string): boolean {
    if (this.stopped) return false;
    this.open();
    return this.res.write(text);
  }

  /**
   * Ends the stream, with a last event's frame when there is one. `whole`:
   * when nothing has gone out yet, the headers carry its Content-Length and
   * all of it goes in one write; otherwise the end is chunked like the rest.
   */
  end(last?: string, whole = false): void {
    if (this.stopped) return;
    this.stop();
    if (whole && last !== undefined && !this.res.headersSent) {
      this.res.writeHead(200, { ...this.options.headers, 'content-length': String(Buffer.byteLength(last)) });
      this.res.end(last);
      return;
    }
    this.open();
    if (last === undefined) this.res.end();
    else this.res.end(last);
  }

  /** Nothing more is written (the client went away, or the stream ended). */
  stop(): void {
    this.stopped = true;
    if (this.keepAlive !== undefined) clearInterval(this.keepAlive);
  }
}
