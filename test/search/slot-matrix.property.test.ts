// The meaning scan that passes over tools whose bound cannot beat the
// candidates kept finds exactly what a dot product with every tool finds:
// the same slots, the same rounded cosines, in the same order, for random
// clustered vectors (as tools' meaning vectors are), random requests, limits,
// thresholds and filters, with vectors set before and after the bound's
// directions are found, some slots without a bound yet.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { SlotMatrix } from '../../src/catalog/search/slot-matrix.js';
import { TopHits } from '../../src/catalog/search/top-hits.js';
import { prng } from '../compact/support/random.js';

const D = 24;

function unit(v: Float32Array): Float32Array {
  let n = 0;
  for (const x of v) n += x * x;
  if (n > 0) for (let i = 0; i < v.length; i++) v[i] /= Math.sqrt(n);
  return v;
}

/** Vectors around a few centres, some repeated exactly (ties), some zero. */
function vectors(seed: number, count: number): Float32Array[] {
  const r = prng(seed);
  const centres = Array.from({ length: 4 }, () => Float32Array.from({ length: D }, () => r() - 0.3));
  return Array.from({ length: count }, (_, i) => {
    if (i % 17 === 5) return new Float32Array(D);
    const c = centres[i % centres.length];
    return unit(Float32Array.from({ length: D }, (_, d) => c[d] + (i % 9 === 0 ? 0 : (r() - 0.5) * 0.6)));
  });
}

function scan(matrix: SlotMatrix, query: Float32Array, min: number, live: Uint8Array, slots: number, limit: number, pass?: (slot: number) => boolean): [number, number][] {
  const top = matrix.nearest(query, min, live, slots, pass, new TopHits(limit, (slot) => `t${String(slot).padStart(5, '0')}`));
  return Array.from({ length: top.count }, (_, i) => [top.slots[i], top.scores[i]]);
}

test('property: the bounded scan equals a scan of every tool', () => {
  fc.assert(
    fc.property(fc.integer({ min: 0, max: 1e6 }), fc.integer({ min: 400, max: 1500 }), fc.integer({ min: 1, max: 60 }), fc.constantFrom(-1, 0, 0.2, 0.6), fc.boolean(), (seed, count, limit, min, filtered) => {
      const rows = vectors(seed, count);
      const bounded = new SlotMatrix(D);
      const plain = new SlotMatrix(D);
      const early = Math.floor(count * 0.8);
      rows.slice(0, early).forEach((v, slot) => (bounded.set(slot, v), plain.set(slot, v)));
      const live = new Uint8Array(count).map((_, slot) => (slot % 11 === 3 ? 0 : 1));
      bounded.prepareBounds((slot) => live[slot] === 1, early);
      bounded.projectSome(Infinity);
      // Later vectors: projected as they come when their slot had a bound, else by the next projectSome, or not at all.
      rows.slice(early).forEach((v, i) => (bounded.set(early + i, v), plain.set(early + i, v)));
      if (seed % 2 === 0) bounded.projectSome(Infinity);
      const r = prng(seed + 1);
      const pass = filtered ? (slot: number) => slot % 3 !== 0 : undefined;
      for (let q = 0; q < 5; q++) {
        const query = q === 0 ? rows[(seed % count) | 0] : unit(Float32Array.from({ length: D }, (_, d) => rows[q * 7][d] + (r() - 0.5) * q * 0.3));
        assert.deepEqual(scan(bounded, query, min, live, count, limit, pass), scan(plain, query, min, live, count, limit, pass));
      }
    }),
    { numRuns: 60 },
  );
});
