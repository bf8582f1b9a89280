// The term signal of tool search (docs/search.md "Ranking"): BM25 over the
// fields of documents.ts, times the square of the number of query words a
// tool covers, over the short-name prior; the best over all tools and the
// best of each source. Reads only the term index's typed arrays and the
// slots' source numbers: nothing is allocated per matching tool.
import type { SearchField } from './documents.js';
import { SEARCH_FIELDS } from './documents.js';
import { type Bm25Parameters, type InvertedIndex, type Subset } from './inverted-index.js';
import { queryTerms, type Synonyms } from './text.js';
import { TopHits } from './top-hits.js';

/** Field weights: a word in the toolId or title says more about the tool than one in a parameter's description. */
const FIELD_BOOSTS: Record<SearchField, number> = { name: 2, title: 4, description: 1, params: 0.4, paramText: 0.2, keywords: 1 };
const BOOSTS = SEARCH_FIELDS.map((f) => FIELD_BOOSTS[f]);
/** Synonyms are looked for in the toolId and title only: that is where a tool names its action and object. */
const SYNONYM_FIELDS = (['name', 'title'] as const).map((f) => SEARCH_FIELDS.indexOf(f));
/** A synonym's match counts less than the word itself. */
const SYNONYM_WEIGHT = 0.5;
/** Strong length normalization (b): a short title that says exactly the request wins. */
const BM25: Bm25Parameters = { k: 1.2, b: 0.9, d: 0.5 };
/**
 * Among near twins (`list-for-org`, `list-for-user`, `list-for-authenticated-user`) the one with the shorter
 * toolId is the more general; when the request does not say which, it should come first. A score is divided
 * by 1 + this × the number of distinct words of the toolId.
 */
const SHORT_NAME_PRIOR = 0.15;
const NAME_FIELD = SEARCH_FIELDS.indexOf('name');
/**
 * Word pairs: two query words next to each other (stopwords aside) that stand next to each other in the
 * toolId or title ("gpg key", "pull request") say more than the two words apart. Indexed as one more field.
 */
export const PAIR_FIELD = SEARCH_FIELDS.length;
const PAIR_WEIGHT = 4;

export interface TermHits {
  /** The best over all tools. */
  top: TopHits;
  /** The best of each source, by source number. */
  perSource: Map<number, TopHits>;
  /** Tools that matched a word (and passed the filter). */
  total: number;
  matched: (slot: number) => boolean;
}

export interface TermQuery {
  index: InvertedIndex;
  /** The tools of the view searched: only they are scored, with BM25's figures over them alone. */
  subset: Subset;
  synonyms: Synonyms;
  /** The toolId in a slot (the tie-break). */
  idOf: (slot: number) => string;
  /** By slot: the number of the tool's source. */
  origin: Uint16Array;
  pool: number;
  perSourcePool: number;
}

/** The query's words as bits: a tool's score is multiplied by the square of the number of words it covers. */
function wordBits(origins: ReadonlyMap<string, readonly string[]>): { stride: number; bitsOf: (term: string) => Uint32Array } {
  // A tool matching three synonyms of one word does not outrank one matching two different words.
  const wordIndex = new Map<string, number>();
  for (const from of origins.values()) for (const w of from) if (!wordIndex.has(w)) wordIndex.set(w, wordIndex.size);
  const stride = Math.max(1, Math.ceil(wordIndex.size / 32));
  const bitsOf = (term: string): Uint32Array => {
    const bits = new Uint32Array(stride);
    for (const w of origins.get(term) ?? [term]) {
      const i = wordIndex.get(w)!;
      bits[i >>> 5] |= 1 << (i & 31);
    }
    return bits;
  };
  return { stride, bitsOf };
}

/** The best `pool` slots by words, and the best `perSourcePool` of each source. */
export function termHits(q: TermQuery, query: string, pass: (slot: number) => boolean): TermHits {
  const { terms, expansions, origins } = queryTerms(query, q.synonyms);
  const top = new TopHits(q.pool, q.idOf);
  const perSource = new Map<number, TopHits>();
  if (terms.length === 0) return { top, perSource, total: 0, matched: () => false };
  const { stride, bitsOf } = wordBits(origins);
  const index = q.index;
  const acc = index.accumulator(stride);
  for (const term of terms) {
    const bits = bitsOf(term);
    for (let f = 0; f < BOOSTS.length; f++) index.accumulate(acc, f, term, BOOSTS[f], bits, BM25, q.subset);
  }
  for (let i = 1; i < terms.length; i++) {
    const bits = bitsOf(terms[i - 1]);
    const second = bitsOf(terms[i]);
    for (let w = 0; w < stride; w++) bits[w] |= second[w];
    index.accumulate(acc, PAIR_FIELD, `${terms[i - 1]} ${terms[i]}`, PAIR_WEIGHT, bits, BM25, q.subset);
  }
  for (const term of expansions) {
    const bits = bitsOf(term);
    for (const f of SYNONYM_FIELDS) index.accumulate(acc, f, term, BOOSTS[f] * SYNONYM_WEIGHT, bits, BM25, q.subset);
  }
  let total = 0;
  for (let i = 0; i < acc.touchedCount; i++) {
    const doc = acc.touched[i];
    if (!pass(doc)) continue;
    total++;
    const covered = acc.coverage(doc);
    const score = Math.round(((acc.scores[doc] * covered * covered) / (1 + SHORT_NAME_PRIOR * index.fieldLength(NAME_FIELD, doc))) * 1e4) / 1e4;
    top.offer(score, doc);
    const origin = q.origin[doc];
    let own = perSource.get(origin);
    if (own === undefined) perSource.set(origin, (own = new TopHits(q.perSourcePool, q.idOf)));
    own.offer(score, doc);
  }
  return { top, perSource, total, matched: (slot) => acc.scores[slot] > 0 };
}
