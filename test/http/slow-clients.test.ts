// Slow and greedy clients (docs/config.md "server"): raw node:net sockets
// against a real host. A body refused before it is read closes the socket,
// headers that do not arrive in time are cut off with a 408 envelope, and
// one address cannot hold more than its share of connections. Every wait is
// on a socket event; deadlines only guard against a hang.
import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import { test } from 'node:test';
import { hashApiKey } from '../../src/auth/api-keys.js';
import { addressKey } from '../../src/http/connection-limits.js';
import { eventually } from '../auth/jwt-fixture.js';
import { startTestServer, writeConfig } from '../helpers/server.js';

const HANG_GUARD_MS = 20_000;

function host(server: Record<string, unknown>) {
  return startTestServer(
    writeConfig({
      server,
      tenants: { acme: { tools: ['*'] } },
      principals: [{ id: 'a1', tenant: 'acme', keyHash: hashApiKey('a1-key') }],
      sources: { hostExtensions: [{ vendor: 'a', name: 'one', command: ['true'] }] },
    }),
  );
}

interface Raw {
  socket: Socket;
  /** Everything the server sent so far. */
  text(): string;
  /** Resolves when the server has closed the socket (rejects after the hang guard). */
  closed: Promise<void>;
  /** Resolves once the received text matches `pattern`. */
  received(pattern: RegExp): Promise<string>;
}

async function open(url: string): Promise<Raw> {
  const { hostname, port } = new URL(url);
  const socket = connect(Number(port), hostname);
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  socket.on('error', () => undefined);
  let text = '';
  const waiters = new Set<() => void>();
  socket.on('data', (chunk: Buffer) => {
    text += chunk.toString('latin1');
    for (const w of [...waiters]) w();
  });
  const closed = new Promise<void>((resolve, reject) => {
    const guard = setTimeout(() => reject(new Error(`the server did not close the socket within ${HANG_GUARD_MS} ms; got ${JSON.stringify(text)}`)), HANG_GUARD_MS);
    socket.once('close', () => {
      clearTimeout(guard);
      resolve();
    });
  });
  const received = (pattern: RegExp) =>
    new Promise<string>((resolve, reject) => {
      const guard = setTimeout(() => reject(new Error(`no ${pattern} within ${HANG_GUARD_MS} ms; got ${JSON.stringify(text)}`)), HANG_GUARD_MS);
      const check = () => {
        if (!pattern.test(text)) return;
        waiters.delete(check);
        clearTimeout(guard);
        resolve(text);
      };
      waiters.add(check);
      check();
    });
  return { socket, text: () => text, closed, received };
}

const bodyOf = (response: string): string => response.slice(response.indexOf('\r\n\r\n') + 4);

test('a body announced but never sent: 401 at once, Connection: close, and the server closes the socket', async () => {
  // Timeouts far beyond the hang guard: only the unread-body rule can close these sockets.
  const server = await host({ requestTimeoutMs: 3_600_000, headersTimeoutMs: 3_600_000 });
  try {
    const { host: authority } = new URL(server.url);
    for (const [method, path] of [['POST', '/mcp'], ['GET', '/tools']]) {
      const raw = await open(server.url);
      raw.socket.write(`${method} ${path} HTTP/1.1\r\nHost: ${authority}\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{"jsonrpc"`);
      await raw.closed;
      const response = raw.text();
      assert.match(response, /^HTTP\/1\.1 401 /, `${method} ${path}`);
      assert.match(response, /\r\nconnection: close\r\n/i);
      assert.equal(JSON.parse(bodyOf(response)).error, 'unauthenticated');
    }
  } finally {
    await server.close();
  }
});

test('an answer given after the body was read keeps its connection', async () => {
  const server = await host({});
  try {
    const { host: authority } = new URL(server.url);
    const raw = await open(server.url);
    const body = '{"name":"x"}';
    // The catalog is read-only: fastify reads the body, then the route answers 405.
    raw.socket.write(`POST /tools HTTP/1.1\r\nHost: ${authority}\r\nAuthorization: Bearer a1-key\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`);
    await raw.received(/^HTTP\/1\.1 405 [\s\S]*\r\n\r\n\{.*\}$/);
    assert.doesNotMatch(raw.text(), /connection: close/i);
    raw.socket.write(`GET /healthz HTTP/1.1\r\nHost: ${authority}\r\n\r\n`);
    await raw.received(/HTTP\/1\.1 200 [\s\S]*"status":"ok"/);
    raw.socket.destroy();
  } finally {
    await server.close();
  }
});

test('headers sent slowly are cut off after server.headersTimeoutMs with a 408 envelope', async () => {
  const server = await host({ headersTimeoutMs: 300 });
  try {
    const raw = await open(server.url);
    raw.socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: ');
    // One byte at a time, for as long as the server keeps listening.
    const drip = setInterval(() => raw.socket.writable && raw.socket.write('a'), 50);
    try {
      await raw.closed;
    } finally {
      clearInterval(drip);
    }
    const response = raw.text();
    assert.match(response, /^HTTP\/1\.1 408 /);
    assert.match(response, /\r\nOpenWOP-Version: 2\.0\r\n/i);
    assert.deepEqual(JSON.parse(bodyOf(response)), { error: 'toolhost.request_timeout', message: 'the request did not arrive in time' });
  } finally {
    await server.close();
  }
});

