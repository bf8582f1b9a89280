// MCP names per caller view (docs/mcp.md "Names"): a caller's name map is a
// function of the toolIds it can see, so tools of another tenant (or behind
// scopes it lacks) never rename its tools; names stay unique, MCP-safe and
// reversible.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { buildCatalog } from '../../src/catalog/build.js';
import { CatalogSnapshot } from '../../src/catalog/snapshot.js';
import { compileTenant } from '../../src/catalog/visibility.js';
import { Policy } from '../../src/classify/policy.js';
import type { RawTool } from '../../src/sources/raw-tool.js';

const raw = (toolId: string): RawTool => ({ source: 'mcp', toolId, origin: 'test', description: toolId });

// Names built to collide once made MCP-safe (`.` `/` and `_` all become `_`), and some too long for 64 characters.
const nameArb = fc.oneof(
  fc.stringMatching(/^[a-c][a-c._/-]{0,5}$/),
  fc.stringMatching(/^[a-c._]{1,4}$/).map((tail) => `${'long'.repeat(16)}${tail}`),
);
const idArb = fc.tuple(fc.constantFrom('mcp:s.', 'mcp:s_', 'openwop:'), nameArb).map(([prefix, name]) => `${prefix}${name}`);

function namesOf(visible: readonly string[], hidden: readonly string[]) {
  const all = [...new Set([...visible, ...hidden])];
  const { tools } = buildCatalog(all.map(raw), new Policy({}));
  const mine = new Set(visible);
  // "me" may see exactly `visible` (the allowlist names each id; no id holds a glob character).
  const tenants = new Map([
    ['me', { id: 'me', allows: (id: string) => mine.has(id) }],
    ['other', compileTenant('other', ['*'])],
  ]);
  const snapshot = new CatalogSnapshot(tools, tenants, 1);
  // The other tenant's view is made first, as a host serving both would.
  snapshot.viewFor({ tenant: 'other', scopes: new Set() }).mcpNames;
  return snapshot.viewFor({ tenant: 'me', scopes: new Set() }).mcpNames;
}

test('a caller\'s names depend only on its own visible toolIds; unique, MCP-safe, reversible', () => {
  fc.assert(
    fc.property(fc.uniqueArray(idArb, { minLength: 1, maxLength: 12 }), fc.uniqueArray(idArb, { maxLength: 12 }), (visible, others) => {
      const hidden = others.filter((id) => !visible.includes(id));
      const alone = namesOf(visible, []);
      const crowded = namesOf(visible, hidden);
      assert.deepEqual([...crowded.byToolId].sort(), [...alone.byToolId].sort(), 'hidden tools changed a visible name');
      assert.deepEqual([...crowded.byToolId.keys()].sort(), [...visible].sort(), 'exactly the visible tools are named');
      const names = [...crowded.byToolId.values()];
      assert.equal(new Set(names).size, names.length, 'names are unique');
      for (const [id, name] of crowded.byToolId) {
        assert.match(name, /^[A-Za-z0-9_-]{1,64}$/);
        assert.equal(crowded.byName.get(name), id, 'the name maps back to its toolId');
      }
      // Nothing hidden is reachable by name.
      for (const id of hidden) assert.ok(![...crowded.byName.values()].includes(id));
    }),
    { numRuns: 300 },
  );
});

test('a colliding tool of another tenant leaves this tenant\'s readable name alone', () => {
  const names = namesOf(['mcp:s.a_b'], ['mcp:s.a.b']);
  assert.equal(names.byToolId.get('mcp:s.a_b'), 'mcp__s_a_b');
  assert.equal(names.byName.get('mcp__s_a_b'), 'mcp:s.a_b');
});
