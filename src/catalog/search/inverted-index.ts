// The term index under tool search (docs/search.md "The index"): per field,
// each term's postings as typed arrays of document slots and term
// frequencies, and BM25 summed straight into one score array per query.
// Nothing is allocated per matching document, so a query whose words occur
// in most tools costs a pass over their postings, not an object per match.
//
// Documents live in numbered slots (a removed document's slot is reused), and
// postings are kept in slot order, so adding or removing a document costs a
// binary search and a move per term, not a scan. A document's score is summed
// term by term and field by field, in query order, so it depends only on the
// documents held, not on the order they came in. Field lengths are
// kept as exact integer totals, so an index that saw additions and removals
// scores exactly as one built afresh from the same documents.

import { type IndexedField, type PreparedDoc, prepareDoc, TermIds } from './term-ids.js';

export { type IndexedField, type PreparedDoc, prepareDoc, TermIds } from './term-ids.js';


export interface Bm25Parameters {
  k: number;
  b: number;
  /** Added to every matching term's frequency part: a match is worth something however long the field. */
  d: number;
}

/**
 * One term's documents in one field, in slot order (found by binary search; a query walks the score
 * array in order): slot and term frequency interleaved in one Int32Array (one allocation per list,
 * where tens of thousands of lists hold a few documents each).
 */
class Postings {
  data = new Int32Array(4);
  length = 0;

  add(doc: number, freq: number): void {
    const n = this.length;
    if (2 * n === this.data.length) {
      const data = new Int32Array(4 * n);
      data.set(this.data);
      this.data = data;
    }
    const at = n === 0 || this.data[2 * n - 2] < doc ? n : this.find(doc);
    // The usual case (an index built in slot order) is an append; else the later documents move up.
    if (at < n) this.data.copyWithin(2 * at + 2, 2 * at, 2 * n);
    this.data[2 * at] = doc;
    this.data[2 * at + 1] = Math.min(freq, 0xffff);
    this.length++;
  }

  remove(doc: number): void {
    const at = this.find(doc);
    if (at === this.length || this.data[2 * at] !== doc) return;
    this.data.copyWithin(2 * at, 2 * at + 2, 2 * this.length);
    this.length--;
  }

  /** The first position whose slot is not below `doc`. */
  private find(doc: number): number {
    let lo = 0;
    let hi = this.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.data[2 * mid] < doc) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}

/** What a query accumulates: per slot a score and the query words it covers (a bit set per slot). */
export class Accumulator {
  readonly scores: Float64Array;
  readonly covered: Uint32Array;
  /** Slots with any match, in first-match order. */
  readonly touched: Int32Array;
  touchedCount = 0;

  constructor(
    slots: number,
    /** 32-bit words per slot in `covered`. */
    readonly stride: number,
  ) {
    this.scores = new Float64Array(slots);
    this.covered = new Uint32Array(slots * stride);
    this.touched = new Int32Array(slots);
  }

  /** Back to no match, clearing only the slots touched (a query touches a part of the index). */
  clear(): void {
    const { scores, covered, touched, stride } = this;
    for (let i = 0; i < this.touchedCount; i++) {
      const doc = touched[i];
      scores[doc] = 0;
      covered.fill(0, doc * stride, doc * stride + stride);
    }
    this.touchedCount = 0;
  }

  /** How many query words slot `doc` covers. */
  coverage(doc: number): number {
    let n = 0;
    for (let w = doc * this.stride, end = w + this.stride; w < end; w++) n += popcount(this.covered[w]);
    return n;
  }
}

