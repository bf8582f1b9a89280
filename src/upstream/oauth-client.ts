// The host as an OAuth 2.1 client of one remote MCP server's authorization
// server, on a person's behalf (docs/auth.md "Upstream credentials",
// `oauth`). Discovery follows the MCP authorization spec through the SDK's
// client helpers: the server's protected resource metadata (RFC 9728), the
// authorization server's metadata (RFC 8414, OpenID discovery as fallback),
// dynamic client registration (RFC 7591) unless a client is configured.
// Authorization code with PKCE (S256) and the RFC 8707 `resource` indicator
// on the authorization, token and refresh requests; revocation (RFC 7009)
// where the server offers it. Discovery and registration are cached per
// source and forgotten when they fail, so a later connect tries again.
import {
  discoverOAuthServerInfo,
  exchangeAuthorization,
  refreshAuthorization,
  registerClient,
  startAuthorization,
} from '@modelcontextprotocol/sdk/client/auth.js';
import type { AuthorizationServerMetadata, OAuthClientInformationMixed, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { IMPLEMENTATION } from '../contract/protocol.js';

export interface Discovered {
  asUrl: string;
  metadata: AuthorizationServerMetadata;
  /** The RFC 8707 resource: the metadata's `resource` when it covers the server URL, else the server URL. */
  resource: string;
  scopes?: string[];
}

/** What a grant keeps (sealed) to use and renew its tokens, also after a restart. */
export interface GrantTokens {
  access: string;
  refresh?: string;
  /** Epoch ms. */
  expiresAt?: number;
  scope?: string;
  clientId: string;
  clientSecret?: string;
  issuer: string;
}

export class OAuthRefused extends Error {}

export class OAuthUpstream {
  private discovered?: Promise<Discovered>;
  private registered?: Promise<OAuthClientInformationMixed>;

  constructor(
    readonly sourceId: string,
    private readonly serverUrl: string,
    readonly redirectUri: string,
    private readonly configured: { clientId?: string; clientSecret?: string; scopes?: string[] },
  ) {}

  discover(): Promise<Discovered> {
    this.discovered ??= this.discoverNow();
    this.discovered.catch(() => (this.discovered = undefined));
    return this.discovered;
  }

  private async discoverNow(): Promise<Discovered> {
    const info = await discoverOAuthServerInfo(this.serverUrl);
    if (!info.authorizationServerMetadata) throw new OAuthRefused(`${this.sourceId}: the authorization server publishes no metadata`);
    const declared = info.resourceMetadata?.resource;
    const covers = declared !== undefined && new URL(declared).origin === new URL(this.serverUrl).origin && this.serverUrl.startsWith(declared);
    return { asUrl: info.authorizationServerUrl, metadata: info.authorizationServerMetadata, resource: covers ? declared : this.serverUrl, scopes: info.resourceMetadata?.scopes_supported };
  }

  /** The configured client, or one registered once per start (dynamic registration). */
  async client(d: Discovered): Promise<OAuthClientInformationMixed> {
    if (this.configured.clientId) return { client_id: this.configured.clientId, ...(this.configured.clientSecret ? { client_secret: this.configured.clientSecret } : {}) };
    if (!d.metadata.registration_endpoint) throw new OAuthRefused(`${this.sourceId}: the authorization server offers no dynamic registration; configure credentials.oauth.clientId`);
    this.registered ??= registerClient(d.asUrl, {
      metadata: d.metadata,
      clientMetadata: { client_name: IMPLEMENTATION.name, redirect_uris: [this.redirectUri], grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], token_endpoint_auth_method: 'none' },
    });
    this.registered.catch(() => (this.registered = undefined));
    return this.registered;
  }

  /** The authorization URL (PKCE S256, state, resource) and the verifier to keep until the callback. */
  async begin(state: string): Promise<{ url: URL; verifier: string; client: OAuthClientInformationMixed; issuer: string }> {
    const d = await this.discover();
    const client = await this.client(d);
    const scopes = this.configured.scopes ?? d.scopes;
    const { authorizationUrl, codeVerifier } = await startAuthorization(d.asUrl, {
      metadata: d.metadata,
      clientInformation: client,
      redirectUrl: this.redirectUri,
      state,
      resource: d.resource,
      ...(scopes && scopes.length > 0 ? { scope: scopes.join(' ') } : {}),
    });
    return { url: authorizationUrl, verifier: codeVerifier, client, issuer: d.metadata.issuer };
  }

  async exchange(code: string, verifier: string, client: OAuthClientInformationMixed): Promise<GrantTokens> {
    const d = await this.discover();
    const tokens = await exchangeAuthorization(d.asUrl, { metadata: d.metadata, clientInformation: client, authorizationCode: code, codeVerifier: verifier, redirectUri: this.redirectUri, resource: d.resource });
    return grantOf(tokens, client, d.metadata.issuer);
  }

  /** Rejects with OAuthRefused when the server refuses the refresh token (the grant is gone). */
  async refresh(grant: GrantTokens): Promise<GrantTokens> {
    if (!grant.refresh) throw new OAuthRefused('no refresh token');
    const d = await this.discover();
    const client = { client_id: grant.clientId, ...(grant.clientSecret ? { client_secret: grant.clientSecret } : {}) };
    let tokens: OAuthTokens;
    try {
      tokens = await refreshAuthorization(d.asUrl, { metadata: d.metadata, clientInformation: client, refreshToken: grant.refresh, resource: d.resource });
    } catch (err) {
      throw new OAuthRefused(`the refresh was refused (${err instanceof Error ? err.name : 'error'})`);
    }
    // A server that rotates refresh tokens returns a new one; one that does not keeps the old one valid.
    return grantOf({ ...tokens, refresh_token: tokens.refresh_token ?? grant.refresh }, client, grant.issuer);
  }

  /** Revokes the refresh token (else the access token) where the server has a revocation endpoint; best effort. */
  async revoke(grant: GrantTokens): Promise<void> {
    const d = await this.discover().catch(() => undefined);
    const endpoint = (d?.metadata as { revocation_endpoint?: unknown } | undefined)?.revocation_endpoint;
    if (typeof endpoint !== 'string') return;
    const body = new URLSearchParams({ token: grant.refresh ?? grant.access, token_type_hint: grant.refresh ? 'refresh_token' : 'access_token', client_id: grant.clientId });
    const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded' };
    if (grant.clientSecret) headers.authorization = `Basic ${Buffer.from(`${encodeURIComponent(grant.clientId)}:${encodeURIComponent(grant.clientSecret)}`).toString('base64')}`;
    await fetch(endpoint, { method: 'POST', headers, body, signal: AbortSignal.timeout(5000), redirect: 'manual' }).catch(() => undefined);
  }
}

function grantOf(tokens: OAuthTokens, client: OAuthClientInformationMixed, issuer: string): GrantTokens {
  return {
    access: tokens.access_token,
    ...(tokens.refresh_token ? { refresh: tokens.refresh_token } : {}),
    ...(tokens.expires_in !== undefined ? { expiresAt: Date.now() + tokens.expires_in * 1000 } : {}),
    ...(tokens.scope ? { scope: tokens.scope } : {}),
    clientId: client.client_id,
    ...('client_secret' in client && client.client_secret ? { clientSecret: client.client_secret } : {}),
    issuer,
  };
}
