// Ranking signals beyond words, in-process on the real CatalogStore: a request
// naming a product favours that product's source over another catalog with the
// same words; a source filter keeps one source; a request to read or to change
// holds back the tools that do the other; word vectors find a tool that
// shares no word with the request (and without them words alone rank); an
// operation without a title is searched by one made from its method and path.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import pino from 'pino';
import { CatalogSearch, type CatalogSearchOptions } from '../../src/catalog/search/catalog-search.js';
import { derivedTitle } from '../../src/catalog/search/documents.js';
import { WordVectors } from '../../src/catalog/search/word-vectors.js';
import { CatalogStore } from '../../src/catalog/store.js';
import { compileTenant, type Caller } from '../../src/catalog/visibility.js';
import { Policy } from '../../src/classify/policy.js';
import { createMetrics } from '../../src/observability/metrics.js';
import type { RawTool, ToolSource } from '../../src/sources/raw-tool.js';

function op(source: string, action: string, title: string, description: string, sourceTitle?: string): RawTool {
  return { source: 'connector', toolId: `connector:${source}.${action}`, origin: 'test', title, description, inputSchema: { type: 'object', properties: {} }, ...(sourceTitle ? { sourceTitle } : {}) };
}

function sourceOf(id: string, list: RawTool[]): ToolSource {
  return {
    id,
    kind: 'connector',
    start: async () => {},
    tools: () => list,
    health: () => ({ id, kind: 'connector', state: 'connected', toolCount: list.length }),
    stop: async () => {},
    owns: (toolId) => toolId.startsWith(`${id}.`),
    invoke: () => Promise.reject(new Error('a search test calls no tool')),
  };
}

// A big CRM whose words fit "people in the workspace" better than the small notes app's do.
const crm = [
  op('crm', 'listWorkspacePeople', 'List workspace people', 'Lists the people of a workspace.'),
  ...Array.from({ length: 30 }, (_, i) => op('crm', `getRecord${i}`, `Get record ${i}`, 'Returns one record of the workspace.')),
];
const notes = [
  op('notes', 'listUsers', 'List all users', 'Lists the members of the workspace.', 'Notion API'),
  op('notes', 'queryDatabase', 'Query a database', 'Rows of a database that match a filter.', 'Notion API'),
];
const pay = [
  op('pay', 'PostRefunds', '', 'Creates a refund of a charge.'),
  op('pay', 'DeleteCustomersCustomer', '', 'Permanently deletes a customer.'),
];
// Two operations on reviews: the submitting one's words fit "reviews gotten on the pull" better.
const review = [
  { ...op('code', 'submitReview', 'Submit a review for a pull', 'Submits the reviews gotten on a pull.'), derived: { safetyTier: 'write' as const } },
  { ...op('code', 'listReviews', 'List reviews', 'Lists reviews.'), derived: { safetyTier: 'read' as const } },
  // Two operations on comments: the listing one's words fit "comment on the issue" better.
  { ...op('code', 'listIssueComments', 'List issue comments', 'Lists the comments on an issue.'), derived: { safetyTier: 'read' as const } },
  { ...op('code', 'createComment', 'Create a comment', 'Adds a comment.'), derived: { safetyTier: 'write' as const } },
];

const store = new CatalogStore({
  sources: [sourceOf('connector:crm', crm), sourceOf('connector:notes', notes), sourceOf('connector:pay', pay), sourceOf('connector:code', review)],
  policy: new Policy({}),
  tenants: new Map([['t', compileTenant('t', ['*'])]]),
  logger: pino({ level: 'silent' }),
  metrics: createMetrics(),
});
store.initialBuild();
const caller: Caller = { tenant: 't', scopes: new Set() };
const ids = (s: CatalogSearch, q: string, sourceId?: string): string[] => s.search(caller, q, 5, sourceId ? { sourceId } : {}).hits.map((h) => h.entry.tool.descriptor.toolId);

test('a request that names a product favours that product\'s source', () => {
  const search = new CatalogSearch(store);
  assert.equal(ids(search, 'who are the people in my workspace')[0], 'connector:crm.listWorkspacePeople', 'without the product, words decide');
  assert.equal(ids(search, 'who are the people in my Notion workspace')[0], 'connector:notes.listUsers');
  const wordsOnly = new CatalogSearch(store, { signals: ['terms'] });
  assert.equal(ids(wordsOnly, 'who are the people in my Notion workspace')[0], 'connector:crm.listWorkspacePeople', 'the prior is what moves it');
});

