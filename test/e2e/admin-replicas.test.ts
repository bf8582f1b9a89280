// The admin API over three toolhost processes on one PostgreSQL (docs/admin.md
// "Replicas"): a change made at one replica is served by every replica (the
// time from the write's answer until all three serve it is reported, not
// asserted), two replicas accepting the same If-Match store only one change,
// and a replica started later serves the same state.
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { after, before, test } from 'node:test';
import { hashApiKey } from '../../src/auth/api-keys.js';
import { tempDir, writeConfig } from '../helpers/server.js';
import { PG_SKIP, startPostgres, type PgServer } from '../helpers/postgres.js';
import { startReplicas, type Replicas } from '../helpers/replicas.js';
import { waitFor } from '../events/helpers.js';

const TEXT_PACK = fileURLToPath(new URL('../../examples/demo/packs/text', import.meta.url));
const skip = PG_SKIP ? { skip: PG_SKIP } : {};

let server: PgServer | undefined;
let replicas: Replicas | undefined;
let configFile = '';
let env: NodeJS.ProcessEnv = {};

before(async () => {
  if (PG_SKIP) return;
  server = await startPostgres({ fast: true });
  env = { DATABASE_URL: await server.newDatabase(), LOG_LEVEL: 'warn' };
  configFile = writeConfig(
    {
      server: { host: '127.0.0.1', port: 0, watchConfig: false },
      admin: { keys: [{ id: 'ops', keyHash: hashApiKey('adm') }] },
      tenants: { a: { tools: ['openwop:text.uppercase'] } },
      principals: [{ id: 'pa', tenant: 'a', keyHash: hashApiKey('ka') }],
      events: { postgres: { url: '${DATABASE_URL}' } },
      sources: { nodePacks: [{ path: TEXT_PACK }] },
    },
    tempDir('toolhost-admin-replicas-'),
  );
  replicas = await startReplicas(3, configFile, env);
});
after(async () => {
  await replicas?.close();
  await server?.close();
});

async function call(url: string, method: string, path: string, token: string, body?: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(url + path, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, etag: res.headers.get('etag'), text };
}

const toolCount = async (url: string) => (JSON.parse((await call(url, 'GET', '/tools', 'ka')).text) as unknown[]).length;

test('a change at one replica is served by all three; conflicting writes: one wins; a later replica reads the same', skip, async (t) => {
  const [r0, r1, r2] = replicas!.list;
  for (const r of replicas!.list) assert.equal(await toolCount(r.url), 1);
  const read = await call(r0.url, 'GET', '/admin/v1/tenants/a', 'adm');
  const written = await call(r0.url, 'PUT', '/admin/v1/tenants/a', 'adm', { tools: ['openwop:text.*'] }, { 'if-match': read.etag! });
  assert.equal(written.status, 200, written.text);
  const answered = performance.now();
  const served = await Promise.all(
    replicas!.list.map(async (r) => {
      await waitFor(async () => (await toolCount(r.url)) > 1, 10_000, `replica ${r.url} serving the change`);
      return performance.now() - answered;
    }),
  );
  t.diagnostic(`API write answered -> every replica serving it: ${Math.round(Math.max(...served))} ms (per replica: ${served.map((ms) => Math.round(ms)).join(', ')} ms)`);

  // Two replicas, both at the same state, both given the ETag they serve: exactly one change is stored.
  await waitFor(async () => (await call(r1.url, 'GET', '/admin/v1/tenants/a', 'adm')).etag === written.etag && (await call(r2.url, 'GET', '/admin/v1/tenants/a', 'adm')).etag === written.etag, 10_000, 'both at the same ETag');
  const [x, y] = await Promise.all([
    call(r1.url, 'PUT', '/admin/v1/tenants/a', 'adm', { tools: ['openwop:text.uppercase', 'openwop:text.word-count'] }, { 'if-match': written.etag! }),
    call(r2.url, 'PUT', '/admin/v1/tenants/a', 'adm', { tools: ['openwop:text.uppercase'] }, { 'if-match': written.etag! }),
  ]);
  assert.deepEqual([x.status, y.status].sort(), [200, 412], `${x.text} ${y.text}`);
  const winner = x.status === 200 ? x : y;
  await waitFor(async () => (await Promise.all(replicas!.list.map((r) => call(r.url, 'GET', '/admin/v1/tenants/a', 'adm')))).every((a) => a.etag === winner.etag), 10_000, 'every replica on the winner');

  const later = await startReplicas(1, configFile, env);
  try {
    assert.equal((await call(later.list[0].url, 'GET', '/admin/v1/tenants/a', 'adm')).etag, winner.etag);
    assert.equal(await toolCount(later.list[0].url), await toolCount(r0.url));
  } finally {
    await later.close();
  }
});
