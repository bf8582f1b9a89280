// Test fixtures: real upstreams on loopback that require a credential and
// report which subject called. An MCP server (the SDK's Streamable HTTP
// transport, stateless: each request is answered by a server made for that
// request's subject) and an HTTP API a connector describes. Both echo the
// Authorization header they got, so a test sees that the host scrubs it.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';

/** Returns the subject the request's credential names, or undefined to answer 401. */
export type Authenticate = (req: IncomingMessage) => Promise<string | undefined> | string | undefined;

export interface Upstream {
  url: string;
  /** Every subject that called a tool, in order. */
  calls: string[];
  close(): Promise<void>;
}

async function listen(server: Server): Promise<string> {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const closer = (server: Server) => () => new Promise<void>((r) => { server.closeAllConnections(); server.close(() => r()); });

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
  });
}

function unauthorized(res: ServerResponse): void {
  res.writeHead(401, { 'www-authenticate': 'Bearer error="invalid_token"', 'content-type': 'application/json' }).end('{"error":"invalid_token"}');
}

/**
 * An MCP server with one tool, `whoami`, answering the subject of the request
 * that called it. With `authorizationServer`, it publishes its RFC 9728
 * protected resource metadata naming that server and points to it in 401s.
 */
export async function startWhoamiMcp(authenticate: Authenticate, authorizationServer?: string): Promise<Upstream> {
  const calls: string[] = [];
  let base = '';
  const server = createServer(async (req, res) => {
    if (authorizationServer && req.url?.startsWith('/.well-known/oauth-protected-resource')) {
      return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ resource: `${base}/mcp`, authorization_servers: [authorizationServer] }));
    }
    const subject = await authenticate(req);
    if (subject === undefined) {
      if (!authorizationServer) return unauthorized(res);
      return void res.writeHead(401, { 'www-authenticate': `Bearer resource_metadata="${base}/.well-known/oauth-protected-resource/mcp"` }).end();
    }
    if (req.method !== 'POST') return void res.writeHead(405, { allow: 'POST' }).end();
    const body = JSON.parse((await readBody(req)) || 'null') as unknown;
    const mcp = new McpServer({ name: 'whoami', version: '1.0.0' });
    mcp.registerTool('whoami', { description: 'Says who called.', inputSchema: {} }, async () => {
      calls.push(subject);
      const authorization = req.headers.authorization ?? '';
      return { content: [{ type: 'text', text: JSON.stringify({ subject, authorization }) }], structuredContent: { subject, authorization } };
    });
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.on('close', () => void transport.close());
    await mcp.connect(transport);
    await transport.handleRequest(req, res, body);
  });
  const url = await listen(server);
  base = url;
  return { url: `${url}/mcp`, calls, close: closer(server) };
}

/** An HTTP API: `GET /whoami` answers the subject and the Authorization header it got; writes its OpenAPI document into `dir`. */
export async function startWhoamiApi(authenticate: Authenticate, dir: string): Promise<Upstream & { document: string }> {
  const calls: string[] = [];
  const server = createServer(async (req, res) => {
    const subject = await authenticate(req);
    if (subject === undefined) return unauthorized(res);
    calls.push(subject);
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ subject, authorization: req.headers.authorization ?? '' }));
  });
  const url = await listen(server);
  const document = join(dir, 'whoami-api.json');
  writeFileSync(
    document,
    JSON.stringify({
      openapi: '3.1.0',
      info: { title: 'whoami', version: '1' },
      servers: [{ url }],
      components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } },
      security: [{ bearer: [] }],
      paths: { '/whoami': { get: { operationId: 'whoami', responses: { '200': { description: 'who called', content: { 'application/json': { schema: { type: 'object' } } } } } } } },
    }),
  );
  return { url, calls, document, close: closer(server) };
}

/** Bearer tokens mapped to subjects. */
export function bearerTokens(tokens: Record<string, string>): Authenticate {
  return (req) => {
    const m = /^Bearer (.+)$/.exec(req.headers.authorization ?? '');
    return m ? tokens[m[1]] : undefined;
  };
}
