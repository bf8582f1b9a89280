// Rebuilding an MCP session on a replica that did not see its initialize
// (docs/mcp.md "Several replicas"): a fresh SDK Server and transport, told
// the initialize request the client sent, rebuilt from what the signed
// session id carries. It goes in through the transport's public
// handleRequest, on an in-process request (light-my-request), so the SDK
// itself marks the transport initialized under the session's id (its
// `sessionIdGenerator` names it) and the Server records the client's
// capabilities and name, as on the replica that saw the original. Its answer
// is dropped: the client had it from that replica.
import inject from 'light-my-request';
import { ClientCapabilitiesSchema, LATEST_PROTOCOL_VERSION, SUPPORTED_PROTOCOL_VERSIONS, type ClientCapabilities, type Implementation } from '@modelcontextprotocol/sdk/types.js';
import type { FrontDoorTransport } from './fast-call.js';

/** The version the SDK's Server answers an initialize asking for `requested` with. */
export function negotiatedVersion(requested: unknown): string {
  return typeof requested === 'string' && SUPPORTED_PROTOCOL_VERSIONS.includes(requested) ? requested : LATEST_PROTOCOL_VERSION;
}

export interface RestoredClient {
  protocolVersion: string;
  capabilities: ClientCapabilities;
  clientInfo: Implementation;
}

/**
 * Initializes a connected transport (whose id generator gives the session's
 * id) as the client's initialize did; throws when the SDK does not answer it
 * as an initialize, or the session is not the one asked for.
 */
export async function restoreInitialized(transport: FrontDoorTransport, id: string, client: RestoredClient): Promise<void> {
  // Read as the SDK reads an initialize (`elicitation: {}` means form elicitation); what does not parse counts as nothing declared.
  const parsed = ClientCapabilitiesSchema.safeParse(client.capabilities);
  const initialize = {
    jsonrpc: '2.0',
    id: 0,
    method: 'initialize',
    params: { protocolVersion: client.protocolVersion, capabilities: parsed.success ? parsed.data : {}, clientInfo: client.clientInfo },
  };
  const body = JSON.stringify(initialize);
  const answer = await inject((req, res) => void transport.handleRequest(req, res, initialize), {
    method: 'POST',
    url: '/mcp',
    headers: { host: transport.allowedHost ?? 'localhost', accept: 'application/json, text/event-stream', 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) },
    payload: body,
  });
  if (answer.statusCode !== 200 || transport.sessionId !== id) throw new Error(`the MCP session could not be restored: ${answer.statusCode} ${answer.payload.slice(0, 200)}`);
}
