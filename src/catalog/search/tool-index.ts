// One search index over one visible set of tools (docs/search.md): BM25 over
// the fields of documents.ts, in our own compact term index
// (inverted-index.ts), holding exactly the tools one set of callers may see,
// so a score depends on nothing those callers cannot see (BM25's document
// frequencies and field lengths are corpus-wide).
//
// Kept up to date by `sync`, which compares the entries it indexed with the
// ones it is given: a tool whose entry is the same object, or whose content
// identity is equal, is left alone; only added, removed and changed tools
// touch the index. Removal is exact (the indexed fields are made again from
// the old entry), so an index kept up to date scores as one built afresh
// from the same tools would.
import { SAFETY_TIERS, type SafetyTier, SOURCES, type Source } from '../../contract/descriptor.js';
import type { ToolEntry } from '../snapshot.js';
import { contentIdentity, SEARCH_FIELDS, type SearchField, searchDocument } from './documents.js';
import { Accumulator, type Bm25Parameters, type IndexedField, InvertedIndex } from './inverted-index.js';
import { TopHits } from './top-hits.js';
import { indexTerm, queryTerms, type Synonyms, words } from './text.js';
import { type MeaningText, queryVector, SlotVectors, toolVector } from './meaning.js';
import type { WordVectors } from './word-vectors.js';
import { SourceTable, sourceIdOf } from './source-prior.js';
import { ALL_SIGNALS, DEFAULT_FUSION, type Fusion, type IndexCounters, type IndexOptions, type SearchAnswer, type SearchFilter, type SearchHit } from './search-types.js';

export { ALL_SIGNALS, DEFAULT_FUSION, type Fusion, type IndexCounters, type IndexOptions, type SearchAnswer, type SearchFilter, type SearchHit, type SearchSignal } from './search-types.js';

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
const PAIR_FIELDS = [SEARCH_FIELDS.indexOf('name'), SEARCH_FIELDS.indexOf('title')];
const PAIR_FIELD = SEARCH_FIELDS.length;
const PAIR_WEIGHT = 4;
/** Candidates each signal brings to the fusion. */
const FUSION_POOL = 100;
/** Candidates per source for the per-source ranking. */
const PER_SOURCE_POOL = 5;
const TIER_RANK = new Map<SafetyTier, number>(SAFETY_TIERS.map((t, i) => [t, i]));
const SOURCE_CODE = new Map<Source, number>(SOURCES.map((s, i) => [s, i]));

interface TermHits {
  /** The best over all tools. */
  top: TopHits;
  /** The best of each source, by source number. */
  perSource: Map<number, TopHits>;
  /** Tools that matched a word (and passed the filter). */
  total: number;
  matched: (slot: number) => boolean;
}

interface Indexed {
  entry: ToolEntry;
  slot: number;
}

/** A tool's fields as the term index holds them: those of documents.ts, then the word pairs. */
function indexedFields(entry: ToolEntry): IndexedField[] {
  const doc = searchDocument(entry);
  const fields = SEARCH_FIELDS.map((field) => {
    const tokens = words(doc[field]);
    const terms: string[] = [];
    for (const w of tokens) {
      const t = indexTerm(w);
      if (t !== undefined) terms.push(t);
    }
    return { terms, length: new Set(tokens).size };
  });
  const pairs = PAIR_FIELDS.flatMap((f) => adjacentPairs(fields[f].terms));
  fields.push({ terms: pairs, length: new Set(pairs).size });
  return fields;
}

function meaningText(entry: ToolEntry): MeaningText {
  const doc = searchDocument(entry);
  return { name: doc.name.slice(doc.name.indexOf('.') + 1), title: doc.title, description: doc.description };
}

function adjacentPairs(terms: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 1; i < terms.length; i++) if (terms[i - 1] !== terms[i]) out.push(`${terms[i - 1]} ${terms[i]}`);
  return out;
}

