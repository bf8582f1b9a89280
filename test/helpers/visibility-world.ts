// Random catalogs for the visibility property tests (API-key and JWT
// principals alike): tools with scopes, workflows over them, tenants with
// allowlists, an independent oracle of what each caller may see, and the HTTP
// checks that each caller's answers agree with it.
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { request, tempDir, writeConfig } from './server.js';

export const SCOPES = ['s1', 's2', 's3'];

/** Oracle glob matcher, written differently from the host's (recursive, no regex). */
export function globMatches(glob: string, id: string): boolean {
  if (glob.length === 0) return id.length === 0;
  if (glob[0] === '*') return globMatches(glob.slice(1), id) || (id.length > 0 && globMatches(glob, id.slice(1)));
  if (id.length === 0) return false;
  return (glob[0] === '?' || glob[0] === id[0]) && globMatches(glob.slice(1), id.slice(1));
}

export interface World<P> {
  tools: { vendor: string; name: string; scopes: string[] }[];
  workflows: { steps: string[]; scopes: string[] }[];
  allowlists: string[][];
  principals: P[];
}

/** A random world; `principal(tenantCount)` draws one caller description. */
export function worldArb<P>(principal: (tenantCount: number) => fc.Arbitrary<P>, sizes: { maxTools: number; maxWorkflows: number }): fc.Arbitrary<World<P>> {
  const toolArb = fc.record({ vendor: fc.constantFrom('a', 'b'), name: fc.stringMatching(/^[a-z]{1,5}$/), scopes: fc.subarray(SCOPES) });
  return fc
    .record({
      tools: fc.uniqueArray(toolArb, { minLength: 1, maxLength: sizes.maxTools, selector: (t) => `${t.vendor}-${t.name}` }),
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
        workflows: fc.array(fc.record({ steps: fc.array(fc.constantFrom(...ids), { minLength: 1, maxLength: 3 }), scopes: fc.subarray(SCOPES) }), { maxLength: sizes.maxWorkflows }),
        allowlists: fc.array(fc.array(globArb, { maxLength: 4 }), { minLength: tenantCount, maxLength: tenantCount }),
        principals: fc.array(principal(tenantCount), { minLength: 1, maxLength: 4 }),
      });
    });
}

/** Writes the world's tools, workflows and tenants (plus `extra` config keys) into a fresh config file. */
export function writeWorldConfig(world: World<unknown>, extra: Record<string, unknown>): string {
  const dir = tempDir();
  mkdirSync(join(dir, 'wf'));
  world.workflows.forEach((w, i) => writeFileSync(join(dir, 'wf', `w${i}.yaml`), JSON.stringify({ id: `w${i}`, scopes: w.scopes, steps: w.steps.map((tool) => ({ tool })) })));
  return writeConfig(
    {
      ...extra,
      tenants: Object.fromEntries(world.allowlists.map((tools, i) => [`t${i}`, { tools }])),
      sources: {
        hostExtensions: world.tools.map((t) => ({ vendor: t.vendor, name: t.name, command: ['true'], scopes: t.scopes })),
        workflows: world.workflows.length > 0 ? [{ path: 'wf' }] : [],
      },
    },
    dir,
  );
}

/** Every toolId of the world, and the ids the oracle says a caller of `tenant` holding `scopes` sees (sorted). */
export function oracle(world: World<unknown>, tenant: number, scopes: readonly string[]): { universe: string[]; expected: string[] } {
  const toolScopes = new Map<string, string[]>(world.tools.map((t) => [`x-host-${t.vendor}-${t.name}`, t.scopes]));
  const steps = new Map<string, string[]>();
  world.workflows.forEach((w, i) => {
    toolScopes.set(`workflow:w${i}`, w.scopes);
    steps.set(`workflow:w${i}`, w.steps);
  });
  const allow = world.allowlists[tenant];
  const visible = (id: string): boolean =>
    allow.some((g) => globMatches(g, id)) && toolScopes.get(id)!.every((s) => scopes.includes(s)) && (steps.get(id) ?? []).every(visible);
  const universe = [...toolScopes.keys()];
  return { universe, expected: universe.filter(visible).sort() };
}

export const UNKNOWN_ID = 'x-host-z-nothing';

/** The caller's list and compact list equal `expected`; by-id is 200 exactly for them; every other 404 is byte-identical to an unknown id's, headers included. */
export async function assertCallerSees(url: string, token: string, universe: readonly string[], expected: readonly string[]): Promise<void> {
  const listed = (await request(url, '/tools', { token })).json().map((d: { toolId: string }) => d.toolId);
  assert.deepEqual(listed, expected);
  const compact = (await request(url, '/tools?view=compact', { token })).json().tools.map((d: { toolId: string }) => d.toolId);
  assert.deepEqual(compact, expected);
  const notFound = await request(url, `/tools/${UNKNOWN_ID}`, { token });
  assert.equal(notFound.status, 404);
  assert.doesNotMatch(notFound.text + JSON.stringify([...notFound.headers]), /scope/i);
  const headers = (r: typeof notFound) => [...r.headers].filter(([k]) => k !== 'date' && k !== 'content-length');
  for (const id of universe) {
    const res = await request(url, `/tools/${encodeURIComponent(id)}`, { token });
    if (expected.includes(id)) assert.equal(res.status, 200, id);
    else {
      assert.equal(res.status, 404, id);
      assert.equal(res.text, notFound.text);
      assert.deepEqual(headers(res), headers(notFound));
    }
  }
}
