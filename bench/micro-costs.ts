// What two pieces of a small answer cost, in one process (docs/benchmarks.md
// "Small answers, second round"): the API-key check as the host does it,
// against the lookup a verified-key cache keyed by HMAC would need; and the
// audit line through pino into the serving logger's buffered destination,
// against the same line serialized by hand.
//   npx tsx bench/micro-costs.ts [--rounds N]
// Prints CPU nanoseconds per operation for each, per run (three runs).
import { createHmac, randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { parseArgs } from 'node:util';
import { ApiKeyStore, hashApiKey } from '../src/auth/api-keys.js';
import pino from 'pino';
import { createLogger } from '../src/cli/logger.js';

const { values } = parseArgs({ options: { rounds: { type: 'string', default: '200000' } } });
const N = Number(values.rounds);

/**
 * CPU (all threads) per call of `f`, in chunks with a turn of the event loop
 * between them, as a server has between requests: the log's writes drain.
 */
async function cpuNsPer(f: (i: number) => unknown): Promise<number> {
  for (let i = 0; i < 20_000; i++) {
    f(i);
    if (i % 50 === 49) await new Promise((resolve) => setImmediate(resolve));
  }
  const c0 = process.cpuUsage();
  for (let i = 0; i < N; ) {
    for (const end = Math.min(N, i + 50); i < end; i++) f(i);
    await new Promise((resolve) => setImmediate(resolve));
  }
  const c = process.cpuUsage(c0);
  return ((c.user + c.system) * 1000) / N;
}

// The key check: the host's store with one key, and a cache keyed by HMAC-SHA256 under a per-process key.
const key = `bench-all-${randomBytes(16).toString('hex')}`;
const store = new ApiKeyStore([{ principalId: 'p', tenant: 't', scopes: [], keyHash: hashApiKey(key) }]);
const hmacKey = randomBytes(32);
const cache = new Map([[createHmac('sha256', hmacKey).update(key).digest('base64'), 'p']]);

// The audit line: the serving logger (buffered) writing to /dev/null, through pino and by hand.
const logger = createLogger('info', 'json', false, '/dev/null');
const audit = logger.child({ audit: true });
const stream = (logger as unknown as Record<symbol, { write(s: string): void }>)[pino.symbols.streamSym];
const round3 = (ms: number) => Math.round(ms * 1000) / 1000;
const bindings = `,"pid":${process.pid},"hostname":${JSON.stringify(hostname())},"audit":true`;
const principalPart = `,"principal":"bench-all","tenant":"all","kind":"api-key","method":"GET","route":"/tools/*"`;

for (let run = 1; run <= 3; run++) {
  const verify = await cpuNsPer(() => store.verify(key));
  const hmac = await cpuNsPer(() => cache.get(createHmac('sha256', hmacKey).update(key).digest('base64')));
  const viaPino = await cpuNsPer((i) => audit.info({ principal: 'bench-all', tenant: 'all', kind: 'api-key', method: 'GET', route: '/tools/*', status: 200, durationMs: round3(0.1234 + (i & 7) / 1000) }, 'request'));
  await new Promise((resolve) => setTimeout(resolve, 200));
  const byHand = await cpuNsPer((i) => stream.write(`{"level":30,"time":${Date.now()}${bindings}${principalPart},"status":200,"durationMs":${round3(0.1234 + (i & 7) / 1000)},"msg":"request"}\n`));
  await new Promise((resolve) => setTimeout(resolve, 200));
  process.stdout.write(`run ${run}: key check ${verify.toFixed(0)} ns, HMAC-keyed cache lookup ${hmac.toFixed(0)} ns; audit line via pino ${viaPino.toFixed(0)} ns, by hand ${byHand.toFixed(0)} ns (CPU per operation)\n`);
}
process.exit(0);