export class ToolSearchIndex {
  private readonly terms = new InvertedIndex(SEARCH_FIELDS.length + 1);
  private readonly indexed = new Map<string, Indexed>();
  /** By slot: the entry indexed there (undefined for a free slot), its toolId, source and tier, read without touching the entry. */
  private readonly bySlot: (Indexed | undefined)[] = [];
  private readonly slotIds: string[] = [];
  /** The entries of the last sync, in their order. */
  private last: readonly ToolEntry[] = [];
  private slotSource: Uint8Array = new Uint8Array(16);
  /** By slot: the number of the tool's own source in `sources`. */
  private slotOrigin: Uint16Array = new Uint16Array(16);
  private readonly sources = new SourceTable();
  private readonly fusion: Fusion;
  private slotTier: Uint8Array = new Uint8Array(16);

  private vectorsUsed: WordVectors | undefined;
  private slotVectors: SlotVectors | undefined;

  constructor(
    private readonly synonyms: Synonyms,
    private readonly counters: IndexCounters,
    private readonly options: IndexOptions = { signals: ALL_SIGNALS },
  ) {
    this.fusion = { ...DEFAULT_FUSION, ...options.fusion };
  }

  get size(): number {
    return this.indexed.size;
  }

  /** Makes the index hold exactly these entries, touching only what differs from what it holds. */
  sync(entries: readonly ToolEntry[]): void {
    if (!this.syncInPlace(entries)) this.syncByToolId(entries);
    this.last = entries;
  }

  /**
   * The usual refresh: the same tools in the same order, a few entries new.
   * Comparing the two lists position by position reads only their pointers,
   * so an unchanged tool costs nothing (a walk through 10,000 entries' own
   * fields is slow on a busy machine). False, having changed nothing, when
   * the lists are not aligned.
   */
  private syncInPlace(entries: readonly ToolEntry[]): boolean {
    const last = this.last;
    if (last.length !== entries.length) return false;
    const differing: number[] = [];
    for (let i = 0; i < entries.length; i++) if (entries[i] !== last[i]) differing.push(i);
    if (differing.some((i) => entries[i].tool.descriptor.toolId !== last[i].tool.descriptor.toolId)) return false;
    for (const i of differing) this.update(this.indexed.get(entries[i].tool.descriptor.toolId)!, entries[i]);
    return true;
  }

  private syncByToolId(entries: readonly ToolEntry[]): void {
    // Removals first, so their slots are free for the additions.
    const current = new Map<string, ToolEntry>();
    for (const entry of entries) current.set(entry.tool.descriptor.toolId, entry);
    for (const [id, known] of this.indexed) {
      if (current.has(id)) continue;
      this.terms.remove(known.slot, indexedFields(known.entry));
      this.bySlot[known.slot] = undefined;
      this.indexed.delete(id);
      this.counters.removed++;
    }
    for (const [id, entry] of current) {
      const known = this.indexed.get(id);
      if (known === undefined) {
        this.put({ entry, slot: -1 });
        this.counters.added++;
      } else this.update(known, entry);
    }
  }

  /** A tool indexed before, in a new entry: indexed again only if its content changed. */
  private update(known: Indexed, entry: ToolEntry): void {
    if (known.entry === entry) return;
    if (contentIdentity(known.entry) !== contentIdentity(entry)) {
      this.terms.remove(known.slot, indexedFields(known.entry));
      this.bySlot[known.slot] = undefined;
      known.entry = entry;
      this.put(known);
      this.counters.replaced++;
    }
    known.entry = entry;
  }

