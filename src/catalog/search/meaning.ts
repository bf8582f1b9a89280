// The meaning signal of tool search (docs/search.md "Meaning"): a tool and a
// request each become one vector, the weighted mean of their words' vectors
// (word-vectors.ts), and tools are ranked by the cosine of the two. A word
// weighs less the more common it is (smooth inverse frequency: a / (a + p),
// p estimated from the word's frequency rank by Zipf's law), so "the" and
// "get" count little and "refund" or "chargeback" much. A tool's vector
// depends on its own text only, never on the other tools: it is made once
// when the tool is indexed and never recomputed when the catalog changes.
import { stripMarkup } from './documents.js';
import { isStopword, words } from './text.js';
import type { TopHits } from './top-hits.js';
import type { WordVectors } from './word-vectors.js';

/** Smooth inverse frequency's a; p(rank) = 0.1 / (rank + 1) (Zipf). */
const SIF_A = 1e-4;

function sifWeight(vectors: WordVectors, word: string): number {
  const rank = vectors.rank(word);
  if (rank === undefined) return 0;
  const p = 0.1 / (rank + 1);
  return SIF_A / (SIF_A + p);
}

/** Adds the text's words into `into` at `weight`; the number of words that had a vector. */
function addText(vectors: WordVectors, into: Float32Array, text: string, weight: number): number {
  let found = 0;
  for (const w of words(text)) {
    if (isStopword(w)) continue;
    if (vectors.addTo(into, w, weight * sifWeight(vectors, w))) found++;
  }
  return found;
}

function normalize(v: Float32Array): boolean {
  let n = 0;
  for (let i = 0; i < v.length; i++) n += v[i] * v[i];
  if (n === 0) return false;
  const s = 1 / Math.sqrt(n);
  for (let i = 0; i < v.length; i++) v[i] *= s;
  return true;
}

/** What a tool's meaning vector is made of: its name's words, title, and the opening of its description. */
export interface MeaningText {
  name: string;
  title: string;
  description: string;
}

/** Field weights: the title and name say what the tool does; the description adds context. */
const TEXT_WEIGHTS = { name: 1, title: 1, description: 0.5 } as const;

/** The tool's unit vector, written into `into` (zeros when none of its words has a vector). */
export function toolVector(vectors: WordVectors, text: MeaningText, into: Float32Array): void {
  into.fill(0);
  addText(vectors, into, text.name, TEXT_WEIGHTS.name);
  addText(vectors, into, text.title, TEXT_WEIGHTS.title);
  addText(vectors, into, stripMarkup(text.description), TEXT_WEIGHTS.description);
  normalize(into);
}

/** The request's unit vector, or undefined when none of its words has one. */
export function queryVector(vectors: WordVectors, query: string): Float32Array | undefined {
  const v = new Float32Array(vectors.dimensions);
  if (addText(vectors, v, query, 1) === 0) return undefined;
  return normalize(v) ? v : undefined;
}

/** Tool vectors by index slot, kept in one contiguous, growing Float32Array (a query scans it in slot order). */
export class SlotVectors {
  private data: Float32Array;

  constructor(readonly dimensions: number) {
    this.data = new Float32Array(dimensions * 64);
  }

  /** Holds a copy of `vector` for the slot (zeros when there is none). */
  set(slot: number, vector: Float32Array | undefined): void {
    const need = (slot + 1) * this.dimensions;
    if (need > this.data.length) {
      const next = new Float32Array(Math.max(this.data.length * 2, need));
      next.set(this.data);
      this.data = next;
    }
    if (vector === undefined) this.data.fill(0, slot * this.dimensions, need);
    else this.data.set(vector, slot * this.dimensions);
  }

  /**
   * Offers `top` every live slot (passing the filter, when there is one) whose
   * cosine with the (unit) query is above `min`, rounded to 4 decimals.
   */
  nearest(query: Float32Array, min: number, live: Uint8Array, slots: number, pass: ((slot: number) => boolean) | undefined, top: TopHits): TopHits {
    const { data, dimensions } = this;
    const end = Math.min(slots, Math.floor(data.length / dimensions));
    const four = dimensions - (dimensions % 4);
    for (let slot = 0, base = 0; slot < end; slot++, base += dimensions) {
      if (live[slot] === 0) continue;
      // Four running sums: half the time of one on V8, which does not vectorize the loop itself.
      let s0 = 0;
      let s1 = 0;
      let s2 = 0;
      let s3 = 0;
      for (let d = 0; d < four; d += 4) {
        const i = base + d;
        s0 += data[i] * query[d];
        s1 += data[i + 1] * query[d + 1];
        s2 += data[i + 2] * query[d + 2];
        s3 += data[i + 3] * query[d + 3];
      }
      for (let d = four; d < dimensions; d++) s0 += data[base + d] * query[d];
      const s = s0 + s1 + s2 + s3;
      if (s > min && (pass === undefined || pass(slot))) top.offer(Math.round(s * 1e4) / 1e4, slot);
    }
    return top;
  }

  get bytes(): number {
    return this.data.byteLength;
  }
}
