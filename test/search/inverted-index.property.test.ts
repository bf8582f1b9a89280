// The term index under tool search, alone: after any sequence of additions
// and removals it scores exactly as one built afresh from the documents it
// holds (slots reused, postings moved); query words beyond 32 are counted;
// and the top-k selection equals sorting every candidate.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { Accumulator, type Bm25Parameters, type IndexedField, InvertedIndex } from '../../src/catalog/search/inverted-index.js';
import { TopHits } from '../../src/catalog/search/top-hits.js';

const BM25: Bm25Parameters = { k: 1.2, b: 0.9, d: 0.5 };
const TERMS = ['list', 'creat', 'delet', 'ticket', 'user', 'label', 'repository', 'star'];
const FIELDS = 2;

const fieldArb = fc.array(fc.constantFrom(...TERMS), { maxLength: 8 }).map((terms): IndexedField => ({ terms, length: new Set(terms).size + 1 }));
const docArb = fc.array(fieldArb, { minLength: FIELDS, maxLength: FIELDS });
/** Each step adds a document or removes the one at a position among those held. */
const stepArb = fc.oneof(docArb.map((fields) => ({ add: fields })), fc.nat().map((at) => ({ removeAt: at })));

/** Every term's score and coverage per document key, over both fields. */
function scoresByKey(index: InvertedIndex, slotOf: Map<string, number>): Record<string, number[]> {
  const out: Record<string, number[]> = {};
  for (const term of TERMS) {
    const acc = new Accumulator(index.slots, 1);
    for (let f = 0; f < FIELDS; f++) index.accumulate(acc, f, term, f + 1, Uint32Array.of(1), BM25);
    for (const [key, slot] of slotOf) (out[key] ??= []).push(acc.scores[slot], acc.coverage(slot));
  }
  return out;
}

test('property: an index after additions and removals scores exactly as one built afresh', () => {
  fc.assert(
    fc.property(fc.array(stepArb, { maxLength: 40 }), (steps) => {
      const kept = new InvertedIndex(FIELDS);
      const held = new Map<string, { slot: number; fields: IndexedField[] }>();
      let next = 0;
      for (const step of steps) {
        if ('add' in step) {
          const key = `d${next++}`;
          held.set(key, { slot: kept.add(step.add), fields: step.add });
        } else if (held.size > 0) {
          const key = [...held.keys()][step.removeAt % held.size];
          kept.remove(held.get(key)!.slot, held.get(key)!.fields);
          held.delete(key);
        }
      }
      const fresh = new InvertedIndex(FIELDS);
      const freshSlots = new Map([...held].map(([key, { fields }]) => [key, fresh.add(fields)]));
      assert.equal(kept.size, fresh.size);
      assert.deepEqual(scoresByKey(kept, new Map([...held].map(([key, { slot }]) => [key, slot]))), scoresByKey(fresh, freshSlots));
    }),
    { numRuns: 300 },
  );
});

test('a query of more than 32 words: every word a tool covers is counted', () => {
  const index = new InvertedIndex(1);
  const words = Array.from({ length: 40 }, (_, i) => `w${i}`);
  const all = index.add([{ terms: words, length: 40 }]);
  const some = index.add([{ terms: ['w33', 'w39'], length: 2 }]);
  const acc = new Accumulator(index.slots, 2);
  words.forEach((w, i) => {
    const bits = new Uint32Array(2);
    bits[i >>> 5] |= 1 << (i & 31);
    index.accumulate(acc, 0, w, 1, bits, BM25);
  });
  assert.equal(acc.coverage(all), 40);
  assert.equal(acc.coverage(some), 2);
  assert.equal(acc.touchedCount, 2, 'each matching slot listed once');
});

test('property: the top-k selection equals sorting every candidate by score, then toolId', () => {
  const candidatesArb = fc.uniqueArray(fc.record({ id: fc.stringMatching(/^[a-z]{1,4}$/), score: fc.constantFrom(0, 0.5, 1, 2.25, 3) }), { selector: (c) => c.id, maxLength: 60 });
  fc.assert(
    fc.property(candidatesArb, fc.integer({ min: 1, max: 50 }), (candidates, limit) => {
      const top = new TopHits(limit, (slot) => candidates[slot].id);
      candidates.forEach((c, slot) => top.offer(c.score, slot));
      const selected = Array.from(top.slots.subarray(0, top.count), (slot) => candidates[slot].id);
      const sorted = [...candidates].sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : 1)).slice(0, limit).map((c) => c.id);
      assert.deepEqual(selected, sorted);
    }),
    { numRuns: 300 },
  );
});
