// Property test of the one visibility rule over HTTP: random
// tenants, tools, workflows, allowlists and scopes with API-key principals.
// Each caller's list equals an independent oracle and the set of ids whose
// by-id answers 200; every other id's 404 is byte-identical to an unknown id's.
import { test } from 'node:test';
import fc from 'fast-check';
import { hashApiKey } from '../../src/auth/api-keys.js';
import { startTestServer } from '../helpers/server.js';
import { assertCallerSees, oracle, SCOPES, worldArb, writeWorldConfig } from '../helpers/visibility-world.js';

const principalArb = (tenantCount: number) => fc.record({ tenant: fc.integer({ min: 0, max: tenantCount - 1 }), scopes: fc.subarray(SCOPES) });

test('visibility: list = oracle = ids answering 200; all other 404s byte-identical', async () => {
  await fc.assert(
    fc.asyncProperty(worldArb(principalArb, { maxTools: 10, maxWorkflows: 3 }), async (world) => {
      const principals = world.principals.map((p, i) => ({ id: `p${i}`, tenant: `t${p.tenant}`, scopes: p.scopes, keyHash: hashApiKey(`key-${i}`) }));
      const server = await startTestServer(writeWorldConfig(world, { principals, auth: { defaultRateLimit: false, audit: false } }));
      try {
        for (const [i, p] of world.principals.entries()) {
          const { universe, expected } = oracle(world, p.tenant, p.scopes);
          await assertCallerSees(server.url, `key-${i}`, universe, expected);
        }
      } finally {
        await server.close();
      }
    }),
    { numRuns: 30 },
  );
});
