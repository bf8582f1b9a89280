// MCP names by meaning (docs/mcp.md "Names"): a tool keeps its whole
// readable name when it fits and is its own; otherwise it gets the shortest
// readable form no other tool of the view holds (source prefix dropped,
// group prefix and long words abbreviated), and a hash only when every
// readable form is taken. A function of the set of tools, never of read order.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { assignMcpNames, readableMcpName, type McpNamingInput } from '../../src/catalog/tool-names.js';
import { readableForms } from '../../src/catalog/tool-name-forms.js';

const HASHED = /_[0-9a-f]{8,}$/;
const word = fc.constantFrom('list', 'get', 'set', 'repository', 'organization', 'runner', 'self-hosted', 'permissions', 'for', 'a', 'b');
const group = fc.constantFrom('actions', 'code-security', 'apps', 'orgs', 'repos');
// Operation names like GitHub's, long enough that the whole toolId often does not fit in 64 characters.
const action = fc.tuple(group, fc.array(word, { minLength: 1, maxLength: 9 })).map(([g, ws]) => `${g}/${ws.join('-')}`);
const toolArb: fc.Arbitrary<McpNamingInput> = fc.oneof(
  fc.tuple(fc.constantFrom('github', 'gh2'), action, fc.option(fc.constantFrom('', 'gh'), { nil: undefined })).map(([c, a, mcpPrefix]) => ({
    toolId: `connector:${c}.${a}`,
    ...(mcpPrefix !== undefined && c === 'gh2' ? { mcpPrefix } : {}),
  })),
  fc.tuple(fc.constantFrom('s', 'srv'), action).map(([s, a]) => ({ toolId: `mcp:${s}.${a.replace('/', '.')}` })),
  action.map((a) => ({ toolId: `openwop:${a.replace('/', '.')}` })),
  action.map((a) => ({ toolId: `workflow:${a.replace('/', '.')}` })),
  fc.tuple(fc.constantFrom('acme', 'x'), action).map(([v, a]) => ({ toolId: `x-host-${v}-${a.replace('/', '.')}` })),
);
const catalogArb = fc.uniqueArray(toolArb, { minLength: 1, maxLength: 40, selector: (t) => t.toolId });

test('names are unique, valid, reversible and independent of read order', () => {
  fc.assert(
    fc.property(catalogArb, fc.integer(), (tools, seed) => {
      const names = assignMcpNames(tools);
      const shuffled = [...tools].sort((a, b) => ((a.toolId.length * 31 + seed) % 7) - ((b.toolId.length * 31 + seed) % 7) || (b.toolId < a.toolId ? -1 : 1));
      assert.deepEqual([...assignMcpNames(shuffled).byToolId].sort(), [...names.byToolId].sort(), 'read order changed a name');
      assert.equal(names.byToolId.size, tools.length);
      assert.equal(names.byName.size, tools.length, 'names are unique');
      for (const [id, name] of names.byToolId) {
        assert.match(name, /^[A-Za-z0-9_-]{1,64}$/);
        assert.equal(names.byName.get(name), id);
      }
    }),
    { numRuns: 300 },
  );
});

test('a tool is hashed only when every readable form of it is held by another tool', () => {
  fc.assert(
    fc.property(catalogArb, (tools) => {
      const names = assignMcpNames(tools);
      const formsOf = new Map(tools.map((t) => [t.toolId, readableForms(t).map((f) => f.name)]));
      for (const t of tools) {
        const name = names.byToolId.get(t.toolId)!;
        const readable = formsOf.get(t.toolId)!;
        if (readable.includes(name)) continue;
        assert.match(name, HASHED, `${t.toolId} got ${name}, neither readable nor hashed`);
        for (const form of readable) {
          const rival = tools.some((o) => o.toolId !== t.toolId && formsOf.get(o.toolId)!.includes(form));
          assert.ok(rival, `${t.toolId} was hashed though ${form} is no other tool's`);
        }
      }
    }),
    { numRuns: 300 },
  );
});

test('a whole readable name that fits and is no other tool\'s form is kept as it is', () => {
  fc.assert(
    fc.property(catalogArb, (tools) => {
      const names = assignMcpNames(tools);
      const formsOf = new Map(tools.map((t) => [t.toolId, readableForms(t).map((f) => f.name)]));
      for (const t of tools) {
        if (t.mcpPrefix !== undefined) continue;
        const whole = readableMcpName(t.toolId);
        const claimed = tools.some((o) => o.toolId !== t.toolId && formsOf.get(o.toolId)!.includes(whole));
        if (whole.length <= 64 && !claimed) assert.equal(names.byToolId.get(t.toolId), whole);
      }
    }),
    { numRuns: 300 },
  );
});

test('too long a name drops its source prefix, then abbreviates; mcpPrefix replaces the prefix', () => {
  const long = 'connector:github.actions/list-selected-repositories-self-hosted-runners-organization';
  const longer = 'connector:github.orgs/custom-properties-for-repos-create-or-update-organization-definitions';
  const names = assignMcpNames([long, longer, 'connector:github.repos/get', { toolId: 'mcp:fs.read_file', mcpPrefix: 'files' }, { toolId: 'mcp:x.ping', mcpPrefix: '' }]);
  assert.equal(names.byToolId.get(long), 'actions_list-selected-repos-self-hosted-runners-org');
  assert.equal(names.byToolId.get(longer), 'orgs_custom-properties-for-repos-create-or-update-org-defs');
  assert.equal(names.byToolId.get('connector:github.repos/get'), 'connector__github_repos_get');
  assert.equal(names.byToolId.get('mcp:fs.read_file'), 'files_read_file');
  assert.equal(names.byToolId.get('mcp:x.ping'), 'ping');
});

test('the same long operation in two connectors keeps each source\'s prefix before hashing', () => {
  const op = 'actions/list-selected-repositories-self-hosted-runners-organization';
  const names = assignMcpNames([`connector:github.${op}`, `connector:ghe.${op}`]);
  for (const name of names.byToolId.values()) assert.doesNotMatch(name, HASHED);
  assert.equal(names.byName.size, 2);
});
