// Term ids and prepared documents of the term index (inverted-index.ts):
// each distinct term once, as a small integer postings are found by, and a
// document's fields as one typed array of term ids and counts.
/** One document's field as indexed: its index terms (stopwords dropped) and its length. */
export interface IndexedField {
  terms: readonly string[];
  /** Distinct words of the field before stopwords are dropped (BM25's field length). */
  length: number;
}

/**
 * A document's fields as the index files and removes them (prepared.ts makes
 * them for tools): for each of the index's F fields, where its terms end
 * (counted in terms), then each field's length (BM25's), then each field's
 * distinct terms as pairs of a term id (of the index's `TermIds`) and the
 * term's count in the field. One typed array a document: ten thousand tools
 * are held for exact removal in a few megabytes, not tens.
 */
export type PreparedDoc = Int32Array;

/**
 * Term ids: each distinct term once, as a small integer postings are found by.
 * An id no document holds any more is freed only by `sweep`, so ids a caller
 * keeps between two sweeps (prepared.ts's word cache) stay valid.
 */
export class TermIds {
  private readonly ids = new Map<string, number>();
  /** By id: the term. */
  readonly names: string[] = [];
  /** By id: how many (document, field) pairs hold the term. */
  refs = new Int32Array(1024);
  private readonly unused: number[] = [];
  /** Ids whose count of holders fell to zero since the last sweep. */
  readonly released: number[] = [];

  /** The term's id, made when new. */
  idOf(term: string): number {
    const known = this.ids.get(term);
    if (known !== undefined) return known;
    const id = this.unused.pop() ?? this.names.length;
    if (id >= this.refs.length) {
      const refs = new Int32Array(this.refs.length * 2);
      refs.set(this.refs);
      this.refs = refs;
    }
    this.ids.set(term, id);
    this.names[id] = term;
    return id;
  }

  /** The term's id, if some document holds it. */
  find(term: string): number | undefined {
    return this.ids.get(term);
  }

  /** Ids handed out so far (the size of arrays indexed by id). */
  get capacity(): number {
    return this.names.length;
  }

  /** Frees the ids no document holds: ids kept since the last sweep may name another term after it. */
  sweep(): void {
    for (const id of this.released) {
      // Held again since, or freed already (released twice).
      if (this.refs[id] !== 0 || this.ids.get(this.names[id]) !== id) continue;
      this.ids.delete(this.names[id]);
      this.names[id] = '';
      this.unused.push(id);
    }
    this.released.length = 0;
  }
}

/** The fields' distinct terms with their counts, field after field (the index's own terms). */
export function prepareDoc(fields: readonly IndexedField[], terms: TermIds): PreparedDoc {
  const pairs: number[] = [];
  const ends: number[] = [];
  for (const field of fields) {
    for (const [term, n] of frequencies(field.terms)) pairs.push(terms.idOf(term), Math.min(n, 0xffff));
    ends.push(pairs.length / 2);
  }
  return Int32Array.from([...ends, ...fields.map((f) => f.length), ...pairs]);
}

function frequencies(terms: readonly string[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const t of terms) counts.set(t, (counts.get(t) ?? 0) + 1);
  return counts;
}
