// Connector calls through the real host and its MCP front door, against a
// local API that echoes what it was sent (headers, URL, body, and the basic
// credentials decoded): the credential must never come back to the caller,
// in any encoding, nor reach a log line or an event. Also: an unset secret is
// "not configured" to the caller (the variable's name only in the log), and a
// response past the byte cap is cut off while it streams.
import assert from 'node:assert/strict';
import { readableMcpName } from '../../src/catalog/tool-names.js';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { hashApiKey } from '../../src/auth/api-keys.js';
import { startTestServer, tempDir, writeConfig, type TestServer } from '../helpers/server.js';
import { connect } from '../front-door/front-door-helpers.js';
import { patient } from '../helpers/patience.js';

// Regex-special, JSON-special (`"`, `\`) and URL-special (`+`, `/`, `&`, `=`) characters.
const TOKEN = 'sk+live/9$(x)*[y]{2}|^"q\\z&a=b.7f3c';
const BASIC = 'svc-user:pa$$ w/rd"é+(x)*?9c1d';
const BASIC_PASSWORD = BASIC.slice(BASIC.indexOf(':') + 1);
const CAP = 4 * 1024 * 1024;

/** Every encoding the API below may echo a value in, computed here independently of the host's code. */
function encodings(v: string): string[] {
  const b = Buffer.from(v, 'utf8');
  const json = JSON.stringify(v).slice(1, -1);
  return [v, encodeURIComponent(v), new URLSearchParams([['', v]]).toString().slice(1), b.toString('base64'), b.toString('base64').replace(/=+$/, ''), b.toString('base64url'), b.toString('hex'), json, json.replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)];
}

const ENCODED = [...new Set([...encodings(TOKEN), ...encodings(BASIC), ...encodings(BASIC_PASSWORD)])];

function leaks(text: string): string[] {
  return ENCODED.filter((e) => text.includes(e));
}

interface Streamed {
  closedEarly: Promise<{ written: number; total: number; finished: boolean }>;
}

