// Per-principal buckets shared through Redis (docs/auth.md "Shared rate
// limits"): three in-process replicas and a real redis-server. A caller
// spreading its requests over the replicas gets no more than one bucket's
// worth; when Redis dies the replicas keep serving from local buckets and
// say so (readiness, metrics, one log line), and go back to shared buckets
// when it returns. The password in the URL never shows.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { hashApiKey } from '../../src/auth/api-keys.js';
import { request, startTestServer, writeConfig, type TestServer } from '../helpers/server.js';
import { startRedis, type RedisServer } from '../helpers/redis.js';
import { patient } from '../helpers/patience.js';

const PASSWORD = 'redis-test-secret-3f9a';
const RATE = 2;
const BURST = 5;

function sharedConfig(store: 'redis' | 'local' = 'redis'): string {
  return writeConfig({
    redis: { url: { env: 'TEST_REDIS_URL' }, commandTimeoutMs: 200, connectTimeoutMs: 500 },
    auth: { rateLimitStore: store, audit: false },
    tenants: {
      acme: { tools: ['*'], rateLimit: { requestsPerSecond: RATE, burst: BURST } },
      globex: { tools: ['*'], rateLimit: false },
    },
    principals: [
      { id: 'a1', tenant: 'acme', keyHash: hashApiKey('a1-key') },
      { id: 'a2', tenant: 'acme', keyHash: hashApiKey('a2-key') },
      { id: 'g1', tenant: 'globex', keyHash: hashApiKey('g1-key') },
    ],
    sources: { hostExtensions: [{ vendor: 'a', name: 'one', command: ['true'] }] },
  });
}

let redis: RedisServer;
before(async () => {
  redis = await startRedis({ password: PASSWORD });
});
after(async () => {
  await redis?.stop();
});

async function replicas(n: number, store: 'redis' | 'local' = 'redis'): Promise<TestServer[]> {
  const file = sharedConfig(store);
  const servers: TestServer[] = [];
  try {
    for (let i = 0; i < n; i++) servers.push(await startTestServer(file, { env: { ...process.env, TEST_REDIS_URL: redis.url } }));
  } catch (err) {
    await Promise.all(servers.map((s) => s.close()));
    throw err;
  }
  return servers;
}

/** Sends `count` requests of one principal round-robin over the replicas, `inFlight` at a time; the statuses and the elapsed seconds. */
async function spread(servers: TestServer[], token: string, count: number): Promise<{ statuses: number[]; seconds: number; limited: Awaited<ReturnType<typeof request>>[] }> {
  const started = performance.now();
  const statuses: number[] = [];
  const limited: Awaited<ReturnType<typeof request>>[] = [];
  for (let i = 0; i < count; i += 3) {
    const batch = await Promise.all(servers.map((s) => request(s.url, '/tools/x-host-a-one', { token })));
    for (const r of batch) {
      statuses.push(r.status);
      if (r.status === 429) limited.push(r);
    }
  }
  return { statuses, seconds: (performance.now() - started) / 1000, limited };
}

test('a principal spreading requests over three replicas gets no more than burst + rate × elapsed in all', async () => {
  const servers = await replicas(3);
  try {
    const { statuses, seconds, limited } = await spread(servers, 'a1-key', 60);
    const admitted = statuses.filter((s) => s === 200).length;
    assert.deepEqual([...new Set(statuses)].sort(), [200, 429], 'every answer is 200 or 429');
    assert.ok(admitted <= BURST + RATE * seconds, `admitted ${admitted} in ${seconds.toFixed(2)} s: at most ${BURST} + ${RATE}/s`);
    assert.ok(admitted >= BURST, `the whole burst is admitted (${admitted})`);
    // The refusal is the local limiter's: 429 rate_limited, Retry-After in whole seconds, the same number in details.
    const body = limited[0].json();
    assert.equal(body.error, 'rate_limited');
    assert.equal(String(body.details.retryAfter), limited[0].headers.get('retry-after'));
    assert.match(limited[0].headers.get('retry-after') ?? '', /^[1-9][0-9]*$/);
    // Another principal of the same tenant has its own bucket; a tenant without limit is never refused.
    assert.equal((await request(servers[1].url, '/tools/x-host-a-one', { token: 'a2-key' })).status, 200);
    for (const s of servers) assert.equal((await request(s.url, '/tools/x-host-a-one', { token: 'g1-key' })).status, 200);
    const ready = (await request(servers[0].url, '/readyz')).json();
    assert.equal(ready.status, 'ready');
    assert.equal(ready.redis.state, 'connected');
  } finally {
    await Promise.all(servers.map((s) => s.close()));
  }
});

test('with local buckets (the default) the same spread gets a bucket per replica: the shared test above would fail', async () => {
  const servers = await replicas(3, 'local');
  try {
    const { statuses } = await spread(servers, 'a1-key', 30);
    assert.ok(statuses.filter((s) => s === 200).length >= 3 * BURST, 'each replica admits its own burst');
    const ready = (await request(servers[0].url, '/readyz')).json();
    // The `redis` section is there but nothing uses it for limits; readiness still reports it.
    assert.equal(ready.redis.state, 'connected');
  } finally {
    await Promise.all(servers.map((s) => s.close()));
  }
});

