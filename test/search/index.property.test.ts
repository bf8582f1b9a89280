// The search index in-process, on the real CatalogStore fed by a source whose
// tools the test changes: a refresh that changes one tool changes one index
// document (counted, not timed); an index kept up to date across random
// refreshes answers as one built afresh; and a caller's answers never depend
// on tools it cannot see (random catalogs, random invisible extras).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import pino from 'pino';
import { CatalogSearch } from '../../src/catalog/search/catalog-search.js';
import { CatalogStore } from '../../src/catalog/store.js';
import { compileTenant, type Caller } from '../../src/catalog/visibility.js';
import { Policy } from '../../src/classify/policy.js';
import { createMetrics } from '../../src/observability/metrics.js';
import type { RawTool, ToolSource } from '../../src/sources/raw-tool.js';
import { MutableSource } from './mutable-source.js';

const VOCABULARY = 'list create delete update ticket invoice comment repository issue user file folder report archive export search label message star note'.split(' ');

function rawTool(name: string, words: readonly string[], revision = 0): RawTool {
  return {
    source: 'node-pack',
    toolId: `openwop:${name}`,
    origin: 'test',
    title: words.slice(0, 2).join(' '),
    description: `${words.join(' ')}${revision > 0 ? ` revision ${revision}` : ''}`,
    inputSchema: { type: 'object', properties: Object.fromEntries(words.slice(2, 4).map((w) => [`${w}Id`, { type: 'string', description: `the ${w}` }])) },
  };
}

function storeOf(source: ToolSource, tenants: Record<string, string[]>): CatalogStore {
  return new CatalogStore({
    sources: [source],
    policy: new Policy({}),
    tenants: new Map(Object.entries(tenants).map(([id, globs]) => [id, compileTenant(id, globs)])),
    logger: pino({ level: 'silent' }),
    metrics: createMetrics(),
  });
}

/** A rebuild as a source change triggers it: scheduled, then run on the next turn of the event loop. */
async function refresh(store: CatalogStore): Promise<void> {
  const before = store.current();
  store.scheduleRebuild();
  while (store.current() === before) await new Promise((r) => setImmediate(r));
}

const caller = (tenant: string): Caller => ({ tenant, scopes: new Set() });
const QUERIES = ['list tickets', 'delete a comment', 'export the report', 'star a repository', 'search users by label', 'archive old messages'];

function answers(search: CatalogSearch, who: Caller): unknown[] {
  return QUERIES.map((q) => search.search(who, q, 20)).map((a) => ({ total: a.total, hits: a.hits.map((h) => [h.entry.tool.descriptor.toolId, h.score]) }));
}

test('a refresh that changes one tool of 2,000 changes one index document; tools are filed once, before the first search', async () => {
  const tools = Array.from({ length: 2000 }, (_, i) => rawTool(`t${String(i).padStart(4, '0')}`, [VOCABULARY[i % VOCABULARY.length], VOCABULARY[(i * 7) % VOCABULARY.length], VOCABULARY[(i * 3) % VOCABULARY.length], 'item']));
  const source = new MutableSource(tools);
  const store = storeOf(source, { all: ['*'], half: ['openwop:t0*'] });
  store.initialBuild();
  const search = new CatalogSearch(store);
  await search.whenReady();
  assert.deepEqual({ ...search.stats() }, { added: 0, removed: 0, replaced: 0, indexes: 0, filed: 2000 }, 'every tool filed in the background, before any search');
  search.search(caller('all'), 'ticket', 5);
  search.search(caller('half'), 'ticket', 5);
  const built = search.stats();
  assert.deepEqual({ ...built }, { added: 3000, removed: 0, replaced: 0, indexes: 2, filed: 2000 }, 'one index per visible set, each made once, of tools filed once');

  // One tool's content changes (the source hands back the other RawTools as they were).
  source.list = tools.map((t, i) => (i === 5 ? rawTool('t0005', ['invoice', 'export', 'report', 'item'], 1) : t));
  await refresh(store);
  assert.deepEqual({ ...search.stats() }, { added: 3000, removed: 0, replaced: 2, indexes: 2, filed: 2001 }, 'the tool is in both indexes: one replacement each, filed once');
  assert.equal(search.search(caller('all'), 'revision', 5).hits[0]?.entry.tool.descriptor.toolId, 'openwop:t0005');

  // A tool only the `all` tenant sees is removed, another added.
  source.list = [...source.list.filter((t) => t.toolId !== 'openwop:t1999'), rawTool('t2000', ['star', 'repository', 'user', 'item'])];
  await refresh(store);
  assert.deepEqual({ ...search.stats() }, { added: 3001, removed: 1, replaced: 2, indexes: 2, filed: 2002 });

  // A refresh that changed nothing touches nothing.
  source.list = [...source.list];
  await refresh(store);
  assert.deepEqual({ ...search.stats() }, { added: 3001, removed: 1, replaced: 2, indexes: 2, filed: 2002 });
  search.close();
});

