// The audit trail (docs/auth.md "Audit"): one structured line per request
// that reached authentication, naming principal, tenant, route pattern, status
// and duration, and never the credential; off with `auth.audit: false`.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { hashApiKey } from '../../src/auth/api-keys.js';
import { request, startTestServer, writeConfig } from '../helpers/server.js';
import { AUDIENCE, ISSUER, jwksOf, makeKey, signToken, startJwksServer } from './jwt-fixture.js';

const SECRET_KEY = 'audit-secret-api-key-0123456789';

function auditConfig(auth: Record<string, unknown>) {
  return writeConfig({
    auth: { defaultRateLimit: false, ...auth },
    tenants: { acme: { tools: ['*'], rateLimit: { requestsPerSecond: 0.01, burst: 3 } } },
    principals: [{ id: 'auditor', tenant: 'acme', keyHash: hashApiKey(SECRET_KEY) }],
    sources: { hostExtensions: [{ vendor: 'a', name: 'one', command: ['true'] }] },
  });
}

const auditLines = (logs: string[]) => logs.map((l) => JSON.parse(l)).filter((l) => l.audit === true);

test('one audit line per authenticated request: principal, tenant, route, status, duration; no credential', async () => {
  const key = await makeKey('audit-1', 'RS256');
  const jwks = await startJwksServer(jwksOf(key));
  const server = await startTestServer(auditConfig({ jwt: { issuer: ISSUER, audience: AUDIENCE, jwksUrl: jwks.url } }));
  try {
    const token = await signToken(key, { sub: 'jwt-agent', tenant: 'acme' });
    await request(server.url, '/tools', { token: SECRET_KEY });
    await request(server.url, '/tools/x-host-a-one?view=compact', { token: SECRET_KEY });
    await request(server.url, '/tools/not-there', { token: SECRET_KEY });
    await request(server.url, '/tools', { token });
    await request(server.url, '/tools', { token: SECRET_KEY }); // auditor's bucket (burst 3) is empty now: 429
    await request(server.url, '/tools', { token: 'wrong-key' });
    await request(server.url, '/tools');
    await request(server.url, '/healthz');
    await request(server.url, '/.well-known/openwop');

    const lines = auditLines(server.logs);
    const shape = lines.map((l) => [l.principal, l.tenant ?? null, l.kind ?? null, l.method, l.route, l.status]);
    assert.deepEqual(shape, [
      ['auditor', 'acme', 'api-key', 'GET', '/tools', 200],
      ['auditor', 'acme', 'api-key', 'GET', '/tools/*', 200],
      ['auditor', 'acme', 'api-key', 'GET', '/tools/*', 404],
      ['jwt-agent', 'acme', 'jwt', 'GET', '/tools', 200],
      ['auditor', 'acme', 'api-key', 'GET', '/tools', 429],
      [null, null, null, 'GET', '/tools', 401],
      [null, null, null, 'GET', '/tools', 401],
    ]);
    for (const l of lines) assert.equal(typeof l.durationMs, 'number');
    assert.equal(lines[5].reason, 'unknown or revoked API key');
    assert.equal(lines[6].reason, 'missing bearer credential');

    const all = server.logs.join('\n');
    assert.ok(!all.includes(SECRET_KEY), 'the API key never reaches the log');
    assert.ok(!all.includes(hashApiKey(SECRET_KEY).slice(7)), 'nor its hash');
    for (const part of token.split('.')) assert.ok(!all.includes(part), 'no part of the JWT reaches the log');
    assert.ok(!all.includes('not-there'), 'the route pattern is logged, not the raw URL');
  } finally {
    await server.close();
    await jwks.close();
  }
});

test('auth.audit: false writes no audit line', async () => {
  const server = await startTestServer(auditConfig({ audit: false }));
  try {
    assert.equal((await request(server.url, '/tools', { token: SECRET_KEY })).status, 200);
    assert.equal((await request(server.url, '/tools', { token: 'wrong' })).status, 401);
    assert.deepEqual(auditLines(server.logs), []);
  } finally {
    await server.close();
  }
});
