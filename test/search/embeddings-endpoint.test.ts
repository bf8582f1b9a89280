// An operator's embeddings endpoint on a real host, against a stand-in model
// server on loopback: its ranking finds a tool that shares no word with the
// request, once every tool has its vector (until then words rank); a tool's
// vector is asked for once per content, a request's once per text; the MCP
// search mode ranks with it too; the key reaches the endpoint and nothing
// else; an endpoint that hangs or fails costs one deadline and one log line,
// and the answer is the one without it.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { after, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { connect } from '../front-door/front-door-helpers.js';
import { startEmbeddingsServer, type EmbeddingsServer, type Mode } from '../helpers/embeddings-server.js';
import { request, startTestServer, type TestServer } from '../helpers/server.js';
import { ACME, PRIVATE_OPS, privateDocument, waitFor, writeSearchWorld, type SearchWorld } from './world.js';

const KEY = 'sk-embeddings-canary-7d2f91';
const started: { close(): Promise<void> }[] = [];
after(async () => {
  for (const s of started.reverse()) await s.close();
});

interface World {
  host: TestServer;
  model: EmbeddingsServer;
  world: SearchWorld;
}

async function start(mode: Mode, timeoutMs: number): Promise<World> {
  const model = await startEmbeddingsServer(mode);
  started.push(model);
  // Words alone offline (search.meaning false): whatever finds "holler" is the endpoint.
  const world = writeSearchWorld({ search: { meaning: false, embeddings: { url: model.url, model: 'stand-in', apiKey: { env: 'EMBEDDINGS_KEY' }, timeoutMs } } });
  const host = await startTestServer(world.configFile, { env: { ...process.env, EMBEDDINGS_KEY: KEY } });
  started.push(host);
  return { host, model, world };
}

async function search(host: TestServer, q: string): Promise<{ text: string; ids: string[]; total: number }> {
  const res = await request(host.url, `/tool-search?q=${encodeURIComponent(q)}&limit=5`, { token: ACME });
  assert.equal(res.status, 200, res.text);
  const body = res.json();
  return { text: res.text, ids: body.results.map((r: { toolId: string }) => r.toolId), total: body.total };
}

/** The tools of the catalog (the ones the tool table holds), all of which acme sees. */
function toolCount(host: TestServer): number {
  return host.running.host.store.current().entries.length;
}

test('the endpoint ranks once every tool has its vector; vectors are asked for once per content', async () => {
  const { host, model, world } = await start('ok', 5000);
  const tools = toolCount(host);
  const first = await search(host, 'holler this sentence');
  assert.notEqual(first.ids[0], 'openwop:text.uppercase', 'before the tools have vectors, words rank (and no word matches)');
  // The first search asked for every tool's vector, in the background, and not for the request's: it could not be used yet.
  await host.running.host.search.whenReady();
  assert.ok(!model.texts.includes('holler this sentence'));
  assert.equal(model.texts.length, tools, 'one text per tool');
  assert.equal(host.running.host.search.endpointStats()?.vectors, tools, 'held by content');

  assert.equal((await search(host, 'holler this sentence')).ids[0], 'openwop:text.uppercase');
  const asked = model.texts.length;
  assert.equal(asked, tools + 1, 'one text for the request');
  assert.equal((await search(host, 'holler this sentence')).ids[0], 'openwop:text.uppercase');
  assert.equal(model.texts.length, asked, "a request's vector is kept: no new request for the same text");
  assert.equal((await search(host, 'tally the items of this text')).ids[0], 'openwop:text.word-count');
  assert.equal(model.texts.length, asked + 1, 'a new request: one text');

  // One operation added to a connector: the next search asks for that tool's vector alone.
  writeFileSync(world.privateDoc, privateDocument([...PRIVATE_OPS, { operationId: 'listAudits', summary: 'List audits', description: 'Lists the audits of the ledger.' }]));
  await waitFor(() => toolCount(host) === tools + 1, 10_000, 'the new operation');
  await search(host, 'holler this sentence');
  await host.running.host.search.whenReady();
  assert.equal(model.texts.length, asked + 2, "the new tool's text alone");
  assert.match(model.texts.at(-1)!, /audits/i);
  assert.equal((await search(host, 'holler this sentence')).ids[0], 'openwop:text.uppercase');

  // Removed, then back: its vector is found by its content, nothing asked (and the endpoint ranks only when every tool has one).
  writeFileSync(world.privateDoc, privateDocument(PRIVATE_OPS));
  await waitFor(() => toolCount(host) === tools, 10_000, 'the operation removed');
  await search(host, 'holler this sentence');
  writeFileSync(world.privateDoc, privateDocument([...PRIVATE_OPS, { operationId: 'listAudits', summary: 'List audits', description: 'Lists the audits of the ledger.' }]));
  await waitFor(() => toolCount(host) === tools + 1, 10_000, 'the operation back');
  assert.equal((await search(host, 'holler this sentence')).ids[0], 'openwop:text.uppercase');
  assert.equal(model.texts.length, asked + 2, 'no request: the vector was kept by content');

  // The MCP search mode awaits the same ranking.
  const client: Client = await connect(host.url, ACME, { path: '/mcp?mode=search' });
  started.push({ close: () => client.close() });
  const found = await client.callTool({ name: 'search_tools', arguments: { query: 'holler this sentence', limit: 3 } });
  assert.equal((found.structuredContent as { tools: { toolId: string }[] }).tools[0].toolId, 'openwop:text.uppercase');

  assert.ok(model.authorizations.every((a) => a === `Bearer ${KEY}`), 'the key reaches the endpoint');
  assert.ok(!host.logs.some((l) => l.includes(KEY)), 'and no log line');
  assert.ok(!JSON.stringify(found).includes(KEY) && !first.text.includes(KEY));
});