test('a body that dribbles in with a valid credential is cut off after server.requestTimeoutMs with a 408 envelope', async () => {
  const server = await host({ requestTimeoutMs: 400 });
  try {
    const { host: authority } = new URL(server.url);
    const raw = await open(server.url);
    raw.socket.write(`POST /mcp HTTP/1.1\r\nHost: ${authority}\r\nAuthorization: Bearer a1-key\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: 100000\r\n\r\n{`);
    const drip = setInterval(() => raw.socket.writable && raw.socket.write(' '), 50);
    try {
      await raw.closed;
    } finally {
      clearInterval(drip);
    }
    assert.match(raw.text(), /^HTTP\/1\.1 408 /);
    assert.equal(JSON.parse(bodyOf(raw.text())).error, 'toolhost.request_timeout');
  } finally {
    await server.close();
  }
});

test('a request timeout once an answer has begun ends the connection without writing a second answer into it', async () => {
  const server = await host({ requestTimeoutMs: 400 });
  try {
    const { host: authority } = new URL(server.url);
    const mcpHeaders = { authorization: 'Bearer a1-key', 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    const init = await fetch(`${server.url}/mcp`, {
      method: 'POST',
      headers: mcpHeaders,
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'slow', version: '1' } } }),
    });
    const session = init.headers.get('mcp-session-id');
    await init.text();
    assert.ok(session);
    const initialized = await fetch(`${server.url}/mcp`, { method: 'POST', headers: { ...mcpHeaders, 'mcp-session-id': session, 'mcp-protocol-version': '2025-06-18' }, body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) });
    await initialized.text();
    // The session's event stream (a GET: its announced body is never read) answers at once and stays open; the body never completes.
    const raw = await open(server.url);
    raw.socket.write(`GET /mcp HTTP/1.1\r\nHost: ${authority}\r\nAuthorization: Bearer a1-key\r\nAccept: text/event-stream\r\nMcp-Session-Id: ${session}\r\nMcp-Protocol-Version: 2025-06-18\r\nContent-Length: 100\r\n\r\n{`);
    await raw.received(/^HTTP\/1\.1 200 [\s\S]*\r\n\r\n/);
    await raw.closed;
    assert.doesNotMatch(raw.text(), /HTTP\/1\.1 408/, 'no 408 written into the event stream');
  } finally {
    await server.close();
  }
});

test('server.maxConnectionsPerAddress: the next connection from the same address is closed at once', async () => {
  const server = await host({ maxConnectionsPerAddress: 3 });
  try {
    const { host: authority } = new URL(server.url);
    const held: Raw[] = [];
    for (let i = 0; i < 3; i++) {
      const raw = await open(server.url);
      raw.socket.write(`GET /healthz HTTP/1.1\r\nHost: ${authority}\r\n\r\n`);
      await raw.received(/HTTP\/1\.1 200 /); // answered: the server has counted it
      held.push(raw);
    }
    const extra = await open(server.url);
    extra.socket.write(`GET /healthz HTTP/1.1\r\nHost: ${authority}\r\n\r\n`);
    await extra.closed;
    assert.equal(extra.text(), '', 'refused without an answer');
    const logged = server.logs.filter((l) => l.includes('connections refused: too many from one address'));
    assert.equal(logged.length, 1);
    assert.deepEqual(
      (({ refused, address, maxConnectionsPerAddress }) => ({ refused, address, maxConnectionsPerAddress }))(JSON.parse(logged[0])),
      { refused: 1, address: '127.0.0.1', maxConnectionsPerAddress: 3 },
    );
    // The held connections still work.
    held[0].socket.write(`GET /healthz HTTP/1.1\r\nHost: ${authority}\r\n\r\n`);
    await held[0].received(/HTTP\/1\.1 200 [\s\S]*HTTP\/1\.1 200 /);
    // One closes: a new connection is admitted again.
    held[2].socket.destroy();
    await held[2].closed;
    assert.ok(
      await eventually(async () => {
        const next = await open(server.url);
        next.socket.write(`GET /healthz HTTP/1.1\r\nHost: ${authority}\r\nConnection: close\r\n\r\n`);
        await next.closed;
        return /^HTTP\/1\.1 200 /.test(next.text());
      }, HANG_GUARD_MS),
      'a slot freed by a closed connection is reused',
    );
    for (const raw of held) raw.socket.destroy();
  } finally {
    await server.close();
  }
});

test('connections are counted per IPv4 address and per IPv6 /64', () => {
  assert.equal(addressKey('203.0.113.7'), '203.0.113.7');
  assert.equal(addressKey('::ffff:203.0.113.7'), '203.0.113.7', 'IPv4-mapped is the IPv4 address');
  assert.equal(addressKey('2001:db8:0:1::1'), '2001:db8:0:1::/64');
  assert.equal(addressKey('2001:0DB8:0000:0001:ffff:eeee:dddd:cccc'), '2001:db8:0:1::/64', 'one host rotating its interface id is one client');
  assert.equal(addressKey('fe80::1%eth0'), 'fe80:0:0:0::/64');
  assert.equal(addressKey('::1'), '0:0:0:0::/64');
  assert.notEqual(addressKey('2001:db8:0:1::1'), addressKey('2001:db8:0:2::1'));
});