  private put(item: Indexed): void {
    const slot = (item.slot = this.terms.add(indexedFields(item.entry)));
    const d = item.entry.tool.descriptor;
    if (slot >= this.slotTier.length) {
      this.slotTier = grown(this.slotTier, slot);
      this.slotSource = grown(this.slotSource, slot);
      const origin = new Uint16Array(this.slotTier.length);
      origin.set(this.slotOrigin);
      this.slotOrigin = origin;
    }
    this.bySlot[slot] = item;
    this.slotIds[slot] = d.toolId;
    this.slotSource[slot] = SOURCE_CODE.get(d.source)!;
    this.slotOrigin[slot] = this.sources.numberOf(sourceIdOf(d.toolId, d.source), item.entry.tool.raw.sourceTitle);
    this.slotTier[slot] = TIER_RANK.get(d.safetyTier)!;
    if (this.vectorsUsed !== undefined) toolVector(this.vectorsUsed, meaningText(item.entry), this.slotVectors!.slot(slot));
    this.indexed.set(item.entry.tool.descriptor.toolId, item);
  }

  search(query: string, limit: number, filter: SearchFilter = {}): SearchAnswer {
    if (this.terms.size === 0) return { hits: [], total: 0 };
    const pass = this.filterOf(filter);
    const { signals } = this.options;
    const f = this.fusion;
    const useTerms = signals.includes('terms');
    const vectors = this.currentVectors();
    const qv = vectors === undefined || !signals.includes('meaning') ? undefined : queryVector(vectors, query);
    const named = signals.includes('prior') ? this.sources.named(query, vectors) : new Set<number>();
    const byTerms = useTerms ? this.termHits(query, FUSION_POOL, pass) : undefined;
    const byMeaning = qv === undefined ? undefined : this.meaningHits(qv, FUSION_POOL, pass);
    // Reciprocal rank fusion: each signal contributes by the rank it gives, not by its score's scale.
    const fused = new Map<number, number>();
    const add = (slot: number, weight: number, rank: number): void => void fused.set(slot, (fused.get(slot) ?? 0) + weight / (f.k + rank));
    if (byTerms !== undefined) {
      for (let i = 0; i < byTerms.top.count; i++) add(byTerms.top.slots[i], f.terms, i + 1);
      if (signals.includes('prior')) for (const top of byTerms.perSource.values()) for (let i = 0; i < top.count; i++) add(top.slots[i], f.perSource, i + 1);
    }
    if (byMeaning !== undefined) for (let i = 0; i < byMeaning.count; i++) add(byMeaning.slots[i], f.meaning, i + 1);
    const top = new TopHits(limit, (slot) => this.slotIds[slot]);
    for (const [slot, score] of fused) top.offer(Math.round(score * (named.has(this.slotOrigin[slot]) ? f.named : 1) * 1e6) / 1e2, slot);
    let extra = 0;
    if (byMeaning !== undefined) for (let i = 0; i < byMeaning.count; i++) if (byTerms === undefined || !byTerms.matched(byMeaning.slots[i])) extra++;
    return this.answer(top, (byTerms?.total ?? 0) + extra);
  }

  private answer(top: TopHits, total: number): SearchAnswer {
    const hits: SearchHit[] = [];
    for (let i = 0; i < top.count; i++) hits.push({ entry: this.bySlot[top.slots[i]]!.entry, score: top.scores[i] });
    return { hits, total };
  }

  /** Whether a slot passes the filter: its source and tier, read from typed arrays. */
  private filterOf(filter: SearchFilter): (slot: number) => boolean {
    const source = filter.source === undefined ? -1 : SOURCE_CODE.get(filter.source)!;
    const tier = filter.safetyTier === undefined ? -1 : TIER_RANK.get(filter.safetyTier)!;
    const maxTier = filter.maxTier === undefined ? SAFETY_TIERS.length : TIER_RANK.get(filter.maxTier)!;
    const { slotSource, slotTier, slotOrigin } = this;
    // A source the index does not hold (or the caller does not see) matches nothing.
    const origin = filter.sourceId === undefined ? -1 : (this.sources.find(filter.sourceId) ?? -2);
    return (doc) => !((source >= 0 && slotSource[doc] !== source) || (tier >= 0 && slotTier[doc] !== tier) || slotTier[doc] > maxTier || (origin !== -1 && slotOrigin[doc] !== origin));
  }

