// The shared bucket (a Lua script in a real redis-server) and the local
// TokenBucket are one limit: for any limit and any sequence of (time, bucket)
// they admit and refuse the same requests and give the same Retry-After.
// The script is given each request's time, as the local bucket is, so the
// two run on the same clock.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import fc from 'fast-check';
import pino from 'pino';
import { RedisConnection } from '../../src/auth/redis-connection.js';
import { answerOf, takeCommandOf } from '../../src/auth/redis-rate-limit.js';
import { TokenBucket } from '../../src/auth/rate-limit.js';
import { startRedis, type RedisServer } from '../helpers/redis.js';

let redis: RedisServer;
let connection: RedisConnection;
before(async () => {
  redis = await startRedis();
  connection = new RedisConnection({ url: redis.url, keyPrefix: 'prop:', commandTimeoutMs: 2000, logger: pino({ level: 'silent' }) });
  assert.ok(await connection.whenUsable(5000), 'Redis answers');
});
after(async () => {
  await connection?.stop();
  await redis?.stop();
});

const limitArb = fc.record({
  requestsPerSecond: fc.oneof(fc.double({ min: 0.01, max: 1000, noNaN: true }), fc.constantFrom(0.5, 1, 2, 10, 50)),
  burst: fc.integer({ min: 1, max: 20 }),
});
/** Milliseconds since the previous request (0: at once), and which of three buckets it takes from. */
const stepArb = fc.record({ gapMs: fc.oneof(fc.constant(0), fc.double({ min: 0, max: 3000, noNaN: true }), fc.integer({ min: 0, max: 50 })), bucket: fc.integer({ min: 0, max: 2 }) });

let run = 0;
test('the Redis bucket answers every sequence of (time, request) as the local bucket does', async () => {
  const take = takeCommandOf(connection);
  await fc.assert(
    fc.asyncProperty(limitArb, fc.array(stepArb, { minLength: 1, maxLength: 60 }), fc.double({ min: 0, max: 1e9, noNaN: true }), async (limit, steps, start) => {
      run++;
      const local = new Map<number, TokenBucket>();
      let now = start;
      for (const [i, step] of steps.entries()) {
        now += step.gapMs;
        let bucket = local.get(step.bucket);
        if (bucket === undefined) local.set(step.bucket, (bucket = new TokenBucket(limit, now)));
        const expected = bucket.take(now);
        const reply = await take(`prop:${run}:${step.bucket}`, String(limit.requestsPerSecond), String(limit.burst), String(now));
        assert.equal(answerOf(reply, limit), expected, `step ${i} at ${now} ms`);
      }
    }),
    { numRuns: 150 },
  );
});
