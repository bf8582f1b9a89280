// The visibility property of test/http/visibility.property.test.ts, with JWT
// principals: random tools, tenants, allowlists and scopes claims (as a
// space-separated string or an array). Each caller's list equals an
// independent oracle and the set of ids answering 200; every other id's 404 is
// byte-identical to an unknown id's; a token naming a tenant the host does not
// know sees nothing at all (401).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import fc from 'fast-check';
import { request, startTestServer } from '../helpers/server.js';
import { assertCallerSees, oracle, SCOPES, UNKNOWN_ID, worldArb, writeWorldConfig } from '../helpers/visibility-world.js';
import { AUDIENCE, ISSUER, jwksOf, makeKey, signToken, startJwksServer, type JwksServer, type SigningKey } from './jwt-fixture.js';

const principalArb = (tenantCount: number) =>
  fc.record({
    // -1: a tenant the host does not know
    tenant: fc.integer({ min: -1, max: tenantCount - 1 }),
    // Extra scopes no tool needs must change nothing.
    scopes: fc.subarray([...SCOPES, 'unrelated']),
    asString: fc.boolean(),
  });

let jwks: JwksServer;
let key: SigningKey;
before(async () => {
  key = await makeKey('prop-1', 'ES256');
  jwks = await startJwksServer(jwksOf(key));
});
after(async () => jwks.close());

test('JWT visibility: list = oracle = ids answering 200; all other 404s byte-identical; unknown tenants 401', async () => {
  await fc.assert(
    fc.asyncProperty(worldArb(principalArb, { maxTools: 8, maxWorkflows: 2 }), async (world) => {
      const auth = { jwt: { issuer: ISSUER, audience: AUDIENCE, jwksUrl: jwks.url }, defaultRateLimit: false, audit: false };
      const server = await startTestServer(writeWorldConfig(world, { auth }));
      try {
        for (const [i, p] of world.principals.entries()) {
          const token = await signToken(key, { sub: `agent-${i}`, tenant: p.tenant < 0 ? 'nobody' : `t${p.tenant}`, scope: p.asString ? p.scopes.join(' ') : p.scopes });
          if (p.tenant < 0) {
            const { universe } = oracle(world, 0, []);
            for (const path of ['/tools', '/tools?view=compact', `/tools/${UNKNOWN_ID}`, ...universe.map((id) => `/tools/${encodeURIComponent(id)}`)]) {
              const res = await request(server.url, path, { token });
              assert.equal(res.status, 401, path);
              assert.match(res.json().message, /tenant unknown/);
            }
            continue;
          }
          const { universe, expected } = oracle(world, p.tenant, p.scopes);
          await assertCallerSees(server.url, token, universe, expected);
        }
      } finally {
        await server.close();
      }
    }),
    { numRuns: 25 },
  );
});
