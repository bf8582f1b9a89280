// OAuth discovery for MCP clients (docs/auth.md "OAuth discovery", RFC 9728):
// the official SDK client, given only client credentials and the /mcp URL,
// follows the 401's `resource_metadata` hint to the protected resource
// metadata, finds the authorization server, obtains a real signed JWT for
// the resource and connects over Streamable HTTP, without a pasted header.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ClientCredentialsProvider } from '@modelcontextprotocol/sdk/client/auth-extensions.js';
import { UnauthorizedError, type OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import type { OAuthClientInformationMixed, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import pino from 'pino';
import { authConfigProblems } from '../../src/auth/config.js';
import { serve, type RunningServer } from '../../src/host/serve.js';
import { startAuthorizationServer, type AuthorizationServer } from '../auth/oauth-as-fixture.js';
import { request, tempDir, writeConfig } from '../helpers/server.js';

const OPENAPI = `openapi: 3.0.3
info: { title: items, version: '1' }
servers: [{ url: http://127.0.0.1:9 }]
paths:
  /items/{id}:
    get:
      operationId: getItem
      parameters: [{ name: id, in: path, required: true, schema: { type: string } }]
      responses: { '200': { description: ok } }
`;

async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
  const { port } = probe.address() as { port: number };
  await new Promise<void>((r) => probe.close(() => r()));
  return port;
}

let as: AuthorizationServer;
let server: RunningServer;
let base: string;
let resource: string;

before(async () => {
  as = await startAuthorizationServer({ 'agent-app': { secret: 's3cret-app', tenant: 'acme' } });
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  resource = `${base}/mcp`;
  const dir = tempDir();
  writeFileSync(join(dir, 'items.yaml'), OPENAPI);
  const config = writeConfig(
    {
      tenants: { acme: { tools: ['*'] } },
      auth: {
        jwt: { issuer: as.issuer, audience: [resource], jwksUrl: as.jwksUrl },
        oauth: { resource, scopesSupported: ['tools.read'], resourceName: 'toolhost test' },
      },
      sources: { connectors: [{ id: 'items', document: 'items.yaml', watch: false, mcpPrefix: 'api' }] },
    },
    dir,
  );
  server = await serve(config, { host: '127.0.0.1', port, logger: pino({ level: 'silent' }) });
});

after(async () => {
  await server?.close();
  await as?.close();
});

const METADATA_URL = () => `${base}/.well-known/oauth-protected-resource/mcp`;

test('the protected resource metadata is served at the root and path-suffixed well-known paths', async () => {
  for (const path of ['/.well-known/oauth-protected-resource', '/.well-known/oauth-protected-resource/mcp']) {
    const res = await request(base, path);
    assert.equal(res.status, 200, path);
    assert.deepEqual(res.json(), {
      resource,
      authorization_servers: [as.issuer],
      scopes_supported: ['tools.read'],
      bearer_methods_supported: ['header'],
      resource_name: 'toolhost test',
    });
  }
});

test('every 401 names the metadata document, on /mcp and on /tools alike', async () => {
  for (const path of ['/tools', '/mcp']) {
    const missing = await request(base, path, { method: path === '/mcp' ? 'POST' : 'GET' });
    assert.equal(missing.status, 401);
    assert.equal(missing.headers.get('www-authenticate'), `Bearer realm="toolhost", resource_metadata="${METADATA_URL()}"`);
    const wrong = await request(base, path, { token: 'not-a-key', method: path === '/mcp' ? 'POST' : 'GET' });
    assert.equal(wrong.status, 401);
    assert.equal(wrong.headers.get('www-authenticate'), `Bearer realm="toolhost", resource_metadata="${METADATA_URL()}", error="invalid_token"`);
  }
});

test('the SDK client discovers OAuth, obtains a token for the resource and connects without a pasted header', async () => {
  const provider = new ClientCredentialsProvider({ clientId: 'agent-app', clientSecret: 's3cret-app', expectedIssuer: as.issuer });
  const client = new Client({ name: 'oauth-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(resource), { authProvider: provider }));
  try {
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((t) => t.name), ['api_getItem'], 'the connector\'s mcpPrefix replaces connector__items');
  } finally {
    await client.close();
  }
  const asked = as.tokenRequests.at(-1)!;
  assert.equal(asked.resource, resource, 'the client asked for a token for the published resource');
  assert.equal(provider.tokens()?.token_type, 'Bearer');
});

/**
 * An interactive client whose "browser" follows the authorization URL
 * itself: the fixture approves at once and redirects to `redirectUrl` with a
 * code, which is read from the Location header (nothing listens there).
 */
class FollowingProvider implements OAuthClientProvider {
  readonly redirectUrl = 'http://127.0.0.1:9/callback';
  readonly clientMetadata = { client_name: 'oauth-test', redirect_uris: [this.redirectUrl], grant_types: ['authorization_code'], response_types: ['code'], token_endpoint_auth_method: 'none' };
  code?: string;
  authorizationUrl?: URL;
  private info?: OAuthClientInformationMixed;
  private saved?: OAuthTokens;
  private verifier = '';
  clientInformation() {
    return this.info;
  }
  saveClientInformation(info: OAuthClientInformationMixed) {
    this.info = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
  }
  async redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
    const res = await fetch(url, { redirect: 'manual' });
    this.code = new URL(res.headers.get('location')!).searchParams.get('code') ?? undefined;
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
}

test('an interactive SDK client registers, is redirected, exchanges the code with PKCE and connects', async () => {
  const provider = new FollowingProvider();
  const first = new Client({ name: 'oauth-test', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(resource), { authProvider: provider });
  await assert.rejects(first.connect(transport), UnauthorizedError);
  assert.ok(provider.code, 'the authorization server redirected with a code');
  assert.equal(provider.authorizationUrl?.searchParams.get('resource'), resource, 'the authorization request names the resource');
  await transport.finishAuth(provider.code!);
  const client = new Client({ name: 'oauth-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(resource), { authProvider: provider }));
  try {
    assert.deepEqual((await client.listTools()).tools.map((t) => t.name), ['api_getItem']);
  } finally {
    await client.close();
  }
  assert.equal(as.tokenRequests.at(-1)!.resource, resource);
});

test('a token of the same issuer for another audience is refused', async () => {
  const elsewhere = await as.sign({ sub: 'agent-app', tenant: 'acme', aud: 'https://other.example/mcp' });
  const res = await request(base, '/tools', { token: elsewhere });
  assert.equal(res.status, 401);
  assert.match(String((res.json() as { message: string }).message), /audience/);
  const right = await as.sign({ sub: 'agent-app', tenant: 'acme', aud: resource });
  assert.equal((await request(base, '/tools', { token: right })).status, 200);
});

test('auth.oauth needs auth.jwt, and the JWT audience must include the resource', () => {
  const place = (p: string) => p;
  assert.deepEqual(authConfigProblems({ oauth: { resource: 'https://h.example/mcp' } }, place), ['/auth/oauth: needs "auth.jwt": the tokens an OAuth client obtains are JWTs']);
  const problems = authConfigProblems({ jwt: { issuer: 'https://idp/', audience: 'toolhost', jwksUrl: 'https://idp/jwks' }, oauth: { resource: 'https://h.example/mcp' } }, place);
  assert.equal(problems.length, 1);
  assert.match(problems[0], /^\/auth\/jwt\/audience: must include auth\.oauth\.resource/);
});
