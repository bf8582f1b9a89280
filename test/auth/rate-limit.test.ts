// Per-principal rate limits and the anonymous bound (docs/auth.md "Rate
// limits"): over HTTP against a real host, plus the token bucket and the
// bucket table's memory bound on their own. No assertion depends on how
// fast the machine is: limits that must not refill during a test refill at
// one token per hundreds of seconds, and a refill that must happen is waited
// for (with a deadline that only guards against a hang).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { hashApiKey } from '../../src/auth/api-keys.js';
import { principalKey, type Principal } from '../../src/auth/principal.js';
import { RateLimiter, TokenBucket } from '../../src/auth/rate-limit.js';
import { request, startTestServer, writeConfig } from '../helpers/server.js';
import { eventually } from './jwt-fixture.js';

/** Refills far slower than any test runs: what is taken stays taken. */
const NO_REFILL = 0.001;

function limitedHost(auth: Record<string, unknown> = {}) {
  return startTestServer(
    writeConfig({
      auth,
      tenants: {
        acme: { tools: ['*'], rateLimit: { requestsPerSecond: NO_REFILL, burst: 3 } },
        initrode: { tools: ['*'], rateLimit: { requestsPerSecond: 2, burst: 1 } },
        globex: { tools: ['*'], rateLimit: false },
        initech: { tools: ['*'] },
      },
      principals: [
        { id: 'a1', tenant: 'acme', keyHash: hashApiKey('a1-key') },
        { id: 'a2', tenant: 'acme', keyHash: hashApiKey('a2-key') },
        { id: 'g1', tenant: 'globex', keyHash: hashApiKey('g1-key') },
        { id: 'i1', tenant: 'initech', keyHash: hashApiKey('i1-key') },
        { id: 'r1', tenant: 'initrode', keyHash: hashApiKey('r1-key') },
      ],
      sources: { hostExtensions: [{ vendor: 'a', name: 'one', command: ['true'] }] },
    }),
  );
}

test('a burst above the limit gets 429 rate_limited with Retry-After; another principal is unaffected', async () => {
  const server = await limitedHost();
  try {
    const get = (token: string, path = '/tools/x-host-a-one') => request(server.url, path, { token });
    for (let i = 0; i < 3; i++) assert.equal((await get('a1-key')).status, 200, `request ${i} within the burst`);
    const limited = await get('a1-key');
    assert.equal(limited.status, 429);
    const retry = limited.headers.get('retry-after');
    assert.match(retry ?? '', /^[1-9][0-9]*$/, 'Retry-After: whole seconds >= 1');
    const body = limited.json();
    assert.deepEqual(Object.keys(body).sort(), ['details', 'error', 'message']);
    assert.equal(body.error, 'rate_limited');
    assert.equal(body.details.retryAfter, Number(retry));
    assert.match(body.message, /rate limit/);
    // The list and unknown ids count against the same bucket.
    assert.equal((await get('a1-key', '/tools')).status, 429);
    assert.equal((await get('a1-key', '/tools/nothing-here')).status, 429);

    // Same tenant, another principal: its own bucket.
    for (let i = 0; i < 3; i++) assert.equal((await get('a2-key')).status, 200);
    // A tenant with `rateLimit: false`: never limited.
    for (let i = 0; i < 50; i++) assert.equal((await get('g1-key')).status, 200);
    // A tenant without `rateLimit`: the built-in default (50/s, burst 100) admits this much.
    for (let i = 0; i < 20; i++) assert.equal((await get('i1-key')).status, 200);

    // A refused credential is a 401 whatever the bucket holds.
    assert.equal((await get('wrong-key')).status, 401);
  } finally {
    await server.close();
  }
});

test('a limited principal is admitted again once its bucket refills', async () => {
  const server = await limitedHost();
  try {
    const get = () => request(server.url, '/tools', { token: 'r1-key' });
    // 2/s with a burst of 1: keep asking until refused (a bound, not a clock, ends the loop).
    let refused: Awaited<ReturnType<typeof get>> | undefined;
    for (let i = 0; i < 1000 && refused === undefined; i++) {
      const res = await get();
      if (res.status === 429) refused = res;
      else assert.equal(res.status, 200);
    }
    assert.ok(refused, 'a burst of 1 is exhausted');
    assert.equal(refused.headers.get('retry-after'), '1', 'half a second to the next token rounds up to 1 s');
    assert.ok(await eventually(async () => (await get()).status === 200, 30_000), 'admitted again after the refill');
  } finally {
    await server.close();
  }
});

