// The host names of upstream resources and prompts (docs/mcp.md "Resources
// and prompts"): injective over (server, upstream URI or name), stable (a
// function of those two only, whatever else the catalog holds), reversible,
// and a template's expansion under its host name reads the upstream's
// expansion.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { UriTemplate } from '@modelcontextprotocol/sdk/shared/uriTemplate.js';
import { ItemsSnapshot, compileItemRules } from '../../src/catalog/resources-prompts.js';
import { hostPromptName, hostUri, promptOf, upstreamOf } from '../../src/catalog/resource-uri.js';
import { Policy } from '../../src/classify/policy.js';
import type { McpItemLists } from '../../src/sources/mcp/resources.js';

// Server ids as configs allow them, built to look alike; URIs and names with the characters that could confuse a split.
const serverArb = fc.stringMatching(/^[a-c0-9][a-c0-9_-]{0,6}$/);
const uriArb = fc.oneof(fc.stringMatching(/^[a-c]{1,3}:\/{0,3}[a-c./:_%?#{}-]{0,12}$/), fc.string({ maxLength: 16 }));
const nameArb = fc.oneof(fc.stringMatching(/^[a-c._-]{1,8}$/), fc.string({ minLength: 1, maxLength: 12 }));

test('host URIs: injective, reversible, a function of (server, uri) alone', () => {
  fc.assert(
    fc.property(serverArb, uriArb, serverArb, uriArb, (s1, u1, s2, u2) => {
      assert.deepEqual(upstreamOf(hostUri(s1, u1)), { serverId: s1, uri: u1 });
      assert.equal(hostUri(s1, u1) === hostUri(s2, u2), s1 === s2 && u1 === u2);
    }),
    { numRuns: 2000 },
  );
});

test('host prompt names: injective and reversible', () => {
  fc.assert(
    fc.property(serverArb, nameArb, serverArb, nameArb, (s1, n1, s2, n2) => {
      assert.deepEqual(promptOf(hostPromptName(s1, n1)), { serverId: s1, name: n1 });
      assert.equal(hostPromptName(s1, n1) === hostPromptName(s2, n2), s1 === s2 && n1 === n2);
    }),
    { numRuns: 2000 },
  );
});

test('a catalog\'s host names are stable: the same whatever other servers offer', () => {
  const lists = (uris: string[], prompts: string[]): McpItemLists => ({
    resources: uris.map((uri) => ({ uri, name: uri })),
    templates: [],
    prompts: prompts.map((name) => ({ name })),
    subscribe: false,
    completions: false,
  });
  const all = new Map([['acme', compileItemRules(['*'], ['*'])]]);
  fc.assert(
    fc.property(
      fc.uniqueArray(uriArb, { maxLength: 6 }),
      fc.uniqueArray(nameArb, { maxLength: 6 }),
      fc.uniqueArray(uriArb, { maxLength: 6 }),
      fc.uniqueArray(nameArb, { maxLength: 6 }),
      (uris, prompts, otherUris, otherPrompts) => {
        const alone = new ItemsSnapshot(new Map([['s', lists(uris, prompts)]]), all, new Policy({}));
        const crowded = new ItemsSnapshot(new Map([['s', lists(uris, prompts)], ['t', lists(otherUris, otherPrompts)]]), all, new Policy({}));
        const caller = { tenant: 'acme', scopes: new Set<string>() };
        const mine = (snap: ItemsSnapshot) => snap.viewFor(caller).resources.filter((r) => r.serverId === 's').map((r) => [r.uri, r.wire._meta?.['toolhost/upstreamUri']]);
        assert.deepEqual(mine(crowded), mine(alone));
        // What a tenant that sees only server s lists (and so whether it is told of a change) does not depend on t.
        const onlyS = new Map([['s-only', compileItemRules(['mcp:s:*'], ['mcp:s.*'])]]);
        const view = (t: McpItemLists) => new ItemsSnapshot(new Map([['s', lists(uris, prompts)], ['t', t]]), onlyS, new Policy({})).viewFor({ tenant: 's-only', scopes: new Set() });
        const [before, after] = [view(lists([], [])), view(lists(otherUris, otherPrompts))];
        assert.equal(after.resourcesKey, before.resourcesKey);
        assert.equal(after.promptsKey, before.promptsKey);
        assert.equal(new Set(crowded.viewFor(caller).resources.map((r) => r.uri)).size, uris.length + otherUris.length);
        assert.equal(new Set(crowded.viewFor(caller).prompts.map((p) => p.name)).size, prompts.length + otherPrompts.length);
      },
    ),
    { numRuns: 300 },
  );
});

test('a template expanded under its host name is the host name of the upstream expansion', () => {
  fc.assert(
    fc.property(serverArb, fc.stringMatching(/^[a-z0-9]{1,8}$/), (server, id) => {
      const upstream = 'demo://resource/dynamic/text/{resourceId}';
      const expanded = new UriTemplate(hostUri(server, upstream)).expand({ resourceId: id });
      assert.equal(expanded, hostUri(server, new UriTemplate(upstream).expand({ resourceId: id })));
      assert.deepEqual(new UriTemplate(upstream).match(upstreamOf(expanded)!.uri), { resourceId: id });
    }),
  );
});
