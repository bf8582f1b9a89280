// A search that arrives while a large change is being filed files the tools
// of its own view, not the others', and answers as once everything is filed.
// A view's index kept up to date across swaps (only the tools the table filed
// again unmarked and marked, when the view keeps its tools; every slot
// marked again otherwise) answers exactly as one made afresh: hundreds of
// tools, three tenants with overlapping views, random rewordings, removals
// and additions, and views searched at some swaps only, so one view catches
// up over several swaps at once.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import pino from 'pino';
import { CatalogSearch, type CatalogSearchOptions } from '../../src/catalog/search/catalog-search.js';
import { embeddingText } from '../../src/catalog/search/endpoint-vectors.js';
import { CatalogStore } from '../../src/catalog/store.js';
import { compileTenant, type Caller } from '../../src/catalog/visibility.js';
import { Policy } from '../../src/classify/policy.js';
import { createMetrics } from '../../src/observability/metrics.js';
import type { RawTool } from '../../src/sources/raw-tool.js';
import { prng } from '../compact/support/random.js';
import { startEmbeddingsServer } from '../helpers/embeddings-server.js';
import { MutableSource } from './mutable-source.js';

const VOCABULARY = 'list create delete update ticket invoice comment repository issue user file folder report archive export search label message star note deploy calendar event contact payment refund dispute channel team project'.split(' ');
const QUERIES = ['list tickets', 'delete a comment', 'export the report', 'refund a payment', 'search users by label', 'archive old messages', 'calendar event for the team'];
const TENANTS: Record<string, string[]> = { all: ['*'], a: ['openwop:a*'], mixed: ['openwop:a1*', 'openwop:b*'] };

function rawTool(name: string, r: () => number, revision: number): RawTool {
  const words = Array.from({ length: 2 + Math.floor(r() * 6) }, () => VOCABULARY[Math.floor(r() * VOCABULARY.length)]);
  return {
    source: 'node-pack',
    toolId: `openwop:${name}`,
    origin: 'test',
    title: words.slice(0, 2).join(' '),
    description: `${words.join(' ')} revision ${revision}`,
    inputSchema: { type: 'object', properties: Object.fromEntries(words.slice(2, 4).map((w) => [`${w}Id`, { type: 'string', description: `the ${w}` }])) },
  };
}

async function refresh(store: CatalogStore): Promise<void> {
  const before = store.current();
  store.scheduleRebuild();
  while (store.current() === before) await new Promise((r) => setImmediate(r));
}

const caller = (tenant: string): Caller => ({ tenant, scopes: new Set() });
const answers = (search: CatalogSearch, tenant: string): unknown[] =>
  QUERIES.map((q) => search.search(caller(tenant), q, 15)).map((a) => ({ total: a.total, hits: a.hits.map((h) => [h.entry.tool.descriptor.toolId, h.score]) }));

/** A swap: some tools reworded in place (the same ids in the same order), or some removed and others added. */
const stepArb = fc.record({ kind: fc.constantFrom('reword', 'reword', 'churn', 'none'), share: fc.double({ min: 0, max: 0.08, noNaN: true }), searched: fc.subarray(Object.keys(TENANTS)) });

test('property: views marked from the table\'s changes answer as views made afresh', async () => {
  await fc.assert(
    fc.asyncProperty(fc.integer({ min: 0, max: 1e6 }), fc.integer({ min: 200, max: 900 }), fc.array(stepArb, { minLength: 1, maxLength: 5 }), async (seed, count, steps) => {
      const r = prng(seed);
      let next = 0;
      const name = (): string => `${'ab'[next % 2]}${next++}`;
      const source = new MutableSource(Array.from({ length: count }, () => rawTool(name(), r, 0)));
      const store = new CatalogStore({ sources: [source], policy: new Policy({}), tenants: new Map(Object.entries(TENANTS).map(([id, globs]) => [id, compileTenant(id, globs)])), logger: pino({ level: 'silent' }), metrics: createMetrics() });
      store.initialBuild();
      const kept = new CatalogSearch(store);
      for (const tenant of Object.keys(TENANTS)) answers(kept, tenant);
      let revision = 0;
      for (const step of steps) {
        revision++;
        const n = Math.max(1, Math.floor(source.list.length * step.share));
        if (step.kind === 'reword') {
          const list = [...source.list];
          for (let i = 0; i < n; i++) {
            const at = Math.floor(r() * list.length);
            list[at] = rawTool(list[at].toolId.slice('openwop:'.length), r, revision);
          }
          source.list = list;
        } else if (step.kind === 'churn') {
          const list = source.list.filter(() => r() > step.share);
          for (let i = 0; i < n; i++) list.splice(Math.floor(r() * list.length), 0, rawTool(name(), r, revision));
          source.list = list;
        } else source.list = [...source.list];
        await refresh(store);
        for (const tenant of step.searched) answers(kept, tenant);
      }
      const fresh = new CatalogSearch(store);
      for (const tenant of Object.keys(TENANTS)) assert.deepEqual(answers(kept, tenant), answers(fresh, tenant), tenant);
      kept.close();
      fresh.close();
    }),
    { numRuns: 25 },
  );
});

/** A search while 3,000 tools join at once: what it filed, and its answers against a search made afresh once all are filed. */
async function searchDuringFiling(options: CatalogSearchOptions): Promise<CatalogStore> {
  const r = prng(7);
  let next = 0;
  const tools = Array.from({ length: 3000 }, () => rawTool(`${'ab'[next % 2]}${next++}`, r, 0));
  const source = new MutableSource(tools.filter((t) => t.toolId.startsWith('openwop:a1')));
  const store = new CatalogStore({ sources: [source], policy: new Policy({}), tenants: new Map(Object.entries(TENANTS).map(([id, globs]) => [id, compileTenant(id, globs)])), logger: pino({ level: 'silent' }), metrics: createMetrics() });
  store.initialBuild();
  const search = new CatalogSearch(store, options);
  await search.whenReady();
  // Every tool joins at once: more than is filed on the swap's own turn.
  source.list = tools;
  await refresh(store);
  const during = answers(search, 'mixed');
  const { filed } = search.stats();
  const mixed = store.current().viewFor(caller('mixed')).entries.length;
  assert.ok(filed < tools.length, `the other tools wait for the background (${filed} of ${tools.length} filed, the view holds ${mixed})`);
  await search.whenReady();
  assert.equal(search.stats().filed, tools.length);
  const fresh = new CatalogSearch(store);
  assert.deepEqual(during, answers(fresh, 'mixed'));
  assert.deepEqual(answers(search, 'all'), answers(fresh, 'all'));
  search.close();
  fresh.close();
  return store;
}

test('a search during the background filing files its own view\'s tools only, and answers as after it', async () => {
  await searchDuringFiling({});
});

test('with an embeddings endpoint too, such a search files its own view\'s tools only (the endpoint follows what is filed)', async () => {
  const model = await startEmbeddingsServer('ok');
  try {
    const store = await searchDuringFiling({ embeddings: { endpoint: { url: model.url, model: 'stand-in' }, queryTimeoutMs: 5000, weight: 1, log: () => {} } });
    const texts = new Set(store.current().entries.map(embeddingText));
    assert.deepEqual(new Set(model.texts), texts, 'once filed, every tool text was asked for');
    assert.equal(model.texts.length, texts.size, 'and none twice');
  } finally {
    await model.close();
  }
});
