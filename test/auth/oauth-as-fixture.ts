// Test fixture: a small OAuth authorization server on loopback (node:http)
// for the OAuth discovery tests. It serves RFC 8414 metadata, a JWKS,
// dynamic client registration (RFC 7591), an authorization endpoint that
// approves at once and redirects with a code (PKCE S256 required), and a
// token endpoint for the client_credentials and authorization_code grants
// that issues real JWTs signed with jose, whose audience is the RFC 8707
// `resource` the client asked for. A request without `resource` is refused,
// so a test sees the client send it.
import { createHash, randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SignJWT } from 'jose';
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
}

/** `clients` are pre-registered (client_credentials); clients that register themselves get `registeredTenant`. */
export async function startAuthorizationServer(clients: Record<string, OAuthClient>, registeredTenant = 'acme'): Promise<AuthorizationServer> {
  const key = await makeKey('as-1');
  const registered = new Map<string, string[]>();
  const codes = new Map<string, PendingCode>();
  const tokenRequests: AuthorizationServer['tokenRequests'] = [];
  let issuer = '';
  const sign = (claims: Record<string, unknown>): Promise<string> => {
    const now = Math.floor(Date.now() / 1000);
    return new SignJWT({ iss: issuer, iat: now, exp: now + 300, ...claims }).setProtectedHeader({ alg: key.alg, kid: key.kid }).sign(key.privateKey);
  };
  const json = (res: import('node:http').ServerResponse, status: number, body: unknown): void => {
    res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' }).end(JSON.stringify(body));
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
          grant_types_supported: ['client_credentials', 'authorization_code'],
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
        codes.set(code, { clientId, redirectUri, challenge: q.get('code_challenge')!, resource: q.get('resource'), scope: q.get('scope') });
        const back = new URL(redirectUri);
        back.searchParams.set('code', code);
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
        void sign({ sub: pending.clientId, aud: resource, tenant: registeredTenant, ...(pending.scope ? { scope: pending.scope } : {}) }).then((token) =>
          json(res, 200, { access_token: token, token_type: 'Bearer', expires_in: 300 }),
        );
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
  return {
    issuer,
    jwksUrl: `${issuer}jwks.json`,
    key,
    tokenRequests,
    sign,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
