// Three toolhost processes on one PostgreSQL and one Redis, as replicas
// behind a load balancer: 3 × 1,000 tools/call over /mcp spread over them
// concurrently, then every tenant's stream is gap-free and complete on every
// replica, an SSE subscriber on every replica saw every event of its tenant
// once and in order, a stream resumes with Last-Event-ID on another replica;
// meanwhile a rate-limited principal spreading its requests over the three
// got no more than its one limit in total. One MCP session's requests
// alternate between the processes (no sticky sessions). While the database is
// down a recorded call is refused with 503 toolhost.unavailable (a listing
// still answered) until the replica recovers by itself.
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { after, before, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { hashApiKey } from '../../src/auth/api-keys.js';
import { ACME_KEY, GLOBEX_KEY, request, tempDir, writeConfig } from '../helpers/server.js';
import { PG_SKIP, startPostgres, type PgServer } from '../helpers/postgres.js';
import { startRedis, type RedisServer } from '../helpers/redis.js';
import { startReplicas, type Replicas } from '../helpers/replicas.js';
import { openSse, waitFor, type SseClient } from '../events/helpers.js';
import { connect } from '../front-door/front-door-helpers.js';

const TEXT_PACK = fileURLToPath(new URL('../../examples/demo/packs/text', import.meta.url));
const CALLS_PER_REPLICA = 1000;
const CLIENTS_PER_REPLICA = 8;
const TENANT_KEYS = { acme: ACME_KEY, globex: GLOBEX_KEY } as const;
const LIMITED_KEY = 'limited-replicas-key-0b7c';
const LIMIT = { requestsPerSecond: 4, burst: 10 };

let server: PgServer | undefined;
let redis: RedisServer | undefined;
let replicas: Replicas | undefined;
before(async () => {
  if (PG_SKIP) return;
  server = await startPostgres({ fast: true });
  redis = await startRedis();
  const url = await server.newDatabase();
  const config = writeConfig({
    server: { host: '127.0.0.1', port: 0 },
    auth: { rateLimitStore: 'redis' },
    // Generous: the test loads two cores with three hosts, PostgreSQL and 48 clients; it is about sharing, not about a slow Redis.
    redis: { url: { env: 'REDIS_URL' }, commandTimeoutMs: 2000 },
    mcp: { sessionKey: { env: 'MCP_SESSION_KEY' } },
    tenants: { acme: { tools: ['*'], rateLimit: false }, globex: { tools: ['openwop:text.*'], rateLimit: false }, limited: { tools: ['*'], rateLimit: LIMIT } },
    principals: [
      { id: 'acme-agent', tenant: 'acme', scopes: [], keyHash: hashApiKey(ACME_KEY) },
      { id: 'globex-agent', tenant: 'globex', scopes: [], keyHash: hashApiKey(GLOBEX_KEY) },
      { id: 'limited-agent', tenant: 'limited', scopes: [], keyHash: hashApiKey(LIMITED_KEY) },
    ],
    events: { postgres: { url: '${DATABASE_URL}', pollIntervalMs: 500 } },
    sources: { nodePacks: [{ path: TEXT_PACK }] },
  }, tempDir('toolhost-replicas-'));
  replicas = await startReplicas(3, config, { DATABASE_URL: url, REDIS_URL: redis.url, MCP_SESSION_KEY: 'k'.repeat(48), LOG_LEVEL: 'warn' });
});
after(async () => {
  await replicas?.close();
  await redis?.stop();
  await server?.close();
});

/** A rate-limited principal sending requests round-robin over the replicas until `done`: how many were admitted, in how long. */
async function hammer(urls: string[], done: () => boolean): Promise<{ admitted: number; refused: number; seconds: number }> {
  const started = performance.now();
  let admitted = 0;
  let refused = 0;
  let sent = 0;
  // Several at once, so the principal asks for more than its limit even on a loaded machine.
  await Promise.all(
    Array.from({ length: 6 }, async () => {
      while (!done()) {
        const { status } = await request(urls[sent++ % urls.length], '/tools', { token: LIMITED_KEY });
        if (status === 200) admitted++;
        else if (status === 429) refused++;
        else assert.fail(`unexpected status ${status}`);
      }
    }),
  );
  return { admitted, refused, seconds: (performance.now() - started) / 1000 };
}

/** The event sequences an SSE subscriber has received so far (its `id:` fields). */
const idsOf = (stream: SseClient) => stream.messages.filter((m) => m.id !== undefined).map((m) => Number(m.id));

/** An SSE subscriber on `/events/stream`, optionally resuming after `lastEventId`. */
async function subscribe(url: string, key: string, lastEventId?: number): Promise<SseClient> {
  const stream = await openSse(url, key, lastEventId === undefined ? {} : { 'last-event-id': String(lastEventId) });
  assert.equal(stream.status, 200);
  return stream;
}


async function allEvents(url: string, key: string): Promise<Array<{ sequence: number; sessionId: string }>> {
  const out: Array<{ sequence: number; sessionId: string }> = [];
  let after = -1;
  for (;;) {
    const page = (await request(url, `/events?after=${after}&limit=1000`, { token: key })).json();
    out.push(...page.events);
    if (page.events.length < 1000) return out;
    after = page.next;
  }
}

async function toolName(client: Client): Promise<string> {
  const { tools } = await client.listTools();
  const tool = tools.find((t) => t.name.includes('uppercase'));
  assert.ok(tool, 'the text pack is listed');
  return tool.name;
}

test('3 replicas × 1,000 tools/call on one PostgreSQL: gap-free, complete, every SSE subscriber saw every event once, in order', { skip: PG_SKIP, timeout: 600_000 }, async () => {
  const list = replicas!.list;
  const streams = await Promise.all(list.flatMap((r) => Object.entries(TENANT_KEYS).map(async ([tenant, key]) => ({ tenant, stream: await subscribe(r.url, key) }))));
  const calls = { acme: 0, globex: 0 };
  let calling = true;
  const limited = hammer(list.map((r) => r.url), () => !calling);
  try {
    await Promise.all(
      list.flatMap((replica, r) =>
        Array.from({ length: CLIENTS_PER_REPLICA }, async (_, c) => {
          const tenant = (c + r) % 2 === 0 ? 'acme' : 'globex';
          const client = await connect(replica.url, TENANT_KEYS[tenant]);
          try {
            const name = await toolName(client);
            for (let i = 0; i < CALLS_PER_REPLICA / CLIENTS_PER_REPLICA; i++) {
              const result = await client.callTool({ name, arguments: { text: `r${r} c${c} i${i}` } });
              assert.notEqual(result.isError, true);
              calls[tenant]++;
            }
          } finally {
            await client.close();
          }
        }),
      ),
    );
    assert.equal(calls.acme + calls.globex, 3 * CALLS_PER_REPLICA);
    calling = false;
    // One bucket for the principal, whichever replica answers: never N× its limit.
    const { admitted, refused, seconds } = await limited;
    for (const r of list) assert.equal((await request(r.url, '/readyz')).json().redis?.state, 'connected', 'every replica uses the shared buckets');
    assert.ok(refused > 0, `the limited principal was refused some requests (${admitted} admitted, ${refused} refused in ${seconds.toFixed(1)} s)`);
    assert.ok(admitted >= LIMIT.burst, `its burst was admitted (${admitted})`);
    assert.ok(admitted <= LIMIT.burst + Math.ceil(LIMIT.requestsPerSecond * seconds) + 1, `${admitted} admitted in ${seconds.toFixed(1)} s over 3 replicas: no more than one limit`);
    for (const [tenant, key] of Object.entries(TENANT_KEYS)) {
      const seen = await Promise.all(list.map((r) => allEvents(r.url, key)));
      const sequences = seen[0].map((e) => e.sequence);
      assert.deepEqual(sequences, sequences.map((_, i) => i), `${tenant}: 0..n-1, no gap, no duplicate`);
      assert.equal(new Set(seen[0].map((e) => e.sessionId)).size, calls[tenant as 'acme'], `${tenant}: one session per call`);
      for (const other of seen.slice(1)) assert.deepEqual(other.map((e) => e.sequence), sequences, 'every replica reads the same stream');
      for (const { stream } of streams.filter((s) => s.tenant === tenant)) {
        await waitFor(() => idsOf(stream).length >= sequences.length, 30_000, `${tenant} subscriber caught up`);
        assert.deepEqual(idsOf(stream), sequences, `${tenant}: a subscriber saw every event once, in order`);
      }
    }
    // A cursor from one replica resumes on another.
    const events = await allEvents(list[0].url, ACME_KEY);
    const resumeFrom = events[Math.floor(events.length / 2)].sequence;
    const resumed = await subscribe(list[2].url, ACME_KEY, resumeFrom);
    try {
      await waitFor(() => idsOf(resumed).length >= events.length - resumeFrom - 1, 30_000, 'resumed stream caught up');
      assert.deepEqual(idsOf(resumed), events.slice(resumeFrom + 1).map((e) => e.sequence));
    } finally {
      resumed.close();
    }
  } finally {
    calling = false;
    await limited.catch(() => undefined);
    for (const { stream } of streams) stream.close();
  }
});

test('one MCP session whose requests go round-robin over the three processes: initialize, list, calls, all answered', { skip: PG_SKIP, timeout: 120_000 }, async () => {
  const urls = replicas!.list.map((r) => new URL(r.url));
  const served: string[] = [];
  let next = 0;
  // A load balancer without sticky sessions: every request to the next replica.
  const roundRobin = (input: string | URL | Request, init?: RequestInit) => {
    const target = new URL(input instanceof Request ? input.url : String(input));
    const replica = urls[next++ % urls.length];
    target.host = replica.host;
    served.push(replica.host);
    return fetch(target, init);
  };
  const client = new Client({ name: 'round-robin', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL('/mcp', urls[0]), {
    requestInit: { headers: { authorization: `Bearer ${ACME_KEY}` } },
    fetch: roundRobin,
  });
  await client.connect(transport);
  try {
    const name = await toolName(client);
    for (let i = 0; i < 6; i++) {
      const result = await client.callTool({ name, arguments: { text: `hop ${i}` } });
      assert.notEqual(result.isError, true);
      assert.match(JSON.stringify(result.content), new RegExp(`HOP ${i}`));
    }
    assert.equal(new Set(served).size, 3, 'every replica answered some of the session\'s requests');
  } finally {
    await client.close();
  }
});

test('database down: /readyz 503 naming it, a recorded call 503 toolhost.unavailable, a listing answered; recovery by itself', { skip: PG_SKIP, timeout: 120_000 }, async () => {
  const replica = replicas!.list[1];
  const client = await connect(replica.url, ACME_KEY);
  try {
    const name = await toolName(client);
    await server!.crash();
    await waitFor(async () => (await request(replica.url, '/readyz')).status === 503, 15_000, 'readyz 503');
    const ready = (await request(replica.url, '/readyz')).json();
    assert.equal(ready.events.writable, false);
    assert.equal(ready.events.reason, 'unreachable');
    assert.equal(ready.events.database.state, 'unreachable');
    assert.ok(!JSON.stringify(ready).includes(server!.password), 'no password in /readyz');
    const refused = await client.callTool({ name, arguments: { text: 'x' } }).then(
      () => assert.fail('a recorded call was answered while the database was down'),
      (err: Error & { code?: unknown }) => err,
    );
    assert.equal(refused.code, 503);
    assert.match(refused.message, /"error":"toolhost\.unavailable"/);
    assert.match(refused.message, /database unreachable/);
    assert.ok(!refused.message.includes(server!.password));
    assert.ok((await client.listTools()).tools.length > 0, 'a listing needs no events and is answered');
    const read = await request(replica.url, '/events', { token: ACME_KEY });
    assert.equal(read.status, 503);
    assert.equal(read.json().error, 'toolhost.unavailable');
    await server!.restart();
    await waitFor(async () => (await request(replica.url, '/readyz')).status === 200, 30_000, 'readyz 200 again');
    const result = await client.callTool({ name, arguments: { text: 'back' } });
    assert.notEqual(result.isError, true);
    assert.ok(!replica.output().includes(server!.password), 'no password in the replica\'s log');
  } finally {
    await client.close();
  }
});
