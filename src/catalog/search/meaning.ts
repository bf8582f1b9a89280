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
