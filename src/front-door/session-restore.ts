// Rebuilding an MCP session on a replica that did not see its initialize
// (docs/mcp.md "Several replicas"): a fresh SDK Server and transport, put in
// the state the initialize exchange would have left them in, from what the
// signed session id carries. The SDK has no public way to do this, so the
// fields are set here, in one place: the transport's session id and
// "initialized" flag, the server's record of the client's capabilities and
// name. test/front-door/replicas.test.ts drives a session through two replicas and
// fails if an SDK upgrade moves these fields.
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { ClientCapabilitiesSchema, LATEST_PROTOCOL_VERSION, SUPPORTED_PROTOCOL_VERSIONS, type ClientCapabilities, type Implementation } from '@modelcontextprotocol/sdk/types.js';

interface TransportInternals {
  _webStandardTransport?: { sessionId?: string; _initialized?: boolean };
}
interface ServerInternals {
  _clientCapabilities?: ClientCapabilities;
  _clientVersion?: Implementation;
}

/** The version the SDK's Server answers an initialize asking for `requested` with. */
export function negotiatedVersion(requested: unknown): string {
  return typeof requested === 'string' && SUPPORTED_PROTOCOL_VERSIONS.includes(requested) ? requested : LATEST_PROTOCOL_VERSION;
}

/** Marks a connected server and transport as initialized for session `id`; throws if the SDK's internals are not where they were. */
export function restoreInitialized(server: Server, transport: StreamableHTTPServerTransport, id: string, client: { capabilities: ClientCapabilities; clientInfo: Implementation }): void {
  const web = (transport as unknown as TransportInternals)._webStandardTransport;
  if (web === undefined || !('_initialized' in web)) throw new Error('the MCP SDK transport changed: a session cannot be restored');
  web.sessionId = id;
  web._initialized = true;
  const internals = server as unknown as ServerInternals;
  // Read as the SDK reads an initialize (`elicitation: {}` means form elicitation); what does not parse counts as nothing declared.
  const parsed = ClientCapabilitiesSchema.safeParse(client.capabilities);
  internals._clientCapabilities = parsed.success ? parsed.data : {};
  internals._clientVersion = client.clientInfo;
}
