// The visibility property of test/http/visibility.property.test.ts, with JWT
// principals: random tools, tenants, allowlists and scopes claims (as a
// space-separated string or an array). Each caller's list equals an
// independent oracle and the set of ids answering 200; every other id's 404 is
// byte-identical to an unknown id's; a token naming a tenant the host does not
// know sees nothing at all (401).
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import fc from 'fast-check';
import { request, startTestServer, tempDir, writeConfig } from '../helpers/server.js';
import { AUDIENCE, ISSUER, jwksOf, makeKey, signToken, startJwksServer, type JwksServer, type SigningKey } from './jwt-fixture.js';

const SCOPES = ['s1', 's2', 's3'];

/** Oracle glob matcher, written differently from the host's (recursive, no regex). */
function globMatches(glob: string, id: string): boolean {
  if (glob.length === 0) return id.length === 0;
  if (glob[0] === '*') return globMatches(glob.slice(1), id) || (id.length > 0 && globMatches(glob, id.slice(1)));
  if (id.length === 0) return false;
  return (glob[0] === '?' || glob[0] === id[0]) && globMatches(glob.slice(1), id.slice(1));
}

const toolArb = fc.record({
  vendor: fc.constantFrom('a', 'b'),
  name: fc.stringMatching(/^[a-z]{1,5}$/),
  scopes: fc.subarray(SCOPES),
});

const worldArb = fc
  .record({
    tools: fc.uniqueArray(toolArb, { minLength: 1, maxLength: 8, selector: (t) => `${t.vendor}-${t.name}` }),
    tenantCount: fc.integer({ min: 1, max: 3 }),
  })
  .chain(({ tools, tenantCount }) => {
    const ids = tools.map((t) => `x-host-${t.vendor}-${t.name}`);
    const globArb = fc.oneof(
      fc.constantFrom(...ids),
      fc.constantFrom('*', 'x-host-*', 'x-host-a-*', 'x-host-b-*', 'workflow:*', 'workflow:w0', 'x-host-?-?', '*-a*'),
      fc.constantFrom(...ids).map((id) => `${id.slice(0, -1)}*`),
    );
    return fc.record({
      tools: fc.constant(tools),
      workflows: fc.array(fc.record({ steps: fc.array(fc.constantFrom(...ids), { minLength: 1, maxLength: 3 }), scopes: fc.subarray(SCOPES) }), { maxLength: 2 }),
      allowlists: fc.array(fc.array(globArb, { maxLength: 4 }), { minLength: tenantCount, maxLength: tenantCount }),
      principals: fc.array(
        fc.record({
          // -1: a tenant the host does not know
          tenant: fc.integer({ min: -1, max: tenantCount - 1 }),
          // Extra scopes no tool needs must change nothing.
          scopes: fc.subarray([...SCOPES, 'unrelated']),
          asString: fc.boolean(),
        }),
        { minLength: 1, maxLength: 4 },
      ),
    });
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
    fc.asyncProperty(worldArb, async (world) => {
      const dir = tempDir();
      mkdirSync(join(dir, 'wf'));
      world.workflows.forEach((w, i) => writeFileSync(join(dir, 'wf', `w${i}.yaml`), JSON.stringify({ id: `w${i}`, scopes: w.scopes, steps: w.steps.map((tool) => ({ tool })) })));
      const tenants = Object.fromEntries(world.allowlists.map((tools, i) => [`t${i}`, { tools }]));
      const file = writeConfig(
        {
          auth: { jwt: { issuer: ISSUER, audience: AUDIENCE, jwksUrl: jwks.url }, defaultRateLimit: false, audit: false },
          tenants,
          sources: {
            hostExtensions: world.tools.map((t) => ({ vendor: t.vendor, name: t.name, command: ['true'], scopes: t.scopes })),
            workflows: world.workflows.length > 0 ? [{ path: 'wf' }] : [],
          },
        },
        dir,
      );
      const server = await startTestServer(file);
      try {
        const toolScopes = new Map<string, string[]>(world.tools.map((t) => [`x-host-${t.vendor}-${t.name}`, t.scopes]));
        const steps = new Map<string, string[]>();
        world.workflows.forEach((w, i) => {
          toolScopes.set(`workflow:w${i}`, w.scopes);
          steps.set(`workflow:w${i}`, w.steps);
        });
        const universe = [...toolScopes.keys()];
        const unknownId = 'x-host-z-nothing';
        for (let i = 0; i < world.principals.length; i++) {
          const p = world.principals[i];
          const token = await signToken(key, { sub: `agent-${i}`, tenant: p.tenant < 0 ? 'nobody' : `t${p.tenant}`, scope: p.asString ? p.scopes.join(' ') : p.scopes });
          if (p.tenant < 0) {
            for (const path of ['/tools', '/tools?view=compact', `/tools/${unknownId}`, ...universe.map((id) => `/tools/${encodeURIComponent(id)}`)]) {
              const res = await request(server.url, path, { token });
              assert.equal(res.status, 401, path);
              assert.match(res.json().message, /tenant unknown/);
            }
            continue;
          }
          const allow = world.allowlists[p.tenant];
          const visible = (id: string): boolean =>
            allow.some((g) => globMatches(g, id)) && toolScopes.get(id)!.every((s) => p.scopes.includes(s)) && (steps.get(id) ?? []).every(visible);
          const expected = universe.filter(visible).sort();
          const listed = (await request(server.url, '/tools', { token })).json().map((d: { toolId: string }) => d.toolId);
          assert.deepEqual(listed, expected);
          const compact = (await request(server.url, '/tools?view=compact', { token })).json().tools.map((d: { toolId: string }) => d.toolId);
          assert.deepEqual(compact, expected);
          const notFound = await request(server.url, `/tools/${unknownId}`, { token });
          assert.equal(notFound.status, 404);
          assert.doesNotMatch(notFound.text + JSON.stringify([...notFound.headers]), /scope/i);
          for (const id of universe) {
            const res = await request(server.url, `/tools/${encodeURIComponent(id)}`, { token });
            if (expected.includes(id)) assert.equal(res.status, 200, id);
            else {
              assert.equal(res.status, 404, id);
              assert.equal(res.text, notFound.text);
              const headers = (r: typeof res) => [...r.headers].filter(([k]) => k !== 'date' && k !== 'content-length');
              assert.deepEqual(headers(res), headers(notFound));
            }
          }
        }
      } finally {
        await server.close();
      }
    }),
    { numRuns: 25 },
  );
});
