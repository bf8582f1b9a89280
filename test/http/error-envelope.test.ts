// Every error path of the HTTP front, whichever layer answers it (a route,
// the not-found handler, fastify's body parser and body limit, URL errors,
// the protocol gate, the rate limiter, Node's own HTTP parser): the body is
// the published v2 error envelope, a registered code comes with its
// registered status (`x-openwop-http-status`), any other code is a
// `toolhost.*` vendor code, and the response carries `OpenWOP-Version: 2.0`.
// So do the 2xx answers, the SSE stream and the hijacked /mcp answers.
import assert from 'node:assert/strict';
import { connect as netConnect } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { hashApiKey } from '../../src/auth/api-keys.js';
import { clientErrorResponse } from '../../src/http/client-error.js';
import { envelopeProblem, REGISTERED_ERROR_STATUS } from '../helpers/schemas.js';
import { ACME_KEY, request, startTestServer, writeConfig, type TestServer } from '../helpers/server.js';

const TIGHT_KEY = 'tight-test-key';
let server: TestServer;
let port: number;

before(async () => {
  const config = writeConfig({
    tenants: { acme: { tools: ['*'] }, tight: { tools: ['*'], rateLimit: { requestsPerSecond: 0.001, burst: 1 } } },
    principals: [
      { id: 'acme-agent', tenant: 'acme', keyHash: hashApiKey(ACME_KEY) },
      { id: 'tight-agent', tenant: 'tight', keyHash: hashApiKey(TIGHT_KEY) },
    ],
    events: { file: 'events.sqlite' },
    sources: { hostExtensions: [{ vendor: 'toolhost', name: 'server-time', command: ['date', '-u'], inputSchema: { type: 'object', properties: {} } }] },
  });
  server = await startTestServer(config);
  port = Number(new URL(server.url).port);
});
after(async () => {
  server?.running.app.server.closeAllConnections();
  await server?.close();
});

interface Case {
  what: string;
  method?: string;
  path: string;
  token?: string;
  headers?: Record<string, string>;
  body?: string;
  status: number;
  code: string;
}