const toolArb = fc.record({ name: fc.stringMatching(/^[a-z]{1,6}$/), words: fc.array(fc.constantFrom(...VOCABULARY), { minLength: 1, maxLength: 6 }) });
const catalogArb = fc.uniqueArray(toolArb, { minLength: 1, maxLength: 25, selector: (t) => t.name });

test('property: an index kept up to date across refreshes answers as a fresh one', async () => {
  await fc.assert(
    fc.asyncProperty(catalogArb, fc.array(catalogArb, { minLength: 1, maxLength: 4 }), async (first, later) => {
      const source = new MutableSource(first.map((t) => rawTool(t.name, t.words)));
      const store = storeOf(source, { t: ['*'] });
      store.initialBuild();
      const kept = new CatalogSearch(store);
      answers(kept, caller('t'));
      let names = first.map((t) => t.name);
      for (const next of later) {
        // The same tools in the same order, some reworded (the usual refresh), then the next catalog.
        const reworded = names.map((name, i) => ({ name, words: i % 2 === 0 ? next[i % next.length].words : undefined }));
        for (const step of [reworded, next]) {
          // Tools whose content did not change are handed back as the same objects, as sources do.
          const before = new Map(source.list.map((t) => [t.toolId, t]));
          source.list = step.map((t) => {
            const old = before.get(`openwop:${t.name}`);
            const fresh = t.words === undefined ? old! : rawTool(t.name, t.words);
            return old !== undefined && JSON.stringify(old) === JSON.stringify(fresh) ? old : fresh;
          });
          await refresh(store);
          const fresh = new CatalogSearch(store);
          assert.deepEqual(answers(kept, caller('t')), answers(fresh, caller('t')));
          fresh.close();
        }
        names = next.map((t) => t.name);
      }
      kept.close();
    }),
    { numRuns: 60 },
  );
});

test('property: answers never depend on tools the caller cannot see', () => {
  fc.assert(
    fc.property(catalogArb, catalogArb, (visible, hidden) => {
      const seen = new Set(visible.map((t) => t.name));
      const extra = hidden.filter((t) => !seen.has(t.name));
      // `a` sees the `v` tools; the `h` tools exist only in the second catalog, for tenant `b`.
      const alone = storeOf(new MutableSource(visible.map((t) => rawTool(`v.${t.name}`, t.words))), { a: ['openwop:v.*'], b: ['*'] });
      const crowded = storeOf(new MutableSource([...visible.map((t) => rawTool(`v.${t.name}`, t.words)), ...extra.map((t) => rawTool(`h.${t.name}`, t.words))]), { a: ['openwop:v.*'], b: ['*'] });
      alone.initialBuild();
      crowded.initialBuild();
      const [s1, s2] = [new CatalogSearch(alone), new CatalogSearch(crowded)];
      assert.deepEqual(answers(s2, caller('a')), answers(s1, caller('a')));
      s1.close();
      s2.close();
    }),
    { numRuns: 100 },
  );
});
