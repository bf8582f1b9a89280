// GET /tool-search on a real host: ranking sanity, the error envelope and its
// bounds, and scoping: a caller only ever finds tools GET /tools lists for
// it, and another tenant's tools changing leaves its results, scores and
// totals exactly as they were.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { after, before, test } from 'node:test';
import { request, startTestServer, type TestServer } from '../helpers/server.js';
import { ACME, ACME_NARROW, GLOBEX, PRIVATE_OPS, privateDocument, waitFor, writeSearchWorld, type SearchWorld } from './world.js';

let server: TestServer;
let world: SearchWorld;

before(async () => {
  // Words alone (search.meaning false): these cases pin the term index's answers exactly; meaning is tested in sources-meaning.test.ts.
  world = writeSearchWorld({ search: { synonyms: [['ledger', 'bookkeeping']], meaning: false } });
  server = await startTestServer(world.configFile);
});
after(async () => server?.close());

async function search(key: string, query: string): Promise<any> {
  const res = await request(server.url, `/tool-search?${query}`, { token: key });
  assert.equal(res.status, 200, res.text);
  assert.equal(res.headers.get('openwop-version'), '2.0');
  return res.json();
}

async function visibleIds(key: string): Promise<Set<string>> {
  const res = await request(server.url, '/tools', { token: key });
  return new Set(res.json().map((d: { toolId: string }) => d.toolId));
}

test('ranking: the tool that does what was asked comes first', async () => {
  const cases: [string, string][] = [
    ['make this text all capitals', 'openwop:text.uppercase'],
    ['how many words are in my paragraph', 'openwop:text.word-count'],
    ['open a new support ticket', 'connector:tickets.createTicket'],
    ['show me every ticket carrying the label urgent', 'connector:tickets.listTickets'],
    ['what notes have I saved so far', 'openwop:notes.list'],
  ];
  for (const [q, expected] of cases) {
    const body = await search(ACME, `q=${encodeURIComponent(q)}&limit=5`);
    assert.equal(body.results[0]?.toolId, expected, `${q}: ${JSON.stringify(body.results.map((r: any) => r.toolId))}`);
    const top = body.results[0];
    assert.equal(typeof top.score, 'number');
    assert.ok(['pure', 'read', 'write', 'exec'].includes(top.safetyTier));
    assert.equal(typeof top.annotations.readOnlyHint, 'boolean', 'the host annotations');
    for (let i = 1; i < body.results.length; i++) assert.ok(body.results[i - 1].score >= body.results[i].score, 'best first');
    assert.ok(body.total >= body.results.length);
  }
});

test('synonyms from the config extend the built-in ones', async () => {
  const body = await search(ACME, 'q=bookkeeping&limit=5');
  // Synonyms are looked for in the toolId and title: "Close the ledger", not listInvoices' description.
  assert.deepEqual(body.results.map((r: any) => r.toolId), ['connector:private.closeLedger']);
  assert.equal(body.total, 1);
  const deleting = await search(ACME, 'q=remove%20the%20archive&limit=1');
  assert.equal(deleting.results[0].toolId, 'x-host-acme-wipe', 'built in: remove finds what deletes');
});

test('filters: source, safetyTier and maxTier narrow the results', async () => {
  const q = 'q=ticket&limit=50';
  const all = await search(ACME, q);
  assert.ok(all.results.some((r: any) => r.source === 'host-extension'), 'the wipe extension matches "ticket"');
  const connectors = await search(ACME, `${q}&source=connector`);
  assert.ok(connectors.results.length > 0 && connectors.results.every((r: any) => r.source === 'connector'));
  const reads = await search(ACME, `${q}&maxTier=read`);
  assert.ok(reads.results.length > 0 && reads.results.every((r: any) => r.safetyTier === 'read' || r.safetyTier === 'pure'));
  const writes = await search(ACME, `${q}&safetyTier=write`);
  assert.ok(writes.results.every((r: any) => r.safetyTier === 'write'));
  assert.equal(all.total, connectors.total + all.results.filter((r: any) => r.source !== 'connector').length);
});