/** The echo API: answers with what it got, each credential-looking value also in several encodings. */
async function startEchoApi(): Promise<{ server: Server; url: string; seen: string[]; streamed: Streamed[] }> {
  const seen: string[] = [];
  const streamed: Streamed[] = [];
  const server = createServer(async (req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = Buffer.concat(chunks).toString('utf8');
    seen.push(JSON.stringify({ headers: req.headers, url: req.url }));
    const url = new URL(req.url ?? '/', 'http://x');
    if (url.pathname === '/declared') {
      // Announces a body over the cap, sends a little of it, then waits for the client to hang up.
      let written = 0;
      streamed.push({ closedEarly: new Promise((resolve) => res.on('close', () => resolve({ written, total: CAP + 1, finished: false }))) });
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(CAP + 1) });
      res.write('{"a":"');
      written = 6;
      return;
    }
    if (url.pathname === '/big') {
      // Streams far more than the cap, honouring backpressure, until done or the client hangs up.
      const total = 16 * CAP;
      let written = 0;
      let finished = false;
      streamed.push({
        closedEarly: new Promise((resolve) => res.on('close', () => resolve({ written, total, finished }))),
      });
      res.setHeader('content-type', 'application/json');
      const chunk = Buffer.alloc(64 * 1024, 0x61);
      while (written < total && !res.destroyed) {
        written += chunk.length;
        if (!res.write(chunk)) {
          await Promise.race([once(res, 'drain'), once(res, 'close')]);
        }
      }
      if (!res.destroyed) {
        finished = true;
        res.end();
      }
      return;
    }
    const auth = req.headers.authorization ?? '';
    const credential = auth.split(' ').slice(1).join(' ') || String(req.headers['x-api-key'] ?? url.searchParams.get('api_key') ?? '');
    const decoded = auth.startsWith('Basic ') ? Buffer.from(credential, 'base64').toString('utf8') : '';
    const echoed = [credential, decoded, decoded.slice(decoded.indexOf(':') + 1)].filter((v) => v !== '');
    const payload = {
      method: req.method,
      url: req.url,
      headers: req.headers,
      body,
      basic: decoded ? { user: decoded.slice(0, decoded.indexOf(':')), password: decoded.slice(decoded.indexOf(':') + 1) } : undefined,
      encoded: echoed.map((v) => ({ uri: encodeURIComponent(v), b64: Buffer.from(v).toString('base64'), b64url: Buffer.from(v).toString('base64url'), hex: Buffer.from(v).toString('hex') })),
    };
    const mode = url.searchParams.get('mode');
    if (mode === 'text') {
      res.setHeader('content-type', 'text/plain');
      res.end(`${req.method} ${req.url}\n${Object.entries(req.headers).map(([k, v]) => `${k}: ${String(v)}`).join('\n')}\n\n${body}\n${JSON.stringify(payload.encoded)}`);
    } else if (mode === 'ascii-json') {
      // As Python's json.dumps writes it: non-ASCII as \uXXXX.
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify(payload).replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`));
    } else {
      res.statusCode = mode === 'fail' ? 500 : 200;
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify(payload));
    }
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { server, url: `http://127.0.0.1:${(server.address() as { port: number }).port}`, seen, streamed };
}

const OPENAPI = (baseUrl: string) => `openapi: 3.0.3
info: { title: echo, version: '1' }
servers: [{ url: ${baseUrl} }]
paths:
  /echo/{id}:
    post:
      operationId: echo
      parameters:
        - { name: id, in: path, required: true, schema: { type: string } }
        - { name: mode, in: query, schema: { type: string } }
      requestBody:
        content: { application/json: { schema: { type: object, properties: { note: { type: string } } } } }
      responses: { '200': { description: ok, content: { application/json: { schema: { type: object } } } } }
  /declared:
    get:
      operationId: declared
      responses: { '200': { description: ok, content: { application/json: { schema: { type: object } } } } }
  /big:
    get:
      operationId: big
      responses: { '200': { description: ok, content: { application/json: { schema: { type: object } } } } }
`;

const KINDS = {
  bearer: { type: 'bearer', secret: { env: 'ECHO_TOKEN' } },
  header: { type: 'header', name: 'X-Api-Key', secret: { env: 'ECHO_TOKEN' } },
  query: { type: 'query', name: 'api_key', secret: { env: 'ECHO_TOKEN' } },
  basic: { type: 'basic', secret: { env: 'ECHO_BASIC' } },
  unset: { type: 'bearer', secret: { env: 'ECHO_TOKEN_NOT_SET_4a1f' } },
} as const;

let api: Awaited<ReturnType<typeof startEchoApi>>;
let host: TestServer;
let client: Client;
let eventsFile: string;

before(async () => {
  api = await startEchoApi();
  const dir = tempDir();
  writeConfig(OPENAPI(api.url), dir, 'echo.yaml');
  eventsFile = join(dir, 'events.sqlite');
  const configFile = writeConfig(
    {
      tenants: { a: { tools: ['*'] } },
      principals: [{ id: 'pa', tenant: 'a', keyHash: hashApiKey('ka') }],
      events: { file: eventsFile },
      mcp: { callTimeoutMs: 15_000 },
      policy: { rules: [{ match: 'connector:*', approval: 'never' }] },
      sources: { connectors: Object.entries(KINDS).map(([id, auth]) => ({ id, document: 'echo.yaml', watch: false, auth })) },
    },
    dir,
  );
  host = await startTestServer(configFile, { env: { ...process.env, ECHO_TOKEN: TOKEN, ECHO_BASIC: BASIC }, startDeadlineMs: patient(15_000) });
  client = await connect(host.url, 'ka');
});
after(async () => {
  await client?.close();
  await host?.close();
  api?.server.closeAllConnections();
  api?.server.close();
});

const nameOf = (toolId: string) => readableMcpName(toolId);
const textOf = (r: Awaited<ReturnType<Client['callTool']>>) => (r.content as { type: string; text: string }[])[0].text;

describe('a connector call never returns its credential', () => {
  for (const kind of ['bearer', 'header', 'query', 'basic'] as const) {
    for (const mode of ['json', 'text', 'ascii-json', 'fail']) {
      test(`${kind} credential, ${mode} echo`, async () => {
        const before = api.seen.length;
        const result = await client.callTool({ name: nameOf(`connector:${kind}.echo`), arguments: { id: 'x1', mode, body: { note: 'hello' } } });
        assert.equal(api.seen.length, before + 1, 'the API was called');
        const sent = api.seen[api.seen.length - 1];
        assert.ok(sent.includes(kind === 'basic' ? Buffer.from(BASIC).toString('base64') : kind === 'query' ? encodeURIComponent(TOKEN) : JSON.stringify(TOKEN).slice(1, -1)), 'the API got the credential');
        const returned = JSON.stringify(result);
        assert.deepEqual(leaks(returned), [], `leaked in ${returned.slice(0, 400)}`);
        assert.ok(textOf(result).includes('[redacted]'), 'the echoed credential was replaced by the marker');
        assert.ok(textOf(result).includes('hello'), 'the rest of the echo is intact');
        // A text answer where the operation promises a JSON object breaks its outputSchema: an error result, the (redacted) echo kept.
        assert.equal(result.isError === true, mode === 'fail' || mode === 'text');
      });
    }
  }

  test('nor does a log line or an event', () => {
    assert.deepEqual(leaks(host.logs.join('')), []);
    assert.deepEqual(leaks(readFileSync(eventsFile).toString('latin1')), []);
    assert.deepEqual(leaks(readFileSync(eventsFile).toString('utf8')), []);
  });
});

test('an unset secret: "the connector is not configured" to the caller, the variable only in the log', async () => {
  const before = api.seen.length;
  const result = await client.callTool({ name: nameOf('connector:unset.echo'), arguments: { id: 'x1' } });
  assert.equal(result.isError, true);
  assert.equal(textOf(result), 'the connector is not configured');
  assert.ok(!JSON.stringify(result).includes('ECHO_TOKEN_NOT_SET_4a1f'));
  assert.equal(api.seen.length, before, 'no request went out');
  assert.ok(host.logs.some((l) => l.includes('ECHO_TOKEN_NOT_SET_4a1f') && l.includes('connector call refused')), 'the operator log names the variable');
});

test('/health/sources says which connectors cannot call and why, without naming the variable', async () => {
  const res = await fetch(`${host.url}/health/sources`);
  const text = await res.text();
  const sources = (JSON.parse(text) as { sources: { id: string; state: string; canCall?: boolean; cannotCall?: string }[] }).sources;
  const unset = sources.find((s) => s.id === 'connector:unset')!;
  assert.equal(unset.state, 'connected', 'the document loaded: the tools are listed');
  assert.equal(unset.canCall, false);
  assert.match(unset.cannotCall ?? '', /secret .* unset or unreadable.*not configured/);
  for (const id of ['connector:bearer', 'connector:basic']) assert.equal(sources.find((s) => s.id === id)?.canCall, true, id);
  assert.ok(!text.includes('ECHO_TOKEN_NOT_SET_4a1f') && leaks(text).length === 0, text);
});

test('a response larger than the cap: the host stops reading and says so', async () => {
  const result = await client.callTool({ name: nameOf('connector:bearer.big'), arguments: {} });
  assert.equal(result.isError, true);
  assert.match(textOf(result), /larger than the limit of 4194304 bytes/);
  const seen = await api.streamed[api.streamed.length - 1].closedEarly;
  assert.equal(seen.finished, false, 'the API never got to finish writing');
  assert.ok(seen.written < seen.total, `written ${seen.written} of ${seen.total}`);
});

test('a declared Content-Length over the cap: refused before reading the body', async () => {
  const result = await client.callTool({ name: nameOf('connector:bearer.declared'), arguments: {} });
  assert.equal(result.isError, true);
  assert.match(textOf(result), /larger than the limit of 4194304 bytes/);
  const seen = await api.streamed[api.streamed.length - 1].closedEarly;
  assert.equal(seen.finished, false);
});
