// A build writes its new entries' bytes into slabs, one after another with a
// comma after each (list-body.ts, EntrySlabs), so the list of every tool is
// a run of bytes per slab: never joined into a copy, and no buffer per entry
// left behind to fragment the C heap. Compaction writes the compact bytes the
// same way, also when a replaced snapshot's compaction still runs beside its
// successor's (a caller waiting on the old one keeps it going).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Kind } from '../../src/catalog/list-body.js';
import { MAX_LIST_PARTS } from '../../src/catalog/list-body.js';
import type { CatalogSnapshot } from '../../src/catalog/snapshot.js';
import { generated, storeOf } from './generated-store.js';

const caller = { tenant: 't', scopes: new Set<string>() };

/** Every part of the list of every tool, apart from its frame, is memory the entries' own bytes lie in. */
function assertRunsOfEntries(snapshot: CatalogSnapshot, kind: Kind): number {
  const list = snapshot.viewFor(caller)[kind];
  const parts = list.parts;
  assert.ok(parts.length > 1 && parts.length < MAX_LIST_PARTS, `the ${kind} list is ${parts.length} parts`);
  const entryMemory = new Set(snapshot.entries.map((e) => e[kind].bytes.buffer));
  const inner = parts.slice(1, -1).filter((p) => p.length > 1);
  assert.ok(inner.every((p) => entryMemory.has(p.buffer)), `the ${kind} list's runs are the entries' own bytes, not a copy`);
  assert.ok(Buffer.concat(parts).equals(Buffer.from(`${kind === 'compact' ? '{"tools":[' : '['}${snapshot.entries.map((e) => e[kind].bytes.toString()).join(',')}${kind === 'compact' ? ']}' : ']'}`)));
  return parts.length;
}

test('a cold build\'s list of every tool is a run per slab of the entries\' own bytes', async () => {
  const store = storeOf(() => generated(2000));
  const snapshot = store.initialBuild();
  await snapshot.whenCompacted();
  // About one slab per MB, after a few small ones: a few dozen parts at most for these few MB.
  assert.ok(assertRunsOfEntries(snapshot, 'standard') <= 40);
  assert.ok(assertRunsOfEntries(snapshot, 'compact') <= 40);
});

test('a replaced snapshot\'s compaction, running beside its successor\'s, keeps the compact bytes in one run per slab', async () => {
  let tools = generated(2000);
  const store = storeOf(() => tools);
  const first = store.initialBuild();
  // A caller waits on the first snapshot's compaction: it goes on after the swap.
  const firstCompacted = first.whenCompacted();
  assert.ok(firstCompacted !== undefined, 'compaction is still to be done');
  await new Promise((resolve) => setImmediate(resolve));
  tools = tools.map((t, i) => (i === 1999 ? { ...t, description: 'changed' } : t));
  const next = await new Promise<CatalogSnapshot>((resolve) => {
    const off = store.onSwap((n) => {
      off();
      resolve(n);
    });
    store.scheduleRebuild();
  });
  assert.equal(first.compactServed, false, 'the swap came while the first compaction was running');
  await Promise.all([firstCompacted, next.whenCompacted()]);
  assert.ok(assertRunsOfEntries(next, 'compact') <= 40);
});
