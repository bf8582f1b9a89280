// Test fixture: a small OAuth authorization server on loopback (node:http)
// for the OAuth discovery tests. It serves RFC 8414 metadata, a JWKS, and a
// token endpoint for the client_credentials grant that issues real JWTs
// signed with jose, whose audience is the RFC 8707 `resource` the client
// asked for. A request without `resource` is refused, so a test sees the
// client send it. (The authorization endpoint is advertised, as RFC 8414
// requires, but the client_credentials grant never visits it.)
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

export async function startAuthorizationServer(clients: Record<string, OAuthClient>): Promise<AuthorizationServer> {
  const key = await makeKey('as-1');
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
          grant_types_supported: ['client_credentials'],
          token_endpoint_auth_methods_supported: ['client_secret_basic'],
          response_types_supported: ['code'],
        });
      }
      if (req.method === 'GET' && url.pathname === '/jwks.json') return json(res, 200, jwksOf(key));
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