async function eventually(check: () => Promise<boolean>, what: string, ms = 15_000): Promise<void> {
  const deadline = Date.now() + patient(ms);
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const metric = (text: string, name: string): number => Number(new RegExp(`^${name} ([0-9.e+-]+)$`, 'm').exec(text)?.[1] ?? NaN);

test('Redis killed mid-run: replicas keep serving from local buckets and say so; back to shared buckets when it returns', async () => {
  const servers = await replicas(2);
  try {
    const [a, b] = servers;
    assert.equal(metric((await request(a.url, '/metrics')).text, 'toolhost_rate_limit_store_fallback'), 0);
    await redis.kill();
    // Serving continues: every answer is 200 or 429, never 5xx, and arrives.
    const during = await Promise.all([...Array(6)].map((_, i) => request(servers[i % 2].url, '/tools/x-host-a-one', { token: 'a2-key' })));
    for (const r of during) assert.ok(r.status === 200 || r.status === 429, `status ${r.status}`);
    await eventually(async () => (await request(a.url, '/readyz')).json().redis.state === 'unavailable', 'readiness to report Redis unavailable');
    const ready = await request(a.url, '/readyz');
    assert.equal(ready.status, 200, 'degraded, not down');
    const report = ready.json();
    assert.equal(report.status, 'degraded');
    assert.equal(typeof report.redis.since, 'string');
    assert.equal(typeof report.redis.error, 'string');
    assert.deepEqual((await request(a.url, '/health/sources')).json().redis.state, 'unavailable');
    const metrics = (await request(a.url, '/metrics')).text;
    assert.equal(metric(metrics, 'toolhost_rate_limit_store_fallback'), 1);
    assert.ok(metric(metrics, 'toolhost_rate_limit_store_fallbacks_total') >= 1);
    // Local buckets while Redis is away: each replica its own burst.
    const local = await Promise.all([...Array(BURST)].map(() => request(b.url, '/tools/x-host-a-one', { token: 'a1-key' })));
    assert.ok(local.every((r) => r.status === 200), 'a fresh local bucket admits its burst');

    await redis.restart();
    for (const s of servers) await eventually(async () => (await request(s.url, '/readyz')).json().redis.state === 'connected', 'Redis connected again');
    assert.equal((await request(a.url, '/readyz')).json().status, 'ready');
    assert.equal(metric((await request(a.url, '/metrics')).text, 'toolhost_rate_limit_store_fallback'), 0);
    // Shared again (the restarted Redis is empty: a fresh shared bucket).
    const { statuses, seconds } = await spread(servers, 'a1-key', 30);
    const admitted = statuses.filter((s) => s === 200).length;
    assert.ok(admitted <= BURST + RATE * seconds, `admitted ${admitted}`);
    // One line per transition, and never the password.
    for (const s of servers) {
      const text = s.logs.join('');
      assert.ok(!text.includes(PASSWORD), 'the password is never logged');
      assert.equal(s.logs.filter((l) => l.includes('Redis is unavailable')).length, 1, 'one line when Redis went away');
      assert.ok(s.logs.filter((l) => l.includes('Redis is answering')).length >= 2, 'one line when it came (and came back)');
    }
    for (const path of ['/readyz', '/health/sources', '/metrics']) assert.ok(!(await request(a.url, path)).text.includes(PASSWORD));
  } finally {
    await Promise.all(servers.map((s) => s.close()));
  }
});

test('a Redis that stops answering (frozen, connection open): each request waits at most the timeout, then local buckets', async () => {
  const [server] = await replicas(1);
  try {
    redis.pause();
    const started = performance.now();
    const answers = await Promise.all([...Array(5)].map(() => request(server.url, '/tools/x-host-a-one', { token: 'a2-key' })));
    const elapsed = performance.now() - started;
    for (const r of answers) assert.ok(r.status === 200 || r.status === 429, `status ${r.status}`);
    // commandTimeoutMs is 200 here: far less than a hang, whatever the machine's load.
    assert.ok(elapsed < 5_000, `answered in ${Math.round(elapsed)} ms`);
    const report = (await request(server.url, '/readyz')).json();
    assert.equal(report.status, 'degraded');
    assert.equal(report.redis.state, 'unavailable');
    assert.match(report.redis.error, /timed out/i);
    assert.ok(metric((await request(server.url, '/metrics')).text, 'toolhost_rate_limit_store_fallbacks_total') >= 5, 'each of them answered locally');
    redis.resume();
    await eventually(async () => (await request(server.url, '/readyz')).json().redis.state === 'connected', 'Redis answering again');
  } finally {
    redis.resume();
    await server.close();
  }
});

test('a Redis URL whose environment variable is unset stops the start with the variable named', async () => {
  await assert.rejects(startTestServer(sharedConfig(), { env: {} }), /redis\.url: environment variable TEST_REDIS_URL is not set/);
});
