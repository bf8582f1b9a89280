// The JSON-RPC errors the front door answers with itself (docs/mcp.md
// "Sessions and limits"): on the HTTP answer before any session handles the
// request (no session, a bad choice of mode), or thrown from a
// handler for the SDK to answer with.
import type { FastifyReply } from 'fastify';

/**
 * A JSON-RPC error for the SDK to answer with. Not an McpError: its message
 * already reads `MCP error <code>: ...`, and the client's McpError adds that
 * prefix again.
 */
export function protocolError(code: number, message: string): Error {
  return Object.assign(new Error(message), { code });
}

/** A JSON-RPC error as the whole HTTP answer (`id: null`: it answers no request in particular). */
export function rpcError(reply: FastifyReply, status: number, code: number, message: string, headers: Record<string, string> = {}): FastifyReply {
  return reply.code(status).headers({ ...headers, 'content-type': 'application/json' }).send(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }));
}