for (const mode of ['hang', 'fail'] as const) {
  test(`an endpoint that ${mode === 'hang' ? 'stops answering' : 'starts answering 500'} costs one deadline and one log line; the answer is the one without it`, async () => {
    const { host, model } = await start('ok', 150);
    await search(host, 'warm up');
    await host.running.host.search.whenReady();
    model.mode = mode;
    const offline = await startTestServer(writeSearchWorld({ search: { meaning: false } }).configFile);
    started.push(offline);
    const expected = await search(offline, 'make this text all capitals');
    const got = await search(host, 'make this text all capitals');
    assert.deepEqual(got.ids, expected.ids);
    assert.equal(got.total, expected.total);
    const warned = host.logs.filter((l) => l.includes('search embeddings'));
    assert.equal(warned.length, 1, warned.join('\n'));
    assert.match(warned[0], mode === 'hang' ? /no answer within 150 ms/ : /HTTP 500/);
    assert.match(warned[0], /127\.0\.0\.1/);
    assert.ok(!warned[0].includes(KEY));
    // Resting: the next searches do not ask again, and answer the same.
    const requests = model.requests;
    assert.deepEqual((await search(host, 'how many words are in my paragraph')).ids, (await search(offline, 'how many words are in my paragraph')).ids);
    assert.equal(model.requests, requests, 'a failed endpoint is left alone for a while');
    assert.equal(host.logs.filter((l) => l.includes('search embeddings')).length, 1);
  });
}

test('an endpoint that fails from the start: the tools\' vectors are not had, one log line, words rank', async () => {
  const { host, model } = await start('fail', 150);
  const offline = await startTestServer(writeSearchWorld({ search: { meaning: false } }).configFile);
  started.push(offline);
  assert.deepEqual((await search(host, 'make this text all capitals')).ids, (await search(offline, 'make this text all capitals')).ids);
  await waitFor(() => host.logs.some((l) => l.includes('search embeddings')), 10_000, 'the log line');
  const requests = model.requests;
  assert.deepEqual((await search(host, 'holler this sentence')).ids, (await search(offline, 'holler this sentence')).ids);
  assert.equal(model.requests, requests, 'left alone for a while');
  const warned = host.logs.filter((l) => l.includes('search embeddings'));
  assert.equal(warned.length, 1);
  assert.match(warned[0], /HTTP 500/);
  assert.ok(!warned[0].includes(KEY));
});
