// Reading the tool-session event log a page at a time (docs/contract.md
// "Tool sessions"): the `after`, `limit` and Last-Event-ID cursors as the
// event routes accept them, and one page's body joined from the events'
// stored JSON.
import type { FastifyRequest } from 'fastify';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { ContractError } from '../contract/errors.js';
import type { SerializedEvent } from '../events/event-types.js';
import type { EventStore } from '../events/store.js';

export const DEFAULT_LIMIT = 100;
export const MAX_LIMIT = 1000;
/** Events read per turn of the event loop while a page is assembled. */
const PAGE_CHUNK = 250;

interface Problem {
  parameter: string;
  expected: string;
}

/** A sequence cursor: -1 (before the first event) or a non-negative integer, written plainly. */
function parseCursor(text: unknown): number | undefined {
  if (typeof text !== 'string' || !/^(?:-1|0|[1-9][0-9]{0,15})$/.test(text)) return undefined;
  const n = Number(text);
  return Number.isSafeInteger(n) ? n : undefined;
}

function parseLimit(text: unknown): number | undefined {
  if (typeof text !== 'string' || !/^[1-9][0-9]{0,3}$/.test(text)) return undefined;
  const n = Number(text);
  return n <= MAX_LIMIT ? n : undefined;
}

export function pageQuery(request: FastifyRequest): { after: number; limit: number } {
  const query = (request.query ?? {}) as Record<string, unknown>;
  const problems: Problem[] = [];
  let after = -1;
  let limit = DEFAULT_LIMIT;
  if (query.after !== undefined) {
    const n = parseCursor(query.after);
    if (n === undefined) problems.push({ parameter: 'after', expected: 'one integer >= -1 (a sequence number)' });
    else after = n;
  }
  if (query.limit !== undefined) {
    const n = parseLimit(query.limit);
    if (n === undefined) problems.push({ parameter: 'limit', expected: `one integer from 1 to ${MAX_LIMIT}` });
    else limit = n;
  }
  if (problems.length > 0) throw new ContractError('validation_error', 'invalid query parameters', { problems });
  return { after, limit };
}

export function lastEventId(request: FastifyRequest): number | undefined {
  const header = request.headers['last-event-id'];
  if (header === undefined || header === '') return undefined;
  const n = parseCursor(header);
  if (n === undefined) {
    throw new ContractError('validation_error', 'invalid Last-Event-ID header', {
      problems: [{ parameter: 'Last-Event-ID', expected: 'one integer >= -1 (the id of the last event received)' }],
    });
  }
  return n;
}

/**
 * `{ events, next }` for one page, joined from the events' stored JSON. A
 * large page is read a chunk at a time with a turn of the event loop between
 * chunks, so a thousand-event page does not hold up every other request.
 * Each chunk goes on from the last sequence read: the page is a contiguous
 * run of the stream even if events are appended meanwhile.
 */
export async function pageBody(log: EventStore, tenant: string, after: number, limit: number): Promise<string> {
  const parts: string[] = [];
  let cursor = after;
  for (let left = limit; left > 0; ) {
    if (parts.length > 0) await nextTurn();
    const chunk: SerializedEvent[] = await log.readAfterSerialized(tenant, cursor, Math.min(left, PAGE_CHUNK));
    for (const e of chunk) parts.push(e.json);
    if (chunk.length === 0) break;
    cursor = chunk[chunk.length - 1].sequence;
    left -= chunk.length;
    if (chunk.length < PAGE_CHUNK) break;
  }
  return `{"events":[${parts.join(',')}],"next":${cursor},"logId":${JSON.stringify(log.health().logId)}}`;
}