test('auth.defaultRateLimit applies to tenants without their own; false turns it off', async () => {
  const server = await limitedHost({ defaultRateLimit: { requestsPerSecond: 0.01, burst: 2 } });
  try {
    const get = (token: string) => request(server.url, '/tools', { token });
    assert.equal((await get('i1-key')).status, 200);
    assert.equal((await get('i1-key')).status, 200);
    const limited = await get('i1-key');
    assert.equal(limited.status, 429);
    // One token at 0.01/s takes up to 100 s (the built-in 50/s would say 1 s).
    const retry = Number(limited.headers.get('retry-after'));
    assert.ok(retry > 50 && retry <= 100, `Retry-After ${retry}`);
    for (let i = 0; i < 10; i++) assert.equal((await get('g1-key')).status, 200);
  } finally {
    await server.close();
  }
});

test('discovery, metrics and unrouted requests share one global bound; probes and catalog callers are not part of it', async () => {
  const server = await limitedHost({ anonymousRateLimit: { requestsPerSecond: NO_REFILL, burst: 3 } });
  try {
    assert.equal((await request(server.url, '/.well-known/openwop')).status, 200);
    assert.equal((await request(server.url, '/metrics')).status, 200);
    // An anonymous flood on unrouted paths: answered until the shared bucket is empty.
    let limited: Awaited<ReturnType<typeof request>> | undefined;
    for (let i = 0; i < 100 && limited === undefined; i++) {
      const res = await request(server.url, `/no-such-route-${i}`);
      if (res.status === 429) limited = res;
      else assert.equal(res.status, 404);
    }
    assert.ok(limited, 'the flood is refused');
    assert.equal(limited.json().error, 'rate_limited');
    assert.match(limited.headers.get('retry-after') ?? '', /^[1-9][0-9]*$/);
    assert.equal(limited.headers.get('openwop-version'), '2.0');
    assert.equal((await request(server.url, '/.well-known/openwop')).status, 429, 'discovery shares the bound');
    // Liveness and readiness never share a bucket with that traffic.
    for (let i = 0; i < 5; i++) {
      assert.equal((await request(server.url, '/healthz')).status, 200);
      assert.equal((await request(server.url, '/readyz')).status, 200);
      assert.equal((await request(server.url, '/health/sources')).status, 200);
    }
    assert.equal((await request(server.url, '/tools', { token: 'g1-key' })).status, 200);
  } finally {
    await server.close();
  }
});

test('token bucket: burst, refill, whole-second Retry-After', () => {
  const b = new TokenBucket({ requestsPerSecond: 2, burst: 2 }, 0);
  assert.equal(b.take(0), 0);
  assert.equal(b.take(0), 0);
  assert.equal(b.take(0), 1, 'half a second to the next token rounds up to 1 s');
  assert.equal(b.take(499), 1);
  assert.equal(b.take(1000), 0, 'refilled');
  assert.equal(b.idle(1000), false);
  assert.equal(b.idle(5000), true);
  const slow = new TokenBucket({ requestsPerSecond: 0.1, burst: 1 }, 0);
  assert.equal(slow.take(0), 0);
  assert.equal(slow.take(0), 10);
});

test('the bucket table stays bounded: idle buckets are swept, the oldest gives way at the cap', () => {
  const limiter = new RateLimiter({ tenants: new Map([['t', { requestsPerSecond: 1000, burst: 1 }], ['free', undefined]]), maxBuckets: 3, sweepIntervalMs: 0 });
  try {
    const p = (id: string, tenant = 't'): Principal => ({ id, tenant, scopes: new Set(), kind: 'api-key', key: principalKey('api-key', tenant, id) });
    assert.equal(limiter.take(p('free-1', 'free')), 0);
    assert.equal(limiter.size, 0, 'unlimited tenants keep no buckets');
    for (let i = 0; i < 10; i++) limiter.take(p(`p${i}`));
    assert.ok(limiter.size <= 3, `size ${limiter.size}`);
    const later = performance.now() + 10_000;
    const held = limiter.size;
    assert.equal(limiter.sweep(later), held, 'every refilled bucket is dropped');
    assert.equal(limiter.size, 0);
  } finally {
    limiter.stop();
  }
});