const JSON_HEADERS = { 'content-type': 'application/json' };
const CASES: Case[] = [
  { what: 'unrouted path', path: '/nope', status: 404, code: 'not_found' },
  { what: 'no credential', path: '/tools', status: 401, code: 'unauthenticated' },
  { what: 'unknown credential', path: '/tools', token: 'nobody', status: 401, code: 'unauthenticated' },
  { what: 'malformed Authorization', path: '/tools', headers: { authorization: 'Basic abc' }, status: 401, code: 'unauthenticated' },
  { what: 'GET /whoami without a credential', path: '/whoami', status: 401, code: 'unauthenticated' },
  { what: 'GET /whoami, unknown credential', path: '/whoami', token: 'nobody', status: 401, code: 'unauthenticated' },
  { what: 'POST /whoami', method: 'POST', path: '/whoami', token: ACME_KEY, status: 405, code: 'toolhost.method_not_allowed' },
  { what: 'unknown tool', path: '/tools/nope%3Anope', token: ACME_KEY, status: 404, code: 'not_found' },
  { what: 'unknown tool, compact', path: '/tools/nope%3Anope?view=compact', token: ACME_KEY, status: 404, code: 'not_found' },
  { what: 'bad percent-encoding in a toolId', path: '/tools/%E0%A4%A', token: ACME_KEY, status: 400, code: 'validation_error' },
  { what: 'malformed URL (fastify)', path: '/%E0%A4%A', status: 400, code: 'validation_error' },
  { what: 'POST /tools', method: 'POST', path: '/tools', token: ACME_KEY, status: 405, code: 'toolhost.method_not_allowed' },
  { what: 'DELETE /tools/{id}', method: 'DELETE', path: '/tools/x', token: ACME_KEY, status: 405, code: 'toolhost.method_not_allowed' },
  { what: 'POST /events', method: 'POST', path: '/events', token: ACME_KEY, status: 405, code: 'toolhost.method_not_allowed' },
  { what: 'PUT /events/stream', method: 'PUT', path: '/events/stream', token: ACME_KEY, status: 405, code: 'toolhost.method_not_allowed' },
  { what: 'PATCH /sessions/{id}/events', method: 'PATCH', path: '/sessions/x/events', token: ACME_KEY, status: 405, code: 'toolhost.method_not_allowed' },
  { what: 'unserved protocol version', path: '/tools', token: ACME_KEY, headers: { 'openwop-version': '3.0' }, status: 406, code: 'protocol_version_unsupported' },
  { what: 'unserved protocol version, unrouted', path: '/nope', headers: { 'openwop-version': '1' }, status: 406, code: 'protocol_version_unsupported' },
  { what: 'unserved protocol version on /mcp', method: 'POST', path: '/mcp', token: ACME_KEY, headers: { 'openwop-version': '9', ...JSON_HEADERS }, body: '{}', status: 406, code: 'protocol_version_unsupported' },
  { what: 'malformed JSON on an unrouted POST', method: 'POST', path: '/runs', headers: JSON_HEADERS, body: '{', status: 400, code: 'validation_error' },
  { what: 'malformed JSON on an unrouted POST, authenticated', method: 'POST', path: '/runs', token: ACME_KEY, headers: JSON_HEADERS, body: '{', status: 400, code: 'validation_error' },
  { what: 'malformed JSON on POST /tools', method: 'POST', path: '/tools', token: ACME_KEY, headers: JSON_HEADERS, body: '{', status: 400, code: 'validation_error' },
  { what: 'malformed JSON on POST /mcp', method: 'POST', path: '/mcp', token: ACME_KEY, headers: { ...JSON_HEADERS, accept: 'application/json, text/event-stream' }, body: '{', status: 400, code: 'validation_error' },
  { what: 'POST /mcp without a credential', method: 'POST', path: '/mcp', headers: JSON_HEADERS, body: '{', status: 401, code: 'unauthenticated' },
  { what: 'body over the limit', method: 'POST', path: '/runs', headers: JSON_HEADERS, body: `"${'x'.repeat(70_000)}"`, status: 413, code: 'payload_too_large' },
  { what: 'content type no parser takes', method: 'POST', path: '/mcp', token: ACME_KEY, headers: { 'content-type': 'application/xml' }, body: '<a/>', status: 415, code: 'unsupported_media_type' },
  { what: 'bad event query', path: '/events?after=x', token: ACME_KEY, status: 400, code: 'validation_error' },
  { what: 'bad Last-Event-ID', path: '/events/stream', token: ACME_KEY, headers: { 'last-event-id': 'x' }, status: 400, code: 'validation_error' },
  { what: 'unknown session', path: '/sessions/none/events', token: ACME_KEY, status: 404, code: 'not_found' },
  { what: 'events without a credential', path: '/events', status: 401, code: 'unauthenticated' },
];

