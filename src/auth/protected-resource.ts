// OAuth 2.0 Protected Resource Metadata (RFC 9728) for the host, as the MCP
// authorization spec asks of a server: the document an MCP client fetches to
// learn which authorization server issues tokens for this host, and the
// `resource_metadata` hint every 401 carries so the client knows where to
// look. The host publishes what the config says (docs/auth.md "OAuth
// discovery"); it issues no tokens itself.
import type { AuthConfig } from './config.js';

const WELL_KNOWN = '/.well-known/oauth-protected-resource';

export interface ProtectedResource {
  /** The metadata document (RFC 9728 section 2). */
  document: Record<string, unknown>;
  /** Where the document is served on this host: the root form, the resource's path-suffixed form and `/mcp`'s. */
  paths: string[];
  /** The auth-param for `WWW-Authenticate: Bearer` (RFC 9728 section 5.1). */
  challenge: string;
}

const list = (v: string | string[]): string[] => (typeof v === 'string' ? [v] : v);

/** The metadata for this config, or undefined when OAuth discovery is not configured. */
export function protectedResourceOf(auth: AuthConfig | undefined): ProtectedResource | undefined {
  const oauth = auth?.oauth;
  const jwt = auth?.jwt;
  if (oauth === undefined || jwt === undefined) return undefined;
  const url = new URL(oauth.resource);
  const path = url.pathname.replace(/\/+$/, '');
  const document: Record<string, unknown> = {
    resource: oauth.resource,
    authorization_servers: oauth.authorizationServers ?? list(jwt.issuer),
    ...(oauth.scopesSupported !== undefined ? { scopes_supported: oauth.scopesSupported } : {}),
    bearer_methods_supported: ['header'],
    ...(oauth.resourceName !== undefined ? { resource_name: oauth.resourceName } : {}),
  };
  const metadataUrl = `${url.origin}${WELL_KNOWN}${path}`;
  return {
    document,
    paths: [...new Set([WELL_KNOWN, `${WELL_KNOWN}${path}`, `${WELL_KNOWN}/mcp`])],
    challenge: `resource_metadata="${metadataUrl}"`,
  };
}