  /** The vectors in use; a change (they finished loading) makes every tool's vector. */
  private currentVectors(): WordVectors | undefined {
    const vectors = this.options.vectors?.();
    if (vectors !== undefined && vectors !== this.vectorsUsed && this.options.signals.includes('meaning')) {
      this.vectorsUsed = vectors;
      this.slotVectors = new SlotVectors(vectors.dimensions);
      for (const item of this.indexed.values()) toolVector(vectors, meaningText(item.entry), this.slotVectors.slot(item.slot));
    }
    return vectors;
  }

  private meaningHits(qv: Float32Array, pool: number, pass: (slot: number) => boolean): TopHits {
    const top = new TopHits(pool, (slot) => this.slotIds[slot]);
    const vectors = this.slotVectors!;
    for (const { slot } of this.indexed.values()) {
      if (!pass(slot)) continue;
      const c = vectors.cosine(slot, qv);
      if (c > this.fusion.minCosine) top.offer(Math.round(c * 1e4) / 1e4, slot);
    }
    return top;
  }

  /** BM25 over the fields, times coverage squared, over the short-name prior: the best `pool` slots. */
  private termHits(query: string, pool: number, pass: (slot: number) => boolean): TermHits {
    const { terms, expansions, origins } = queryTerms(query, this.synonyms);
    const idOf = (slot: number): string => this.slotIds[slot];
    const top = new TopHits(pool, idOf);
    const perSource = new Map<number, TopHits>();
    if (terms.length === 0) return { top, perSource, total: 0, matched: () => false };
    // Each query word a bit: a tool's score is multiplied by the square of the number of words it covers,
    // so a tool matching three synonyms of one word does not outrank one matching two different words.
    const wordIndex = new Map<string, number>();
    for (const from of origins.values()) for (const w of from) if (!wordIndex.has(w)) wordIndex.set(w, wordIndex.size);
    const stride = Math.ceil(wordIndex.size / 32);
    const bitsOf = (term: string): Uint32Array => {
      const bits = new Uint32Array(stride);
      for (const w of origins.get(term) ?? [term]) {
        const i = wordIndex.get(w)!;
        bits[i >>> 5] |= 1 << (i & 31);
      }
      return bits;
    };
    const acc = new Accumulator(this.terms.slots, stride);
    for (const term of terms) {
      const bits = bitsOf(term);
      for (let f = 0; f < BOOSTS.length; f++) this.terms.accumulate(acc, f, term, BOOSTS[f], bits, BM25);
    }
    for (let i = 1; i < terms.length; i++) {
      const bits = bitsOf(terms[i - 1]);
      const second = bitsOf(terms[i]);
      for (let w = 0; w < stride; w++) bits[w] |= second[w];
      this.terms.accumulate(acc, PAIR_FIELD, `${terms[i - 1]} ${terms[i]}`, PAIR_WEIGHT, bits, BM25);
    }
    for (const term of expansions) {
      const bits = bitsOf(term);
      for (const f of SYNONYM_FIELDS) this.terms.accumulate(acc, f, term, BOOSTS[f] * SYNONYM_WEIGHT, bits, BM25);
    }
    let total = 0;
    for (let i = 0; i < acc.touchedCount; i++) {
      const doc = acc.touched[i];
      if (!pass(doc)) continue;
      total++;
      const covered = acc.coverage(doc);
      const score = Math.round(((acc.scores[doc] * covered * covered) / (1 + SHORT_NAME_PRIOR * this.terms.fieldLength(NAME_FIELD, doc))) * 1e4) / 1e4;
      top.offer(score, doc);
      const origin = this.slotOrigin[doc];
      let own = perSource.get(origin);
      if (own === undefined) perSource.set(origin, (own = new TopHits(PER_SOURCE_POOL, idOf)));
      own.offer(score, doc);
    }
    return { top, perSource, total, matched: (slot) => acc.scores[slot] > 0 };
  }
}

function grown(array: Uint8Array, slot: number): Uint8Array {
  const next = new Uint8Array(Math.max(array.length * 2, slot + 1));
  next.set(array);
  return next;
}
