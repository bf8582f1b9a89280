// The replay engine of GET /events/stream (docs/contract.md "Tool sessions"):
// a tenant's events to one client as SSE frames (sse.ts), from the log first
// and then live, resumable with Last-Event-ID, with memory per client
// bounded however slow the client reads.
import type { ServerResponse } from 'node:http';
import type { ToolEvent } from '../events/event-types.js';
import type { EventStore, Tail } from '../events/store.js';
import { sseFrame, type SseStream } from './sse.js';

/** Events read from the log per step while a stream catches up. */
const REPLAY_PAGE = 500;

/** A tail whose listener is given once the stream starts (openTail subscribes before the client is answered). */
export type ListenedTail = Tail & { listen(fn: (e: ToolEvent) => void): void };

/** A live event's frame, made once however many of its tenant's streams are open. */
const liveFrames = new WeakMap<ToolEvent, string>();
function frame(e: ToolEvent): string {
  let text = liveFrames.get(e);
  if (text === undefined) liveFrames.set(e, (text = sseFrame({ id: e.sequence, event: e.type, data: JSON.stringify(e) })));
  return text;
}

/** Resolves when the response's socket buffer has drained, or the response closed. */
function drained(res: ServerResponse): Promise<void> {
  return new Promise<void>((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}

/**
 * Streams a tenant's events to one client, from a tail opened before the
 * client was answered (openTail). With `from` set, replays every event after
 * it from the log, then goes live; without, starts at the tail's start, the
 * stream's end before the answer. A client too slow to take live events is switched back to
 * reading from the log (after its socket drains), so memory held per client
 * stays bounded and nothing is skipped.
 *
 * Reads are asynchronous, so an event may be committed while a read is out:
 * the subscription notes it, and the pump reads again before going live. An
 * event committed before a read began is in what it returns; one committed
 * after reaches the live subscription; whichever delivers it second is
 * skipped by the cursor. Returns the stream's end.
 */
export function streamEvents(sse: SseStream, log: EventStore, tenant: string, from: number | undefined, tail: ListenedTail, onEnd: () => void): () => void {
  const res = sse.res;
  let ended = false;
  let live = false;
  let pumping = false;
  // An event arrived while not live: the read in progress may have missed it.
  let missed = false;
  // The last sequence written to the client (or skipped as already seen).
  let cursor = -1;

  const pump = async () => {
    if (pumping) return;
    pumping = true;
    try {
      while (!ended) {
        if (res.writableNeedDrain) await drained(res);
        if (ended) return;
        missed = false;
        const page = await log.readAfterSerialized(tenant, cursor, REPLAY_PAGE);
        if (ended) return;
        if (page.length === 0) {
          if (missed) continue;
          // Nothing more in the log and nothing committed since the read began: from here on live events follow.
          live = true;
          return;
        }
        for (const e of page) {
          cursor = e.sequence;
          sse.write(sseFrame({ id: e.sequence, event: e.type, data: e.json }));
        }
      }
    } catch {
      end(); // the log was closed under us
    } finally {
      pumping = false;
    }
  };

  tail.listen((e) => {
    if (ended) return;
    if (!live) {
      missed = true;
      return;
    }
    if (e.sequence <= cursor) return;
    cursor = e.sequence;
    if (!sse.write(frame(e))) {
      live = false;
      void pump();
    }
  });

  function end(): void {
    if (ended) return;
    ended = true;
    tail.unsubscribe();
    onEnd();
    if (res.writableEnded) sse.stop();
    else sse.end();
  }
  res.on('close', end);
  res.on('error', end);
  // The client may have gone while the tail was opened: its close was before these listeners.
  if (res.socket === null || res.socket.destroyed) end();

  // Without Last-Event-ID: from the end before the answer. An id beyond the
  // end (another log file, a made-up id) would hide every future event behind
  // it; resume from the real end instead.
  cursor = from === undefined ? tail.start : Math.min(from, tail.start);
  void pump();
  return end;
}
