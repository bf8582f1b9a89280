// What tool search makes of one tool's text (docs/search.md "The index"):
// its fields as distinct term ids with their counts, field after field, the
// form the term index files and removes, and its meaning vector. Both depend
// on the tool's own content alone (identified by the published bytes' ETag
// and the keywords), never on other tools.
//
// Filing ten thousand tools reads about a million words, of a few thousand
// distinct ones: each distinct word is stemmed and given its term id once
// per batch of work (`Filing`), then counted with stamps in typed arrays,
// not with a map per field.
import type { ToolEntry } from '../snapshot.js';
import { contentIdentity, SEARCH_FIELDS, type SearchDocument, searchDocument } from './documents.js';
import type { PreparedDoc, TermIds } from './inverted-index.js';
import { type MeaningText, toolVector } from './meaning.js';
import { indexTerm } from './text.js';
import { scanWords } from './word-scan.js';
import type { WordVectors } from './word-vectors.js';

export interface PreparedTool {
  readonly identity: string;
  /** The fields of documents.ts, then the word pairs of the toolId and title. */
  readonly fields: PreparedDoc;
}

const FIELDS = SEARCH_FIELDS.length + 1;
const NAME = SEARCH_FIELDS.indexOf('name');
const TITLE = SEARCH_FIELDS.indexOf('title');

function grown(array: Int32Array<ArrayBuffer>, needed: number): Int32Array<ArrayBuffer> {
  if (needed <= array.length) return array;
  const next = new Int32Array(Math.max(needed, array.length * 2));
  next.set(array);
  return next;
}

/**
 * One batch of filing: the words seen so far with their term ids. Its ids
 * stay valid until `clear`, which also lets the index free the ids of terms
 * no tool holds any more (a batch's words are not worth keeping after it).
 */
export class Filing {
  private readonly wordNumber = new Map<string, number>();
  /** By word number: its term id, -1 for a stopword. */
  private wordTerm: Int32Array<ArrayBuffer> = new Int32Array(1024);
  /** By word number and by term id: the field (stamp) it was last counted in. */
  private wordStamp: Int32Array<ArrayBuffer> = new Int32Array(1024);
  private termStamp: Int32Array<ArrayBuffer> = new Int32Array(1024);
  /** By term id: where its count is in `out` for the current field. */
  private termAt: Int32Array<ArrayBuffer> = new Int32Array(1024);
  private stamp = 0;
  private readonly out: number[] = [];
  /** The term ids of the toolId and title in order, for their word pairs. */
  private readonly sequence: number[] = [];

  constructor(private readonly terms: TermIds) {}

  /** The tool's fields as the index files them. */
  prepare(entry: ToolEntry, doc: SearchDocument = searchDocument(entry)): PreparedTool {
    const out = this.out;
    out.length = 2 * FIELDS;
    this.sequence.length = 0;
    const pairs: number[] = [];
    for (let f = 0; f < SEARCH_FIELDS.length; f++) {
      out[FIELDS + f] = this.field(doc[SEARCH_FIELDS[f]], f === NAME || f === TITLE);
      out[f] = (out.length - 2 * FIELDS) / 2;
      // The pairs of the toolId's words, then of the title's: not across the two.
      for (let i = 1; i < this.sequence.length; i++) if (this.sequence[i - 1] !== this.sequence[i]) pairs.push(this.terms.idOf(`${this.terms.names[this.sequence[i - 1]]} ${this.terms.names[this.sequence[i]]}`));
      this.sequence.length = 0;
    }
    this.stamp++;
    let distinct = 0;
    for (const id of pairs) if (this.count(id)) distinct++;
    out[FIELDS + SEARCH_FIELDS.length] = distinct;
    out[SEARCH_FIELDS.length] = (out.length - 2 * FIELDS) / 2;
    for (let i = 2 * FIELDS + 1; i < out.length; i += 2) if (out[i] > 0xffff) out[i] = 0xffff;
    return { identity: contentIdentity(entry), fields: Int32Array.from(out) };
  }

  /** Files the text's terms with their counts into `out`; its length (distinct words, stopwords included). */
  private field(text: string, inSequence: boolean): number {
    const stamp = ++this.stamp;
    let distinct = 0;
    scanWords(text, (word) => {
      let n = this.wordNumber.get(word);
      if (n === undefined) {
        n = this.wordNumber.size;
        this.wordNumber.set(word, n);
        this.wordTerm = grown(this.wordTerm, n + 1);
        this.wordStamp = grown(this.wordStamp, n + 1);
        const term = indexTerm(word);
        this.wordTerm[n] = term === undefined ? -1 : this.terms.idOf(term);
      }
      if (this.wordStamp[n] !== stamp) {
        this.wordStamp[n] = stamp;
        distinct++;
      }
      const id = this.wordTerm[n];
      if (id < 0) return;
      if (inSequence) this.sequence.push(id);
      this.count(id);
    });
    return distinct;
  }

  /** Counts one more of the term in the current field; true when it is the field's first. */
  private count(id: number): boolean {
    if (id >= this.termStamp.length) {
      this.termStamp = grown(this.termStamp, id + 1);
      this.termAt = grown(this.termAt, id + 1);
    }
    if (this.termStamp[id] === this.stamp) {
      this.out[this.termAt[id] + 1]++;
      return false;
    }
    this.termStamp[id] = this.stamp;
    this.termAt[id] = this.out.length;
    this.out.push(id, 1);
    return true;
  }

  /** Ends the batch: its words are forgotten and the index frees the terms no tool holds. */
  clear(): void {
    this.wordNumber.clear();
    this.terms.sweep();
  }
}

function meaningText(doc: SearchDocument): MeaningText {
  return { name: doc.name.slice(doc.name.indexOf('.') + 1), title: doc.title, description: doc.description };
}

/** The tool's meaning vector for these word vectors (zeros when none of its words has one). */
export function meaningVector(entry: ToolEntry, vectors: WordVectors, doc: SearchDocument = searchDocument(entry)): Float32Array {
  const v = new Float32Array(vectors.dimensions);
  toolVector(vectors, meaningText(doc), v);
  return v;
}
