// `${VAR}` secrets in env, headers and URLs reach the server and nothing
// else: not one log line (captured at trace level), not health, not metrics,
// even when the server echoes them back in an error or on stderr.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createMcpSource, type McpToolSource } from '../../src/sources/mcp/index.js';
import { freePort, httpConfig, makeCtx, startHttpFixture, stdioConfig, waitFor, type TestCtx } from './helpers.js';

async function assertNoSecret(ctx: TestCtx, source: McpToolSource, secrets: string[]): Promise<void> {
  const outputs = {
    log: ctx.log.text(),
    health: JSON.stringify(source.health()),
    tools: JSON.stringify(source.tools()),
    metrics: await ctx.metrics.registry.metrics(),
  };
  for (const secret of secrets) {
    for (const [where, text] of Object.entries(outputs)) assert.ok(!text.includes(secret), `secret found in ${where}`);
  }
  assert.ok(ctx.log.entries().length > 0, 'something was logged');
}

test('stdio: ${VAR} in env reaches the child only; the parent env does not leak in', async () => {
  const secret = 'env-secret-Q7x9-value';
  const ctx = makeCtx({ MY_SECRET: secret });
  process.env.TOOLHOST_LEAK_CANARY = 'canary';
  const source = createMcpSource(
    stdioConfig('envs', ['--stderr-env', 'FIXTURE_SECRET', '--leak-env', 'FIXTURE_SECRET'], { env: { FIXTURE_SECRET: '${MY_SECRET}', PLAIN: 'literal-value', NOTE: 'the message' } }),
    ctx,
  );
  try {
    await source.start(() => {});
    assert.equal(source.health().state, 'connected');
    const got = await source.callTool('env_check', { name: 'FIXTURE_SECRET', equals: secret });
    assert.deepEqual(got.structuredContent, { present: true, equals: true });
    const plain = await source.callTool('env_check', { name: 'PLAIN', equals: 'literal-value' });
    assert.deepEqual(plain.structuredContent, { present: true, equals: true });
    const canary = await source.callTool('env_check', { name: 'TOOLHOST_LEAK_CANARY' });
    assert.deepEqual(canary.structuredContent, { present: false });
    // A tool repeating the secret is served with the value replaced.
    const leaky = source.tools().find((t) => t.toolId === 'mcp:envs.leaky')!;
    assert.equal(leaky.description, 'Uses the token [redacted] for its calls.');
    assert.deepEqual(leaky.inputSchema, { type: 'object', properties: { token: { type: 'string', default: '[redacted]', examples: ['[redacted]'] } } });
    // Plain config values are kept out of logs, but not scrubbed from tool data.
    assert.equal(source.tools().find((t) => t.toolId === 'mcp:envs.echo')!.description, 'Echoes the message back.');
    // The child's stderr was read (debug log), with the secret redacted.
    await waitFor(() => ctx.log.entries().some((e) => e.event === 'stderr' && String(e.line).includes('FIXTURE_SECRET=[redacted]')), 2000, 'stderr line');
    await assertNoSecret(ctx, source, [secret, 'literal-value']);
  } finally {
    delete process.env.TOOLHOST_LEAK_CANARY;
    await source.stop();
  }
});

test('http: ${VAR} in a header and in the URL query authenticate; neither is logged', async () => {
  const token = 'hdr-secret-3f9a-token';
  const key = 'query-secret-77b2';
  const fixture = await startHttpFixture(['--auth-token', token]);
  const ctx = makeCtx({ API_TOKEN: token, URL_KEY: key });
  const source = createMcpSource(
    httpConfig('authed', `${fixture.url}?key=\${URL_KEY}`, { headers: { Authorization: 'Bearer ${API_TOKEN}' } }),
    ctx,
  );
  try {
    await source.start(() => {});
    assert.equal(source.health().state, 'connected');
    assert.equal((await source.callTool('echo', { message: 'ok' })).structuredContent?.message, 'ok');
    const connect = ctx.log.entries().find((e) => e.event === 'connect');
    assert.equal(connect?.target, `${fixture.url}?***`);
    await assertNoSecret(ctx, source, [token, key]);
  } finally {
    await source.stop();
    await fixture.kill();
  }
});

test('http: a server echoing the wrong credential back in its 401 body does not get it into health or logs', async () => {
  const wrong = 'wrong-secret-8c1d-value';
  const fixture = await startHttpFixture(['--auth-token', 'the-expected-token']);
  const ctx = makeCtx({ API_TOKEN: wrong });
  const source = createMcpSource(httpConfig('echoer', fixture.url, { headers: { 'X-Api-Key': '${API_TOKEN}', Authorization: 'Bearer ${API_TOKEN}' } }), ctx);
  try {
    await source.start(() => {});
    const h = source.health();
    assert.equal(h.state, 'failed');
    assert.match(h.lastError ?? '', /401/);
    assert.match(h.lastError ?? '', /\[redacted\]/);
    console.log(`# 401 lastError: ${h.lastError}`);
    await assertNoSecret(ctx, source, [wrong]);
  } finally {
    await source.stop();
    await fixture.kill();
  }
});

test('http: URL userinfo never shows', async () => {
  const ctx = makeCtx({ PW: 'userinfo-pw-5e21' });
  const port = await freePort();
  const source = createMcpSource(httpConfig('userinfo', `http://admin:\${PW}@127.0.0.1:${port}/mcp`, { connectTimeoutMs: 1000 }), ctx);
  try {
    await source.start(() => {});
    assert.equal(source.health().state, 'failed');
    assert.ok(source.health().lastError);
    console.log(`# userinfo lastError: ${source.health().lastError}`);
    await assertNoSecret(ctx, source, ['userinfo-pw-5e21']);
  } finally {
    await source.stop();
  }
});
