// Test fixture: a small OAuth authorization server on loopback (node:http)
// for the OAuth discovery tests. It serves RFC 8414 metadata, a JWKS,
// dynamic client registration (RFC 7591), an authorization endpoint that
// approves at once and redirects with a code (PKCE S256 required), and a
// token endpoint for the client_credentials and authorization_code grants
// that issues real JWTs signed with jose, whose audience is the RFC 8707
// `resource` the client asked for. A request without `resource` is refused,
// so a test sees the client send it. For the authorization code grant it also
// issues refresh tokens, rotated on every use (the refresh_token grant), can
// revoke them (RFC 7009), sends `iss` with the code (RFC 9207), and takes the
// person who approves from an `x-test-user` header on the authorization
// request (the token's `sub`; the client id when absent). It also takes
// the RFC 8693 token-exchange grant from a pre-registered client: the
// subject token must be a JWT this server signed, and the issued token has
// its subject and the requested `audience` (else `resource`).
import { createHash, randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { jwtVerify, SignJWT } from 'jose';
import { jwksOf, makeKey, type SigningKey } from './jwt-fixture.js';

export interface OAuthClient {
  secret: string;
  tenant: string;
}

export interface AuthorizationServer {
  issuer: string;
  jwksUrl: string;
  key: SigningKey;
  /** The token requests answered, in order (what the client asked for). */
  tokenRequests: { clientId: string; resource: string | null; scope: string | null }[];
  /** refresh_token grant requests received, and revocations. */
  refreshes: number;
  revoked: string[];
  /** `expires_in` of the access tokens issued from now on (default 300). */
  accessTtlSec: number;
  /** Holds refresh answers until the returned function is called. */
  holdRefreshes(): () => void;
  /** Forgets every refresh token (the next refresh is refused with invalid_grant). */
  forgetRefreshTokens(): void;
  /** Token-exchange requests received (who exchanged what for which audience). */
  exchanges: { clientId: string; subject: string | null; subjectTokenType: string | null; audience: string | null; resource: string | null }[];
  /** Audiences a token exchange is refused for (invalid_target). */
  refusedAudiences: Set<string>;
  /** Signs a token as this server would, for any audience (a test's forged or misdirected token). */
  sign(claims: Record<string, unknown>): Promise<string>;
  close(): Promise<void>;
}

interface PendingCode {
  clientId: string;
  redirectUri: string;
  challenge: string;
  resource: string | null;
  scope: string | null;
  subject?: string;
}

/** `clients` are pre-registered (client_credentials); clients that register themselves get `registeredTenant`. */
export async function startAuthorizationServer(clients: Record<string, OAuthClient>, registeredTenant = 'acme'): Promise<AuthorizationServer> {
  const key = await makeKey('as-1');
  const registered = new Map<string, string[]>();
  const codes = new Map<string, PendingCode>();
  const tokenRequests: AuthorizationServer['tokenRequests'] = [];
  const refreshTokens = new Map<string, PendingCode>();
  let held: Promise<void> | undefined;
  let issuer = '';
  const sign = (claims: Record<string, unknown>): Promise<string> => {
    const now = Math.floor(Date.now() / 1000);
    return new SignJWT({ iss: issuer, iat: now, exp: now + 300, ...claims }).setProtectedHeader({ alg: key.alg, kid: key.kid }).sign(key.privateKey);
  };
  const json = (res: import('node:http').ServerResponse, status: number, body: unknown): void => {
    res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' }).end(JSON.stringify(body));
  };
  const exchange = async (authorization: string | undefined, form: URLSearchParams): Promise<[number, unknown]> => {
    const basic = /^Basic (.+)$/.exec(authorization ?? '');
    const [clientId, secret] = basic ? Buffer.from(basic[1], 'base64').toString('utf8').split(':').map(decodeURIComponent) : [];
    const client = clientId === undefined ? undefined : clients[clientId];
    if (!client || client.secret !== secret) return [401, { error: 'invalid_client' }];
    const audience = form.get('audience') ?? form.get('resource');
    let subject: string | null = null;
    try {
      subject = ((await jwtVerify(form.get('subject_token') ?? '', key.publicKey, { issuer })).payload.sub as string | undefined) ?? null;
    } catch {
      // an unverifiable subject token is refused below
    }
    as.exchanges.push({ clientId, subject, subjectTokenType: form.get('subject_token_type'), audience: form.get('audience'), resource: form.get('resource') });
    if (subject === null) return [400, { error: 'invalid_grant', error_description: 'subject_token is not valid' }];
    if (!audience || as.refusedAudiences.has(audience)) return [400, { error: 'invalid_target', error_description: 'this client may not get tokens for that audience' }];
    const token = await sign({ sub: subject, aud: audience, act: { sub: clientId } });
    return [200, { access_token: token, issued_token_type: 'urn:ietf:params:oauth:token-type:access_token', token_type: 'Bearer', expires_in: 300 }];
  };
  const as: AuthorizationServer = {
    issuer: '',
    jwksUrl: '',
    key,
    tokenRequests,
    refreshes: 0,
    revoked: [],
    accessTtlSec: 300,
    exchanges: [],
    refusedAudiences: new Set(),
    holdRefreshes() {
      let release!: () => void;
      held = new Promise<void>((r) => (release = r));
      return () => {
        held = undefined;
        release();
      };
    },
    forgetRefreshTokens: () => refreshTokens.clear(),
    sign,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', issuer);
      if (req.method === 'GET' && url.pathname === '/.well-known/oauth-authorization-server') {
        return json(res, 200, {
          issuer,
          authorization_endpoint: `${issuer}authorize`,
          token_endpoint: `${issuer}token`,
          jwks_uri: `${issuer}jwks.json`,
          registration_endpoint: `${issuer}register`,
          revocation_endpoint: `${issuer}revoke`,
          authorization_response_iss_parameter_supported: true,
          grant_types_supported: ['client_credentials', 'authorization_code', 'urn:ietf:params:oauth:grant-type:token-exchange'],
          token_endpoint_auth_methods_supported: ['client_secret_basic', 'none'],
          response_types_supported: ['code'],
          code_challenge_methods_supported: ['S256'],
        });
      }
      if (req.method === 'POST' && url.pathname === '/register') {
        const metadata = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as { redirect_uris?: string[] };
        const clientId = `dyn-${randomUUID()}`;
        registered.set(clientId, metadata.redirect_uris ?? []);
        return json(res, 201, { ...metadata, client_id: clientId, client_id_issued_at: Math.floor(Date.now() / 1000), token_endpoint_auth_method: 'none' });
      }
      if (req.method === 'GET' && url.pathname === '/authorize') {
        const q = url.searchParams;
        const clientId = q.get('client_id') ?? '';
        const redirectUri = q.get('redirect_uri') ?? '';
        if (!registered.get(clientId)?.includes(redirectUri)) return json(res, 400, { error: 'invalid_request', error_description: 'unknown client or redirect_uri' });
        if (q.get('response_type') !== 'code' || q.get('code_challenge_method') !== 'S256' || !q.get('code_challenge')) return json(res, 400, { error: 'invalid_request' });
        // The user approves at once: the redirect carries the code.
        const code = randomUUID();
        const user = req.headers['x-test-user'];
        codes.set(code, { clientId, redirectUri, challenge: q.get('code_challenge')!, resource: q.get('resource'), scope: q.get('scope'), ...(typeof user === 'string' ? { subject: user } : {}) });
        const back = new URL(redirectUri);
        back.searchParams.set('code', code);
        back.searchParams.set('iss', issuer);
        if (q.get('state') !== null) back.searchParams.set('state', q.get('state')!);
        res.writeHead(302, { location: back.href }).end();
        return;
      }
      if (req.method === 'GET' && url.pathname === '/jwks.json') return json(res, 200, jwksOf(key));
      if (req.method === 'POST' && url.pathname === '/token' && new URLSearchParams(Buffer.concat(chunks).toString('utf8')).get('grant_type') === 'authorization_code') {
        const form = new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
        const pending = codes.get(form.get('code') ?? '');
        codes.delete(form.get('code') ?? '');
        const verifier = form.get('code_verifier') ?? '';
        const resource = form.get('resource');
        tokenRequests.push({ clientId: pending?.clientId ?? '', resource, scope: pending?.scope ?? null });
        if (!pending || pending.clientId !== form.get('client_id') || pending.redirectUri !== form.get('redirect_uri')) return json(res, 400, { error: 'invalid_grant' });
        if (createHash('sha256').update(verifier).digest('base64url') !== pending.challenge) return json(res, 400, { error: 'invalid_grant', error_description: 'PKCE' });
        if (resource === null || resource !== pending.resource) return json(res, 400, { error: 'invalid_target' });
        const refresh = randomUUID();
        refreshTokens.set(refresh, pending);
        void sign({ sub: pending.subject ?? pending.clientId, aud: resource, tenant: registeredTenant, exp: Math.floor(Date.now() / 1000) + as.accessTtlSec, ...(pending.scope ? { scope: pending.scope } : {}) }).then((token) =>
          json(res, 200, { access_token: token, token_type: 'Bearer', expires_in: as.accessTtlSec, refresh_token: refresh, ...(pending.scope ? { scope: pending.scope } : {}) }),
        );
        return;
      }
      if (req.method === 'POST' && url.pathname === '/token' && new URLSearchParams(Buffer.concat(chunks).toString('utf8')).get('grant_type') === 'refresh_token') {
        const form = new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
        as.refreshes++;
        const old = form.get('refresh_token') ?? '';
        const grant = refreshTokens.get(old);
        void (held ?? Promise.resolve()).then(async () => {
          if (!grant || grant.clientId !== form.get('client_id') || form.get('resource') !== grant.resource) return json(res, 400, { error: 'invalid_grant' });
          refreshTokens.delete(old);
          const next = randomUUID();
          refreshTokens.set(next, grant);
          const token = await sign({ sub: grant.subject ?? grant.clientId, aud: grant.resource, tenant: registeredTenant, exp: Math.floor(Date.now() / 1000) + as.accessTtlSec });
          json(res, 200, { access_token: token, token_type: 'Bearer', expires_in: as.accessTtlSec, refresh_token: next });
        });
        return;
      }
      if (req.method === 'POST' && url.pathname === '/revoke') {
        const token = new URLSearchParams(Buffer.concat(chunks).toString('utf8')).get('token') ?? '';
        refreshTokens.delete(token);
        as.revoked.push(token);
        return void res.writeHead(200).end();
      }
      if (req.method === 'POST' && url.pathname === '/token' && new URLSearchParams(Buffer.concat(chunks).toString('utf8')).get('grant_type') === 'urn:ietf:params:oauth:grant-type:token-exchange') {
        void exchange(req.headers.authorization, new URLSearchParams(Buffer.concat(chunks).toString('utf8'))).then(([status, body]) => json(res, status, body));
        return;
      }
      if (req.method === 'POST' && url.pathname === '/token') {
        const basic = /^Basic (.+)$/.exec(req.headers.authorization ?? '');
        const [clientId, secret] = basic ? Buffer.from(basic[1], 'base64').toString('utf8').split(':').map(decodeURIComponent) : [];
        const client = clientId === undefined ? undefined : clients[clientId];
        if (!client || client.secret !== secret) return json(res, 401, { error: 'invalid_client' });
        const form = new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
        const resource = form.get('resource');
        const scope = form.get('scope');
        tokenRequests.push({ clientId, resource, scope });
        if (form.get('grant_type') !== 'client_credentials') return json(res, 400, { error: 'unsupported_grant_type' });
        if (resource === null) return json(res, 400, { error: 'invalid_target', error_description: 'resource is required' });
        void sign({ sub: clientId, aud: resource, tenant: client.tenant, ...(scope ? { scope } : {}) }).then((token) =>
          json(res, 200, { access_token: token, token_type: 'Bearer', expires_in: 300, ...(scope ? { scope } : {}) }),
        );
        return;
      }
      json(res, 404, { error: 'not_found' });
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  Object.assign(as, { issuer, jwksUrl: `${issuer}jwks.json` });
  return as;
}

