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
import { indexTerm, words } from './text.js';
import { scanRanges } from './word-scan.js';
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
  /** The words seen, by number, and an open-addressing table of their numbers (plus one) by hash. */
  private readonly wordText: string[] = [];
  private wordSlots: Int32Array<ArrayBuffer> = new Int32Array(1 << 14);
  /** By word number: its term id, -1 for a stopword. */
  private wordTerm: Int32Array<ArrayBuffer> = new Int32Array(1024);
  /** By word number and by term id: the field (stamp) it was last counted in. */
  private wordStamp: Int32Array<ArrayBuffer> = new Int32Array(1024);
  private termStamp: Int32Array<ArrayBuffer> = new Int32Array(1024);
  /** By term id: where its count is in `out` for the current field. */
  private termAt: Int32Array<ArrayBuffer> = new Int32Array(1024);
  private stamp = 0;
  /** The prepared tool being made, and its length. */
  private out: Int32Array<ArrayBuffer> = new Int32Array(1024);
  private length = 0;
  /** The term ids of the toolId and title in order, for their word pairs. */
  private readonly sequence: number[] = [];

  constructor(private readonly terms: TermIds) {}

  /** The tool's fields as the index files them. */
  prepare(entry: ToolEntry, doc: SearchDocument = searchDocument(entry)): PreparedTool {
    this.length = 2 * FIELDS;
    this.sequence.length = 0;
    const pairs: number[] = [];
    for (let f = 0; f < SEARCH_FIELDS.length; f++) {
      const length = this.field(doc[SEARCH_FIELDS[f]], f === NAME || f === TITLE);
      this.out[FIELDS + f] = length;
      this.out[f] = (this.length - 2 * FIELDS) / 2;
      // The pairs of the toolId's words, then of the title's: not across the two.
      for (let i = 1; i < this.sequence.length; i++) if (this.sequence[i - 1] !== this.sequence[i]) pairs.push(this.terms.idOf(`${this.terms.names[this.sequence[i - 1]]} ${this.terms.names[this.sequence[i]]}`));
      this.sequence.length = 0;
    }
    this.stamp++;
    let distinct = 0;
    for (const id of pairs) if (this.count(id)) distinct++;
    const out = this.out;
    out[FIELDS + SEARCH_FIELDS.length] = distinct;
    out[SEARCH_FIELDS.length] = (this.length - 2 * FIELDS) / 2;
    for (let i = 2 * FIELDS + 1; i < this.length; i += 2) if (out[i] > 0xffff) out[i] = 0xffff;
    return { identity: contentIdentity(entry), fields: out.slice(0, this.length) };
  }

  /** Files the text's terms with their counts into `out`; its length (distinct words, stopwords included). */
  private field(text: string, inSequence: boolean): number {
    const stamp = ++this.stamp;
    let distinct = 0;
    const visit = (source: string, start: number, end: number, upper: boolean): void => {
      const n = this.wordNumber(source, start, end, upper);
      if (this.wordStamp[n] !== stamp) {
        this.wordStamp[n] = stamp;
        distinct++;
      }
      const id = this.wordTerm[n];
      if (id < 0) return;
      if (inSequence) this.sequence.push(id);
      this.count(id);
    };
    if (!scanRanges(text, (start, end, upper) => visit(text, start, end, upper))) for (const w of words(text)) visit(w, 0, w.length, false);
    return distinct;
  }

  /** The number of the word in `source` from `start` to `end` (lower-cased), made (stemmed, its term id found) when new. */
  private wordNumber(source: string, start: number, end: number, upper: boolean): number {
    let h = 0x811c9dc5;
    // ASCII letters and digits: `| 32` lowers a letter and leaves a digit.
    for (let i = start; i < end; i++) h = Math.imul(h ^ (source.charCodeAt(i) | 32), 16777619);
    const mask = this.wordSlots.length - 1;
    for (let at = h & mask; ; at = (at + 1) & mask) {
      const known = this.wordSlots[at] - 1;
      if (known < 0) break;
      if (sameWord(this.wordText[known], source, start, end)) return known;
    }
    const n = this.wordText.length;
    const word = source.slice(start, end);
    this.wordText.push(upper ? word.toLowerCase() : word);
    if (2 * this.wordText.length > this.wordSlots.length) this.rehash(this.wordSlots.length * 2);
    else this.place(h, n);
    this.wordTerm = grown(this.wordTerm, n + 1);
    this.wordStamp = grown(this.wordStamp, n + 1);
    const term = indexTerm(this.wordText[n]);
    this.wordTerm[n] = term === undefined ? -1 : this.terms.idOf(term);
    return n;
  }

  private place(h: number, n: number): void {
    const mask = this.wordSlots.length - 1;
    let at = h & mask;
    while (this.wordSlots[at] !== 0) at = (at + 1) & mask;
    this.wordSlots[at] = n + 1;
  }

  private rehash(size: number): void {
    this.wordSlots = new Int32Array(size);
    this.wordText.forEach((w, n) => this.place(hashOf(w), n));
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
    this.termAt[id] = this.length;
    if (this.length + 2 > this.out.length) this.out = grown(this.out, this.length + 2);
    this.out[this.length++] = id;
    this.out[this.length++] = 1;
    return true;
  }

  /** Ends the batch: its words are forgotten and the index frees the terms no tool holds. */
  clear(): void {
    this.wordText.length = 0;
    this.wordSlots = new Int32Array(1 << 14);
    this.terms.sweep();
  }
}

function hashOf(word: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < word.length; i++) h = Math.imul(h ^ (word.charCodeAt(i) | 32), 16777619);
  return h;
}

/** Whether `word` (lower case) is the text from `start` to `end`, lowered. */
function sameWord(word: string, source: string, start: number, end: number): boolean {
  if (word.length !== end - start) return false;
  for (let i = 0; i < word.length; i++) if (word.charCodeAt(i) !== (source.charCodeAt(start + i) | 32)) return false;
  return true;
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
