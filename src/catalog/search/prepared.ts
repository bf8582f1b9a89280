// What tool search makes of one tool's text (docs/search.md "The index"):
// its fields as distinct terms with their counts, field after field, the
// form the term index files and removes, and its meaning vector. Both depend
// on the tool's own content alone (identified by the published bytes' ETag
// and the keywords), never on other tools.
import type { ToolEntry } from '../snapshot.js';
import { contentIdentity, SEARCH_FIELDS, searchDocument } from './documents.js';
import type { PreparedDoc } from './inverted-index.js';
import { type MeaningText, toolVector } from './meaning.js';
import { indexTerm, words } from './text.js';
import type { WordVectors } from './word-vectors.js';

export interface PreparedTool {
  readonly identity: string;
  /** The fields of documents.ts, then the word pairs of the toolId and title. */
  readonly fields: PreparedDoc;
}

const PAIR_FIELDS = [SEARCH_FIELDS.indexOf('name'), SEARCH_FIELDS.indexOf('title')];

/** One term string per distinct term: thousands of tools share a few thousand words, held once. */
export class Interner {
  private readonly strings = new Map<string, string>();
  of(s: string): string {
    const known = this.strings.get(s);
    if (known !== undefined) return known;
    this.strings.set(s, s);
    return s;
  }
  clear(): void {
    this.strings.clear();
  }
}

function adjacentPairs(terms: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 1; i < terms.length; i++) if (terms[i - 1] !== terms[i]) out.push(`${terms[i - 1]} ${terms[i]}`);
  return out;
}

function meaningText(entry: ToolEntry): MeaningText {
  const doc = searchDocument(entry);
  return { name: doc.name.slice(doc.name.indexOf('.') + 1), title: doc.title, description: doc.description };
}

function prepare(entry: ToolEntry, identity: string, intern: Interner): PreparedTool {
  const doc = searchDocument(entry);
  const terms: string[] = [];
  const freqs: number[] = [];
  const ends: number[] = [];
  const lengths: number[] = [];
  const counts = new Map<string, number>();
  const field = (list: readonly string[], length: number): void => {
    counts.clear();
    for (const t of list) counts.set(t, (counts.get(t) ?? 0) + 1);
    for (const [t, n] of counts) {
      terms.push(intern.of(t));
      freqs.push(Math.min(n, 0xffff));
    }
    ends.push(terms.length);
    lengths.push(length);
  };
  const pairs: string[] = [];
  for (let f = 0; f < SEARCH_FIELDS.length; f++) {
    const tokens = words(doc[SEARCH_FIELDS[f]]);
    const kept: string[] = [];
    for (const w of tokens) {
      const t = indexTerm(w);
      if (t !== undefined) kept.push(t);
    }
    field(kept, new Set(tokens).size);
    if (PAIR_FIELDS.includes(f)) pairs.push(...adjacentPairs(kept));
  }
  field(pairs, new Set(pairs).size);
  return { identity, fields: { terms, freqs, ends, lengths } };
}

/** The tool's meaning vector for these word vectors (zeros when none of its words has one). */
export function meaningVector(entry: ToolEntry, vectors: WordVectors): Float32Array {
  const v = new Float32Array(vectors.dimensions);
  toolVector(vectors, meaningText(entry), v);
  return v;
}

/** Prepared tools share their term strings while this is alive (one per batch of work). */
export function prepareTool(entry: ToolEntry, intern: Interner): PreparedTool {
  return prepare(entry, contentIdentity(entry), intern);
}