function popcount(x: number): number {
  let v = x - ((x >>> 1) & 0x55555555);
  v = (v & 0x33333333) + ((v >>> 2) & 0x33333333);
  return (((v + (v >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
}

export class InvertedIndex {
  readonly terms = new TermIds();
  /** By field, by term id. */
  private readonly postings: (Postings | undefined)[][];
  private readonly totalLength: number[];
  private lengths: Uint16Array[];
  private readonly freeSlots: number[] = [];
  private slotCount = 0;
  private live = 0;
  private kept: Accumulator | undefined;

  constructor(readonly fieldCount: number) {
    this.postings = Array.from({ length: fieldCount }, () => []);
    this.totalLength = new Array<number>(fieldCount).fill(0);
    this.lengths = Array.from({ length: fieldCount }, () => new Uint16Array(16));
  }

  /**
   * An accumulator for one query of `stride` words (32 a word), cleared: one of the usual
   * stride is kept and reused, so a query does not allocate and zero arrays as large as the
   * index. Valid until the next call (queries run one at a time).
   */
  accumulator(stride: number): Accumulator {
    const kept = this.kept;
    if (stride !== 1) return new Accumulator(this.slotCount, stride);
    if (kept !== undefined && kept.scores.length >= this.slotCount) {
      kept.clear();
      return kept;
    }
    return (this.kept = new Accumulator(this.slotCount, 1));
  }

  /** Documents held. */
  get size(): number {
    return this.live;
  }

  /** Slots ever used (the size a query's accumulator needs). */
  get slots(): number {
    return this.slotCount;
  }

  /** The length of a document's field (distinct words), for priors on it. */
  fieldLength(field: number, doc: number): number {
    return this.lengths[field][doc];
  }

  /** Indexes a document (one entry per field) and returns its slot. */
  add(fields: readonly IndexedField[]): number {
    return this.addPrepared(prepareDoc(fields, this.terms));
  }

  /** Indexes a document whose fields are counted already (prepared.ts) and returns its slot. */
  addPrepared(doc: PreparedDoc): number {
    const slot = this.freeSlots.pop() ?? this.slotCount++;
    if (slot >= this.lengths[0].length) this.lengths = this.lengths.map((l) => grow(l, slot + 1));
    const fields = this.fieldCount;
    const refs = this.terms.refs;
    for (let f = 0, i = 2 * fields; f < fields; f++) {
      const length = Math.min(doc[fields + f], 0xffff);
      this.lengths[f][slot] = length;
      this.totalLength[f] += length;
      const lists = this.postings[f];
      for (const end = 2 * fields + 2 * doc[f]; i < end; i += 2) {
        const id = doc[i];
        let list = lists[id];
        if (list === undefined) lists[id] = list = new Postings();
        list.add(slot, doc[i + 1]);
        refs[id]++;
      }
    }
    this.live++;
    return slot;
  }

  /** Removes the document in `slot`, given the same fields it was added with. */
  remove(slot: number, fields: readonly IndexedField[] | PreparedDoc): void {
    const doc = fields instanceof Int32Array ? fields : prepareDoc(fields, this.terms);
    const count = this.fieldCount;
    const refs = this.terms.refs;
    for (let f = 0, i = 2 * count; f < count; f++) {
      this.totalLength[f] -= this.lengths[f][slot];
      this.lengths[f][slot] = 0;
      const lists = this.postings[f];
      for (const end = 2 * count + 2 * doc[f]; i < end; i += 2) {
        const id = doc[i];
        const list = lists[id];
        if (list === undefined) continue;
        list.remove(slot);
        if (--refs[id] === 0) this.terms.released.push(id);
        if (list.length === 0) lists[id] = undefined;
      }
    }
    this.freeSlots.push(slot);
    this.live--;
  }

  /** The sum of a field's lengths over the documents held. */
  fieldTotal(field: number): number {
    return this.totalLength[field];
  }

  /**
   * Adds `weight` × BM25 of `term` in field `field` to every document holding
   * it, and marks those documents as covering the query words of `wordBits`
   * (bit i: query word i). With a `subset`, only its documents count: they
   * are scored, and BM25's figures (documents, documents holding the term,
   * mean field length) are theirs, exactly as in an index of them alone.
   */
  accumulate(acc: Accumulator, field: number, term: string, weight: number, wordBits: Uint32Array, bm25: Bm25Parameters, subset?: Subset): void {
    const id = this.terms.find(term);
    const list = id === undefined ? undefined : this.postings[field][id];
    const live = subset === undefined ? this.live : subset.size;
    if (list === undefined || live === 0) return;
    const { data } = list;
    const member = subset?.member;
    let n = list.length;
    if (member !== undefined && subset!.size !== this.live) {
      n = 0;
      for (let i = 0; i < 2 * list.length; i += 2) n += member[data[i]];
      if (n === 0) return;
    }
    const idf = Math.log(1 + (live - n + 0.5) / (n + 0.5));
    const average = (subset === undefined ? this.totalLength[field] : subset.totalLength[field]) / live;
    const lengths = this.lengths[field];
    const { k, b, d } = bm25;
    const factor = weight * idf;
    const lengthPart = average > 0 ? (k * b) / average : 0;
    const { scores, covered, touched, stride } = acc;
    const bits = wordBits[0];
    for (let i = 0; i < 2 * list.length; i += 2) {
      const doc = data[i];
      if (member !== undefined && member[doc] === 0) continue;
      const tf = data[i + 1];
      scores[doc] += factor * (d + (tf * (k + 1)) / (tf + k * (1 - b) + lengthPart * lengths[doc]));
      if (stride === 1) {
        // The usual query (at most 32 words): one bit set per slot.
        if (covered[doc] === 0) touched[acc.touchedCount++] = doc;
        covered[doc] |= bits;
        continue;
      }
      const base = doc * stride;
      let fresh = true;
      for (let w = 0; w < stride; w++) if (covered[base + w] !== 0) fresh = false;
      if (fresh) touched[acc.touchedCount++] = doc;
      for (let w = 0; w < stride; w++) covered[base + w] |= wordBits[w];
    }
  }
}

/** Some of an index's documents, as one view sees them: BM25 counts only these. */
export interface Subset {
  /** By slot: 1 for a document of the subset. */
  readonly member: Uint8Array;
  /** Documents in the subset. */
  readonly size: number;
  /** By field: the sum of the subset's field lengths. */
  readonly totalLength: readonly number[];
}

function grow(array: Uint16Array, needed: number): Uint16Array {
  let size = array.length;
  while (size < needed) size *= 2;
  const next = new Uint16Array(size);
  next.set(array);
  return next;
}
