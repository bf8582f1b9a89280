// The API secret stays out of everything the source produces: tools,
// operations, health, metrics and log lines. It is read only by
// resolveConnectorSecret, at call time, and added by applyConnectorAuth.
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import {
  ConnectorRequestError,
  ConnectorSecretError,
  applyConnectorAuth,
  buildHttpRequest,
  createConnectorSource,
  resolveConnectorSecret,
  type ConnectorSourceConfig,
} from '../../src/sources/connector/index.js';
import { DEMO_DOC, testContext } from './helpers.js';

const SECRET = 'sk-test-9f8e7d6c5b4a3-DO-NOT-LEAK';

test('the secret appears in no tool, operation, health, metric or log line; resolveConnectorSecret returns it', async () => {
  const ctx = testContext({ env: { TICKETS_TOKEN: SECRET } });
  const config: ConnectorSourceConfig = { id: 'tickets', document: DEMO_DOC, watch: false, auth: { type: 'bearer', secret: { env: 'TICKETS_TOKEN' } } };
  const source = createConnectorSource(config, ctx);
  await source.start(() => {});
  assert.equal(source.health().state, 'connected');
  assert.ok(source.tools().length > 0);
  await source.refresh();

  // a failing load logs too: its lines must be clean as well
  const broken = createConnectorSource({ ...config, id: 'broken', document: path.join(path.dirname(DEMO_DOC), 'does-not-exist.yaml') }, ctx);
  await broken.start(() => {});
  assert.equal(broken.health().state, 'failed');

  assert.ok(ctx.lines.some((l) => l.includes('connector document loaded')), 'log lines were captured');
  assert.ok(ctx.lines.some((l) => l.includes('connector document not loaded')), 'the failure was logged');
  const surfaces: [string, string][] = [
    ['tools', JSON.stringify(source.tools())],
    ['operations', JSON.stringify(source.operations())],
    ['health', JSON.stringify([source.health(), broken.health()])],
    ['metrics', await ctx.metrics.registry.metrics()],
    ['logs', ctx.lines.join('')],
  ];
  for (const [name, text] of surfaces) {
    assert.ok(!text.includes(SECRET), `secret in ${name}`);
    assert.ok(!text.includes(SECRET.slice(8, 24)), `part of the secret in ${name}`);
  }
  // the reference (the variable's name) may appear; the value never
  assert.equal(await resolveConnectorSecret(config, ctx), SECRET);
  await source.stop();
  await broken.stop();
});

test('resolveConnectorSecret: env and file references, clear errors without values', async () => {
  const dir = await mkdtemp(path.join(tmpdir(), 'connector-secret-'));
  try {
    await writeFile(path.join(dir, 'token.txt'), `${SECRET}\n`);
    await writeFile(path.join(dir, 'empty.txt'), '');
    const ctx = { env: { SET: SECRET, EMPTY: '' }, configDir: dir };
    const base = { id: 'x', document: 'x.yaml' };
    assert.equal(await resolveConnectorSecret(base, ctx), undefined, 'no auth, no secret');
    assert.equal(await resolveConnectorSecret({ ...base, auth: { type: 'bearer', secret: { file: 'token.txt' } } }, ctx), SECRET, 'trailing newline stripped');
    assert.equal(await resolveConnectorSecret({ ...base, auth: { type: 'bearer', secret: { env: 'SET' } } }, ctx), SECRET);
    const fails = async (c: ConnectorSourceConfig, re: RegExp) =>
      assert.rejects(resolveConnectorSecret(c, ctx), (err: unknown) => err instanceof ConnectorSecretError && re.test(err.message) && !err.message.includes(SECRET));
    await fails({ ...base, auth: { type: 'bearer', secret: { env: 'MISSING' } } }, /environment variable MISSING is not set/);
    await fails({ ...base, auth: { type: 'bearer', secret: { env: 'EMPTY' } } }, /environment variable EMPTY is not set/);
    await fails({ ...base, auth: { type: 'bearer', secret: { file: 'nope.txt' } } }, /cannot read secret file nope\.txt \(ENOENT\)/);
    await fails({ ...base, auth: { type: 'bearer', secret: { file: 'empty.txt' } } }, /secret file empty\.txt is empty/);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('applyConnectorAuth: bearer, header, query, basic; the request it is given is not changed', async () => {
  const ctx = testContext();
  const source = createConnectorSource({ id: 'tickets', document: DEMO_DOC, watch: false }, ctx);
  await source.start(() => {});
  const op = source.operation('connector:tickets.listTickets')!;
  const req = buildHttpRequest(op, { limit: 2 }, op.baseUrl!);
  const before = JSON.stringify(req);
  const ref = { env: 'T' };
  assert.equal(applyConnectorAuth(req, { type: 'bearer', secret: ref }, SECRET).headers.authorization, `Bearer ${SECRET}`);
  assert.equal(applyConnectorAuth(req, { type: 'header', name: 'X-Api-Key', secret: ref }, SECRET).headers['x-api-key'], SECRET);
  assert.equal(applyConnectorAuth(req, { type: 'query', name: 'api key', secret: ref }, 'a&b=c').url, 'https://tickets.example.com/v1/tickets?limit=2&api%20key=a%26b%3Dc');
  const noQuery = buildHttpRequest(op, {}, op.baseUrl!);
  assert.equal(applyConnectorAuth(noQuery, { type: 'query', name: 'k', secret: ref }, 's').url, 'https://tickets.example.com/v1/tickets?k=s');
  assert.equal(
    applyConnectorAuth(req, { type: 'basic', secret: ref }, 'user:pä55').headers.authorization,
    `Basic ${Buffer.from('user:pä55', 'utf8').toString('base64')}`,
  );
  assert.equal(JSON.stringify(req), before, 'input request untouched');
  assert.throws(
    () => applyConnectorAuth(req, { type: 'bearer', secret: ref }, `${SECRET}\r\nX-Evil: 1`),
    (err: unknown) => err instanceof ConnectorRequestError && !err.message.includes(SECRET),
  );
  await source.stop();
});
