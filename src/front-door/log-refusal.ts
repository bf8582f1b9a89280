// A call that would be recorded while the event store cannot be written (a
// database that is down, a full disk; docs/mcp.md): refused before it
// reaches the MCP layer, 503 with a vendor code, so a load balancer or client
// can take it elsewhere; what needs no record (tools/list) is still answered.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { EventLogUnavailableError } from '../events/log-health.js';
import { sendError } from '../http/respond.js';
import type { InvokeDeps } from '../invoke/types.js';
import { LIST_SOURCES_TOOL, SEARCH_TOOL } from './search-mode.js';

/** How many JSON-RPC `tools/call`s (alone or in a batch) run a tool and record a tool session: any but the search mode's search and list tools. */
export function recordedCalls(request: FastifyRequest): number {
  if (request.method !== 'POST') return 0;
  const messages = Array.isArray(request.body) ? request.body : [request.body];
  return messages.filter((m) => {
    const message = m as { method?: unknown; params?: { name?: unknown } } | null;
    return message?.method === 'tools/call' && message.params?.name !== SEARCH_TOOL && message.params?.name !== LIST_SOURCES_TOOL;
  }).length;
}

/** The 503 for a recorded call while the event store cannot be written; undefined when the request may go on. */
export function refuseWhileLogDown(deps: InvokeDeps, calls: number, reply: FastifyReply): FastifyReply | undefined {
  const events = deps.events?.health();
  if (events === undefined || events.writable || calls === 0) return undefined;
  const refusal = new EventLogUnavailableError({ reason: events.reason ?? 'other', code: 'UNAVAILABLE', message: events.error ?? 'unknown' });
  return sendError(reply, 'toolhost.unavailable', refusal.message, { reason: refusal.failure.reason, since: events.since }, { 'retry-after': '1' });
}