test('a source filter keeps one source; a source the caller does not have matches nothing', () => {
  const search = new CatalogSearch(store);
  const found = ids(search, 'list the workspace people', 'connector:notes');
  assert.ok(found.length > 0 && found.every((id) => id.startsWith('connector:notes.')), JSON.stringify(found));
  assert.deepEqual(ids(search, 'list the workspace people', 'connector:elsewhere'), []);
});

test('a request that only asks to read holds back the tools known to change something', () => {
  const search = new CatalogSearch(store);
  assert.equal(ids(search, 'what reviews has this pull gotten')[0], 'connector:code.listReviews');
  assert.equal(ids(search, 'submit the reviews gotten on this pull')[0], 'connector:code.submitReview', 'a request to change something states no read intent');
  const wordsOnly = new CatalogSearch(store, { signals: ['terms'] });
  assert.equal(ids(wordsOnly, 'what reviews has this pull gotten')[0], 'connector:code.submitReview', 'the intent is what moves it');
});

test('a request that opens with a verb of change holds back the tools known only to read', () => {
  const search = new CatalogSearch(store);
  assert.equal(ids(search, 'comment on the issue')[0], 'connector:code.createComment');
  assert.equal(ids(search, 'what comments are on the issue')[0], 'connector:code.listIssueComments', 'a question states no change');
  const wordsOnly = new CatalogSearch(store, { signals: ['terms'] });
  assert.equal(ids(wordsOnly, 'comment on the issue')[0], 'connector:code.listIssueComments', 'the intent is what moves it');
});

/** Hand-made vectors: "money" and "back" lie near "refund"; "remove" near "delete". */
function vectors(): WordVectors {
  const rows: Record<string, number[]> = { refund: [1, 0, 0, 0], money: [0.8, 0.2, 0, 0], back: [0.7, 0, 0.3, 0], delete: [0, 1, 0, 0], remove: [0, 0.9, 0.1, 0], customer: [0, 0, 0, 1], charge: [0.5, 0, 0, 0.5] };
  const words = Object.keys(rows);
  // Ranks past the common words, so each weighs fully.
  const padded = [...Array.from({ length: 50_000 }, (_, i) => `w${i}`), ...words];
  const data = new Int8Array(padded.length * 4);
  words.forEach((w, i) => {
    const v = rows[w];
    const n = Math.hypot(...v);
    v.forEach((x, d) => (data[(50_000 + i) * 4 + d] = Math.round((x / n) * 127)));
  });
  return new WordVectors(4, padded, data);
}

test('word vectors find a tool that shares no word with the request; without them words alone rank', async () => {
  const v = vectors();
  const options: CatalogSearchOptions = { wordVectors: async () => v };
  const search = new CatalogSearch(store, options);
  await search.whenReady();
  assert.equal(ids(search, 'give the money back')[0], 'connector:pay.PostRefunds');
  const none = new CatalogSearch(store, { wordVectors: async () => undefined });
  await none.whenReady();
  assert.ok(!ids(none, 'give the money back').includes('connector:pay.PostRefunds'), 'no vectors (the package missing): no shared word, no match');
});

test('an operation without a title gets one from its method and path', () => {
  assert.equal(derivedTitle(['POST', '/v1/refunds']), 'create refunds');
  assert.equal(derivedTitle(['GET', '/v1/refunds']), 'list refunds');
  assert.equal(derivedTitle(['billing', 'GET', '/v1/customers/{customer}']), 'get customers');
  assert.equal(derivedTitle(['POST', '/v1/invoices/{invoice}/finalize']), 'finalize invoices');
  assert.equal(derivedTitle(['POST', '/2010-04-01/Accounts/{AccountSid}/Messages.json']), 'create Messages', 'the owner every path starts with is no part of the name');
  assert.equal(derivedTitle(['GET', '/2010-04-01/Accounts/{AccountSid}/Balance.json']), 'get Balance');
  assert.equal(derivedTitle(['POST', '/v1/customers/{customer}/subscriptions']), 'create subscriptions');
  assert.equal(derivedTitle(['GET', '/v1/issuing/cards/{card}']), 'get issuing cards');
  assert.equal(derivedTitle(['DELETE', '/v1/coupons/{coupon}']), 'delete coupons');
  assert.equal(derivedTitle(['conversations', 'POST', '/conversations.kick']), 'conversations kick', 'an RPC-style method names its own action');
  assert.equal(derivedTitle(['GET', '/admin.apps.approved.list']), 'admin apps approved list');
  assert.equal(derivedTitle(['tag only']), undefined);
});