describe('error bodies are v2 envelopes with OpenWOP-Version', () => {
  for (const c of CASES) {
    test(`${c.what}: ${c.method ?? 'GET'} ${c.path.slice(0, 40)} -> ${c.status} ${c.code}`, async () => {
      const headers: Record<string, string> = { ...(c.headers ?? {}) };
      if (c.token !== undefined) headers.authorization = `Bearer ${c.token}`;
      const res = await fetch(server.url + c.path, { method: c.method ?? 'GET', headers, body: c.body });
      const text = await res.text();
      assert.equal(res.status, c.status, text);
      assert.equal(envelopeProblem(res.status, res.headers, text), undefined);
      assert.equal(JSON.parse(text).error, c.code);
    });
  }

  test('429: the rate limit', async () => {
    const first = await request(server.url, '/tools', { token: TIGHT_KEY });
    assert.equal(first.status, 200);
    const res = await request(server.url, '/tools', { token: TIGHT_KEY });
    assert.equal(res.status, 429);
    assert.equal(envelopeProblem(res.status, res.headers, res.text), undefined);
    assert.ok(res.headers.get('retry-after'));
  });

  test('the 406 quotes the asked version bounded, never a whole long header', async () => {
    const asked = `9.${'9'.repeat(5000)}`;
    const res = await request(server.url, '/tools', { token: ACME_KEY, headers: { 'openwop-version': asked } });
    assert.equal(res.status, 406);
    assert.equal(envelopeProblem(res.status, res.headers, res.text), undefined);
    assert.ok(res.text.length < 400, `${res.text.length} bytes`);
    const details = res.json().details;
    assert.deepEqual(details.protocolVersions, ['2.0']);
    assert.ok(asked.startsWith(details.requested.replace(/…$/, '')));
  });

  test('every code the host can answer is registered with its status or a toolhost.* vendor code', async () => {
    const { ERROR_STATUS } = await import('../../src/contract/errors.js');
    for (const [code, status] of Object.entries(ERROR_STATUS)) {
      if (code.startsWith('toolhost.')) assert.equal(REGISTERED_ERROR_STATUS[code], undefined, code);
      else assert.equal(REGISTERED_ERROR_STATUS[code], status, code);
    }
  });
});

/** Sends raw bytes, reads until the server closes; returns status, lower-cased headers and body. */
function raw(bytes: string): Promise<{ status: number; headers: Map<string, string>; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = netConnect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', (d) => chunks.push(d));
    socket.on('error', reject);
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const split = text.indexOf('\r\n\r\n');
      const lines = text.slice(0, split).split('\r\n');
      const headers = new Map<string, string>();
      for (const line of lines.slice(1)) headers.set(line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim());
      resolve({ status: Number(lines[0]?.split(' ')[1]), headers, body: text.slice(split + 4) });
    });
    socket.end(bytes);
  });
}

describe("Node's own refusals (raw bytes) are envelopes with OpenWOP-Version", () => {
  const RAW: [string, string, number, string][] = [
    ['garbage request line', 'GARBAGE\r\n\r\n', 400, 'validation_error'],
    ['unknown method', 'FROB /tools HTTP/1.1\r\nHost: x\r\n\r\n', 400, 'validation_error'],
    ['header line without a colon', 'GET /tools HTTP/1.1\r\nHost: x\r\nnot a header\r\n\r\n', 400, 'validation_error'],
    ['control character in a header value', 'GET /tools HTTP/1.1\r\nHost: x\r\nX-A: a\u0001b\r\n\r\n', 400, 'validation_error'],
    ['headers too large', `GET /tools HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`, 431, 'toolhost.headers_too_large'],
    ['HTTP/1.1 without Host', 'GET /tools HTTP/1.1\r\nAuthorization: Bearer acme-demo-key\r\nConnection: close\r\n\r\n', 400, 'validation_error'],
    ['HTTP/1.1 without Host, unrouted', 'GET /nope HTTP/1.1\r\nConnection: close\r\n\r\n', 400, 'validation_error'],
    ['bad Content-Length', 'POST /runs HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n', 400, 'validation_error'],
    ['an Expect other than 100-continue', 'GET /tools HTTP/1.1\r\nHost: x\r\nExpect: garbage\r\n\r\n', 417, 'toolhost.expectation_failed'],
    ['CONNECT', 'CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n', 405, 'toolhost.method_not_allowed'],
  ];
  for (const [what, bytes, status, code] of RAW) {
    test(`${what} -> ${status} ${code}`, async () => {
      const res = await raw(bytes);
      assert.equal(res.status, status, res.body);
      assert.equal(envelopeProblem(res.status, { get: (n: string) => res.headers.get(n) ?? null }, res.body), undefined);
      assert.equal(JSON.parse(res.body).error, code);
    });
  }

  test('HTTP/1.0 without Host is served (Host is an HTTP/1.1 requirement)', async () => {
    const res = await raw('GET /healthz HTTP/1.0\r\n\r\n');
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('openwop-version'), '2.0');
  });

  test('a request that did not arrive in time: 408 in the envelope', () => {
    // Node raises it only after its request timeout; the bytes it answers with are checked directly.
    const text = clientErrorResponse('ERR_HTTP_REQUEST_TIMEOUT');
    const [head, body] = text.split('\r\n\r\n');
    const headers = new Map(head.split('\r\n').slice(1).map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()] as [string, string]));
    assert.match(head, /^HTTP\/1\.1 408 /);
    assert.equal(Number(headers.get('content-length')), Buffer.byteLength(body));
    assert.equal(envelopeProblem(408, { get: (n: string) => headers.get(n) ?? null }, body), undefined);
  });
});