test('bounds and errors are the contract envelope', async () => {
  const cases: [string, string | undefined, number, string][] = [
    ['q=ticket', undefined, 401, 'unauthenticated'],
    ['', ACME, 400, 'validation_error'],
    ['q=%20%20', ACME, 400, 'validation_error'],
    [`q=${'a'.repeat(257)}`, ACME, 400, 'validation_error'],
    ['q=ticket&limit=0', ACME, 400, 'validation_error'],
    ['q=ticket&limit=51', ACME, 400, 'validation_error'],
    ['q=ticket&limit=ten', ACME, 400, 'validation_error'],
    ['q=ticket&q=note', ACME, 400, 'validation_error'],
    ['q=ticket&maxTier=admin', ACME, 400, 'validation_error'],
    ['q=ticket&source=ftp', ACME, 400, 'validation_error'],
  ];
  for (const [query, key, status, code] of cases) {
    const res = await request(server.url, `/tool-search?${query}`, key === undefined ? {} : { token: key });
    assert.equal(res.status, status, `${query}: ${res.text}`);
    assert.equal(res.json().error, code);
    assert.equal(res.headers.get('openwop-version'), '2.0');
  }
  const bad = await request(server.url, '/tool-search?q=x', { token: ACME, headers: { 'openwop-version': '3.0' } });
  assert.equal(bad.status, 406);
  const post = await request(server.url, '/tool-search?q=x', { token: ACME, method: 'POST' });
  assert.equal(post.status, 405);
  assert.equal(post.json().error, 'toolhost.method_not_allowed');
  const fine = await search(ACME, `q=${'a'.repeat(256)}&limit=50`);
  assert.deepEqual(fine.results, []);
});

test('scoping: every result is a tool GET /tools lists for the same caller', async () => {
  const queries = ['ticket', 'invoice ledger', 'wipe archive', 'note', 'text words count', 'list', 'delete everything', 'billing'];
  for (const key of [ACME, ACME_NARROW, GLOBEX]) {
    const visible = await visibleIds(key);
    for (const q of queries) {
      const body = await search(key, `q=${encodeURIComponent(q)}&limit=50`);
      for (const r of body.results) assert.ok(visible.has(r.toolId), `${key} found ${r.toolId}, which it cannot see`);
    }
  }
  const narrow = await search(ACME_NARROW, 'q=wipe%20archive&limit=50');
  assert.ok(!narrow.results.some((r: any) => r.toolId === 'x-host-acme-wipe'), 'a tool needing a scope the caller lacks is not found');
  const full = await search(ACME, 'q=wipe%20archive&limit=50');
  assert.equal(full.results[0].toolId, 'x-host-acme-wipe');
  const globex = await search(GLOBEX, 'q=invoice%20ledger%20billing');
  assert.deepEqual(globex, { results: [], total: 0 }, 'acme-only tools are not found by globex, not even counted');
});

test('no oracle: acme tools changing leaves globex results, scores and totals exactly as they were', async () => {
  const queries = ['list tickets', 'open ticket', 'ticket comments', 'count words text', 'notes'];
  const before = await Promise.all(queries.map((q) => search(GLOBEX, `q=${encodeURIComponent(q)}&limit=50`)));
  const acmeBefore = await search(ACME, 'q=list%20tickets&limit=50');
  // Acme's private API gains tools full of the very words globex searches for.
  const flood = Array.from({ length: 40 }, (_, i) => ({ operationId: `listTicketComments${i}`, summary: 'List tickets and ticket comments', description: 'Open tickets, ticket comments, notes, text and words.', tags: ['tickets'] }));
  writeFileSync(world.privateDoc, privateDocument([...PRIVATE_OPS, ...flood]));
  await waitFor(async () => (await search(ACME, 'q=list%20tickets&limit=50')).total === acmeBefore.total + 40, 10_000, "acme's new tools");
  const acmeAfter = await search(ACME, 'q=list%20tickets&limit=50');
  assert.notDeepEqual(acmeAfter.results.map((r: any) => r.score), acmeBefore.results.map((r: any) => r.score), 'acme itself sees the change');
  const after = await Promise.all(queries.map((q) => search(GLOBEX, `q=${encodeURIComponent(q)}&limit=50`)));
  assert.deepEqual(after, before);
  // And back: acme's tools removed again.
  writeFileSync(world.privateDoc, privateDocument(PRIVATE_OPS));
  await waitFor(async () => (await search(ACME, 'q=list%20tickets&limit=50')).total === acmeBefore.total, 10_000, "acme's tools removed");
  assert.deepEqual(await search(ACME, 'q=list%20tickets&limit=50'), acmeBefore, 'an index kept up to date answers as before the change');
  assert.deepEqual(await Promise.all(queries.map((q) => search(GLOBEX, `q=${encodeURIComponent(q)}&limit=50`))), before);
});
