// Property test of the one visibility rule over HTTP (issue 2 item 5): random
// tenants, tools, workflows, allowlists and scopes. Each caller's list equals
// an independent oracle and the set of ids whose by-id answers 200; every other
// id's 404 is byte-identical to an unknown id's.
import assert from 'node:assert/strict';
import { writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import fc from 'fast-check';
import { hashApiKey } from '../../src/auth/api-keys.js';
import { request, startTestServer, tempDir, writeConfig } from '../helpers/server.js';

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
    tools: fc.uniqueArray(toolArb, { minLength: 1, maxLength: 10, selector: (t) => `${t.vendor}-${t.name}` }),
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
      workflows: fc.array(fc.record({ steps: fc.array(fc.constantFrom(...ids), { minLength: 1, maxLength: 3 }), scopes: fc.subarray(SCOPES) }), { maxLength: 3 }),
      allowlists: fc.array(fc.array(globArb, { maxLength: 4 }), { minLength: tenantCount, maxLength: tenantCount }),
      principals: fc.array(fc.record({ tenant: fc.integer({ min: 0, max: tenantCount - 1 }), scopes: fc.subarray(SCOPES) }), { minLength: 1, maxLength: 4 }),
    });
  });

test('visibility: list = oracle = ids answering 200; all other 404s byte-identical', async () => {
  await fc.assert(
    fc.asyncProperty(worldArb, async (world) => {
      const dir = tempDir();
      mkdirSync(join(dir, 'wf'));
      world.workflows.forEach((w, i) => writeFileSync(join(dir, 'wf', `w${i}.yaml`), JSON.stringify({ id: `w${i}`, scopes: w.scopes, steps: w.steps.map((tool) => ({ tool })) })));
      const tenants = Object.fromEntries(world.allowlists.map((tools, i) => [`t${i}`, { tools }]));
      const principals = world.principals.map((p, i) => ({ id: `p${i}`, tenant: `t${p.tenant}`, scopes: p.scopes, keyHash: hashApiKey(`key-${i}`) }));
      const file = writeConfig(
        {
          tenants,
          principals,
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
        for (let i = 0; i < principals.length; i++) {
          const p = world.principals[i];
          const allow = world.allowlists[p.tenant];
          const visible = (id: string): boolean =>
            allow.some((g) => globMatches(g, id)) &&
            toolScopes.get(id)!.every((s) => p.scopes.includes(s)) &&
            (steps.get(id) ?? []).every(visible);
          const expected = universe.filter(visible).sort();
          const token = `key-${i}`;
          const listed = (await request(server.url, '/tools', { token })).json().map((d: { toolId: string }) => d.toolId);
          assert.deepEqual(listed, expected);
          const compact = (await request(server.url, '/tools?view=compact', { token })).json().tools.map((d: { toolId: string }) => d.toolId);
          assert.deepEqual(compact, expected);
          const notFound = await request(server.url, `/tools/${unknownId}`, { token });
          assert.equal(notFound.status, 404);
          for (const id of universe) {
            const res = await request(server.url, `/tools/${encodeURIComponent(id)}`, { token });
            if (expected.includes(id)) assert.equal(res.status, 200, id);
            else {
              assert.equal(res.status, 404, id);
              assert.equal(res.text, notFound.text);
            }
          }
        }
      } finally {
        await server.close();
      }
    }),
    { numRuns: 30 },
  );
});