describe('2xx answers, the SSE stream and /mcp carry OpenWOP-Version', () => {
  test('every read route', async () => {
    for (const path of ['/healthz', '/readyz', '/health/sources', '/metrics', '/.well-known/openwop', '/tools', '/tools?view=compact', '/tools/x-host-toolhost-server-time', '/events', '/whoami']) {
      const res = await request(server.url, path, { token: ACME_KEY });
      assert.equal(res.status, 200, path);
      assert.equal(res.headers.get('openwop-version'), '2.0', path);
    }
  });

  test('GET /whoami names the caller: principal, tenant, credential kind, and nothing else', async () => {
    const res = await request(server.url, '/whoami', { token: ACME_KEY });
    assert.equal(res.headers.get('cache-control'), 'no-store');
    assert.deepEqual(res.json(), { principal: 'acme-agent', tenant: 'acme', kind: 'api-key' });
    assert.ok(!res.text.includes(ACME_KEY));
  });

  test('GET /events/stream', async () => {
    const abort = new AbortController();
    const res = await fetch(`${server.url}/events/stream`, { headers: { authorization: `Bearer ${ACME_KEY}` }, signal: abort.signal });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('openwop-version'), '2.0');
    abort.abort();
    await res.body?.cancel().catch(() => undefined);
  });

  test('/mcp: the MCP transport answers (JSON-RPC bodies) carry the header too', async () => {
    const mcp = { authorization: `Bearer ${ACME_KEY}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    const init = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } };
    const ok = await fetch(`${server.url}/mcp`, { method: 'POST', headers: mcp, body: JSON.stringify(init) });
    await ok.text();
    assert.equal(ok.status, 200);
    assert.equal(ok.headers.get('openwop-version'), '2.0');
    // No session: refused by the front door in JSON-RPC (an MCP client reads that), with the header.
    const noSession = await fetch(`${server.url}/mcp`, { method: 'POST', headers: mcp, body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }) });
    assert.equal(noSession.status, 400);
    assert.equal(noSession.headers.get('openwop-version'), '2.0');
    assert.equal(((await noSession.json()) as { jsonrpc: string }).jsonrpc, '2.0');
    // Refused by the SDK transport after the hijack (no acceptable media type).
    const notAcceptable = await fetch(`${server.url}/mcp`, { method: 'POST', headers: { ...mcp, accept: 'text/plain' }, body: JSON.stringify(init) });
    await notAcceptable.text();
    assert.equal(notAcceptable.status, 406);
    assert.equal(notAcceptable.headers.get('openwop-version'), '2.0');
  });
});

describe('a fault inside the host (runs last: it closes the event log under the server)', () => {
  test('500 internal_error in the envelope, with the header and no stack trace', async () => {
    server.running.host.events!.close();
    const res = await request(server.url, '/events', { token: ACME_KEY });
    assert.equal(res.status, 500);
    assert.equal(envelopeProblem(res.status, res.headers, res.text), undefined);
    assert.equal(res.json().error, 'internal_error');
    assert.doesNotMatch(res.text, /\bat .*\.(ts|js):\d+/);
  });
});
