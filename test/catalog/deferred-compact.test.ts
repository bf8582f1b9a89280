// The compact view is made after the standard one (snapshot.ts): a snapshot
// serves its standard view as soon as it is swapped in, compacts in the
// background in slices that leave the event loop to requests, and a compact
// list asked for meanwhile is answered, once made, with exactly the bytes an
// eager build gives. /readyz says which views are served.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { compactDescriptor } from '../../src/catalog/compact-descriptor.js';
import { appOver, generated, storeOf } from './generated-store.js';

/** What an eager build gives: every descriptor compacted and serialized, joined. */
const eagerCompactList = (descriptors: Parameters<typeof compactDescriptor>[0][]) => `{"tools":[${descriptors.map((d) => JSON.stringify(compactDescriptor(d))).join(',')}]}`;

test('a snapshot is swapped in before compaction, compacts in slices between turns of the event loop, and gives the eager bytes', async () => {
  const tools = generated(1500);
  const store = storeOf(() => tools);
  const snapshot = store.initialBuild();
  assert.equal(snapshot.compactServed, false, 'swapped in with the standard view only');
  const standard = snapshot.viewFor({ tenant: 't', scopes: new Set() }).standard.bytes.toString();
  assert.equal(standard, `[${snapshot.entries.map((e) => JSON.stringify(e.tool.descriptor)).join(',')}]`);

  // One entry used before the background reaches it is compacted on its own, with the same bytes.
  const early = snapshot.entries[700];
  assert.equal(early.compact.bytes.toString(), JSON.stringify(compactDescriptor(early.tool.descriptor)));

  let turns = 0;
  let done = false;
  const tick = () => {
    turns++;
    if (!done) setImmediate(tick);
  };
  setImmediate(tick);
  const waiting = snapshot.whenCompacted();
  assert.ok(waiting instanceof Promise, 'a caller of the compact view waits');
  await waiting;
  done = true;
  assert.equal(snapshot.compactServed, true);
  assert.equal(snapshot.whenCompacted(), undefined, 'then it does not wait');
  assert.ok(turns >= 3, `the event loop had ${turns} turns while 1,500 tools were compacted`);
  assert.equal(snapshot.entries[700].compact, early.compact, 'what was made early is kept');
  const compactList = snapshot.viewFor({ tenant: 't', scopes: new Set() }).compact.bytes.toString();
  assert.equal(compactList, eagerCompactList(snapshot.entries.map((e) => e.tool.descriptor)));
});

test('a refresh carries the compacted entries; one compaction runs at a time; a replaced snapshot stops compacting', async () => {
  let tools = generated(300);
  const store = storeOf(() => tools);
  const first = store.initialBuild();
  const a = first.compactInBackground();
  assert.equal(first.compactInBackground(), a, 'the running compaction, not a second one');
  await a;
  tools = tools.map((t, i) => (i === 5 ? { ...t, description: 'changed' } : t));
  const next = await new Promise<ReturnType<typeof store.current>>((resolve) => {
    const off = store.onSwap((n) => {
      off();
      resolve(n);
    });
    store.scheduleRebuild();
  });
  const changed = tools[5].toolId;
  assert.equal(next.compactServed, false, 'the changed tool is compacted after the swap');
  for (const e of next.entries) {
    const id = e.tool.descriptor.toolId;
    if (id !== changed) assert.equal(e.compact, first.byId.get(id)!.compact, 'unchanged entries keep their compact body');
  }
  await next.whenCompacted();
  assert.equal(next.compactServed, true);
  assert.match(next.byId.get(changed)!.compact.bytes.toString(), /"description":"changed"/);

  // Replaced before it is compacted: its compaction stops and leaves the rest to the successor.
  const many = generated(800);
  const big = storeOf(() => many);
  const old = big.initialBuild();
  let stop = false;
  const stopped = old.compactInBackground(() => !stop);
  stop = true;
  await stopped;
  assert.equal(old.compactServed, false, 'stopped early');

  // A refresh carries entries not compacted yet: one compaction then serves both snapshots.
  many[3] = { ...many[3], description: 'changed' };
  const successor = await new Promise<ReturnType<typeof big.current>>((resolve) => {
    const off = big.onSwap((n) => {
      off();
      resolve(n);
    });
    big.scheduleRebuild();
  });
  const last = old.entries.at(-1)!.tool.descriptor.toolId;
  assert.equal(successor.byId.get(last)!.compact, old.byId.get(last)!.compact);
});

test('over HTTP: /readyz says the compact view is building, and GET /tools?view=compact answered meanwhile has the eager bytes', async () => {
  const key = 'deferred-compact-key';
  const tools = generated(3000);
  const store = storeOf(() => tools);
  const app = appOver(store, key);
  try {
    await app.listen({ host: '127.0.0.1', port: 0 });
    const address = app.server.address();
    assert.ok(address !== null && typeof address === 'object');
    const url = `http://127.0.0.1:${address.port}`;
    const headers = { authorization: `Bearer ${key}`, 'accept-encoding': 'identity' };
    // Swapped in now; 3,000 tools take far longer to compact than these requests take to arrive.
    const snapshot = store.initialBuild();
    const [ready, list, standard] = await Promise.all([fetch(`${url}/readyz`), fetch(`${url}/tools?view=compact`, { headers }), fetch(`${url}/tools`, { headers })]);
    const report = (await ready.json()) as { views: { standard: string; compact: string } };
    assert.deepEqual(report.views, { standard: 'served', compact: 'building' });
    assert.equal(standard.status, 200);
    assert.equal(list.status, 200);
    const text = await list.text();
    assert.equal(text, eagerCompactList(snapshot.entries.map((e) => e.tool.descriptor)));
    assert.equal(list.headers.get('etag'), snapshot.viewFor({ tenant: 't', scopes: new Set() }).compact.etag);
    const after = (await (await fetch(`${url}/readyz`)).json()) as { views: { compact: string } };
    assert.equal(after.views.compact, 'served');
  } finally {
    await app.close();
  }
});
