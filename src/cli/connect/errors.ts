// What the bridge tells a person when the host cannot be used: one line,
// naming the host (origin and path only) and the reason, never a stack, the
// credential or what the host's error page held beyond its first line. The
// kind decides what happens next: an unreachable host is retried with
// backoff; a refused credential, a protocol version the two sides do not
// share, or a URL that is no MCP endpoint is not (retrying cannot fix them).
import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { boundedLine } from '../../util/log-text.js';
import { maskCredentialPatterns } from '../../util/scrub.js';

export type FailureKind = 'unreachable' | 'refused' | 'forbidden' | 'version' | 'not-mcp' | 'closing';

export class BridgeError extends Error {
  constructor(
    message: string,
    readonly kind: FailureKind,
  ) {
    super(message);
    this.name = 'BridgeError';
  }
}

export const isFatal = (err: BridgeError) => err.kind !== 'unreachable' && err.kind !== 'closing';

const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ENOTFOUND', 'EAI_AGAIN', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'EPIPE', 'UND_ERR_SOCKET', 'UND_ERR_CONNECT_TIMEOUT']);

/** The network error code under a fetch failure ("fetch failed" with a cause), if any. */
export function networkCode(err: unknown): string | undefined {
  for (let e = err as { code?: unknown; cause?: unknown } | undefined, depth = 0; e && depth < 4; e = e.cause as typeof e, depth++) {
    if (typeof e.code === 'string' && NETWORK_CODES.has(e.code)) return e.code;
  }
  return undefined;
}

/** Text safe for a person: the credential's value and credential-shaped runs masked, one bounded line. */
export function safeLine(text: string, token?: string): string {
  const masked = token ? text.split(token).join('[redacted]') : text;
  return boundedLine(maskCredentialPatterns(masked), 300);
}

/** A failure to connect or to initialize, as one line and a kind. */
export function describeFailure(err: unknown, where: string, token?: string): BridgeError {
  if (err instanceof BridgeError) return err;
  const code = networkCode(err);
  if (code) return new BridgeError(`cannot reach toolhost at ${where} (${code}); is it running?`, 'unreachable');
  if (err instanceof StreamableHTTPError) {
    const status = err.code ?? 0;
    if (status === 401) return new BridgeError(`toolhost at ${where} refused the credential (401 unauthenticated): check the token given by --token-env or --token-file`, 'refused');
    if (status === 403) return new BridgeError(`toolhost at ${where} does not let this credential use MCP (403)`, 'forbidden');
    if (status === 404 || status === 405) return new BridgeError(`${where} is not an MCP endpoint (${status}); the URL ends in /mcp`, 'not-mcp');
    if (status === 406) return new BridgeError(`toolhost at ${where} does not speak this bridge's MCP protocol version (406): use a toolhost and a bridge of matching releases`, 'version');
    if (status === -1) return new BridgeError(`${where} answered with something other than MCP; is the URL a toolhost /mcp endpoint?`, 'not-mcp');
    if (status >= 500) return new BridgeError(`toolhost at ${where} is unavailable (${status}); retrying`, 'unreachable');
  }
  const message = err instanceof Error ? err.message : String(err);
  if (/protocol version is not supported/i.test(message)) {
    return new BridgeError(`toolhost at ${where} speaks an MCP protocol version this bridge does not (${safeLine(message.replace(/^.*supported:\s*/i, ''), token)}): use a toolhost and a bridge of matching releases`, 'version');
  }
  return new BridgeError(`cannot use toolhost at ${where}: ${safeLine(message, token)}`, 'unreachable');
}
