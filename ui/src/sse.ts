// Server-Sent Events read with fetch (docs/ui.md "Live activity"): EventSource
// cannot send an Authorization header, and the credential must never go into
// a URL, so the page reads the stream itself and parses the event format
// (WHATWG HTML "Server-sent events": `id:`, `event:`, `data:` lines, a blank
// line ends an event, lines starting with `:` are comments).

export interface SseMessage {
  id?: string;
  event: string;
  data: string;
}

/** Calls onMessage for each complete event of the body; resolves when the body ends. */
export async function readSse(body: ReadableStream<Uint8Array>, onMessage: (message: SseMessage) => void | Promise<void>): Promise<void> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  let id: string | undefined;
  let event = '';
  let data: string[] = [];
  try {
    for (;;) {
      const { value, done } = await reader.read();
      buffer += done ? decoder.decode() : decoder.decode(value, { stream: true });
      let newline: number;
      while ((newline = buffer.search(/\r\n|\r|\n/)) >= 0) {
        // A CR at the very end may be the first half of a CRLF cut between two chunks: wait for the next (unless none comes).
        if (!done && newline === buffer.length - 1 && buffer[newline] === '\r') break;
        const line = buffer.slice(0, newline);
        buffer = buffer.slice(newline + (buffer.startsWith('\r\n', newline) ? 2 : 1));
        if (line === '') {
          if (data.length > 0) await onMessage({ id, event: event || 'message', data: data.join('\n') });
          event = '';
          data = [];
          continue;
        }
        if (line.startsWith(':')) continue;
        const colon = line.indexOf(':');
        const field = colon < 0 ? line : line.slice(0, colon);
        const text = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
        if (field === 'data') data.push(text);
        else if (field === 'event') event = text;
        else if (field === 'id' && !text.includes('\0')) id = text;
      }
      // What is left without a final blank line is not an event (WHATWG: discarded at the end of the stream).
      if (done) return;
    }
  } finally {
    reader.releaseLock();
  }
}

/**
 * A resumable subscription: reconnects after a drop (with a growing pause)
 * and sends the last seen event id as `Last-Event-ID`, so nothing is missed
 * or repeated. stop() ends it.
 */
export function subscribe(
  path: string,
  headers: () => Record<string, string>,
  onMessage: (message: SseMessage) => void,
  onState: (state: 'live' | 'reconnecting' | 'refused', detail?: string) => void,
): { stop(): void } {
  const controller = new AbortController();
  let lastId: string | undefined;
  let pause = 500;
  const run = async (): Promise<void> => {
    while (!controller.signal.aborted) {
      try {
        const response = await fetch(path, {
          headers: { ...headers(), accept: 'text/event-stream', ...(lastId !== undefined ? { 'last-event-id': lastId } : {}) },
          signal: controller.signal,
          credentials: 'omit',
        });
        if (response.status === 401 || response.status === 403 || response.status === 404) {
          onState('refused', `${response.status}`);
          return;
        }
        if (!response.ok || response.body === null) throw new Error(`${response.status}`);
        onState('live');
        pause = 500;
        await readSse(response.body, (m) => {
          if (m.id !== undefined) lastId = m.id;
          onMessage(m);
        });
      } catch {
        if (controller.signal.aborted) return;
      }
      onState('reconnecting');
      await new Promise((resolve) => setTimeout(resolve, pause));
      pause = Math.min(pause * 2, 15_000);
    }
  };
  void run();
  return { stop: () => controller.abort() };
}
