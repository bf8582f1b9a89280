// One view's search index (docs/search.md): the tools one set of callers
// sees, as a set of slots of the shared tool table (tool-table.ts), with its
// own BM25 figures over them (documents, documents holding a term, mean
// field lengths), so a score depends on nothing those callers cannot see.
// Ranking fuses the term signal (term-ranking.ts), the meaning signal
// (meaning.ts) and the sources prior (source-prior.ts) by reciprocal rank.
//
// Making a view's index is marking its slots and summing its field lengths:
// the text of its tools was tokenized and filed once, by the table. At a
// swap that keeps the view's tools (the same ids in the same order) only the
// tools the table filed again since are unmarked and marked (its log of
// changes); otherwise every slot is marked again. The counters count the
// tools that entered, left or changed in the view.
import { SAFETY_TIERS } from '../../contract/descriptor.js';
import type { ToolEntry } from '../snapshot.js';
import { SEARCH_FIELDS } from './documents.js';
import type { Subset } from './inverted-index.js';
import { wantsToChange, wantsToRead } from './intent.js';
import type { ExtraRanking } from './endpoint-vectors.js';
import { queryVector } from './meaning.js';
import type { PreparedTool } from './prepared.js';
import { type TermHits, termHits } from './term-ranking.js';
import type { Synonyms } from './text.js';
import { SOURCE_CODE, type TableChange, TIER_RANK, type ToolTable } from './tool-table.js';
import { TopHits } from './top-hits.js';
import { ALL_SIGNALS, DEFAULT_FUSION, type Fusion, type IndexCounters, type IndexOptions, type SearchAnswer, type SearchFilter, type SearchHit } from './search-types.js';

export { ALL_SIGNALS, DEFAULT_FUSION, type Fusion, type IndexCounters, type IndexOptions, type SearchAnswer, type SearchFilter, type SearchHit, type SearchSignal } from './search-types.js';

/** Candidates each signal brings to the fusion. */
const FUSION_POOL = 50;
/** Candidates per source for the per-source ranking. */
const PER_SOURCE_POOL = 5;
const FIELDS = SEARCH_FIELDS.length + 1;

export class ToolSearchIndex implements Subset {
  member: Uint8Array = new Uint8Array(0);
  size = 0;
  totalLength: number[] = new Array<number>(FIELDS).fill(0);
  /** The tools of the view by toolId, as last marked (what the counters compare). */
  private held = new Map<string, PreparedTool>();
  /** The entries wanted, and those marked with the table at `version`. */
  private wanted: readonly ToolEntry[] = [];
  private marked: readonly ToolEntry[] | undefined;
  private version = -1;
  private readonly fusion: Fusion;

  constructor(
    private readonly table: ToolTable,
    private readonly synonyms: Synonyms,
    private readonly counters: IndexCounters,
    private readonly options: IndexOptions = { signals: ALL_SIGNALS },
  ) {
    this.fusion = { ...DEFAULT_FUSION, ...options.fusion };
  }

  /** The view's entries from now on; marked at once when the table holds them, else on the next search. */
  sync(entries: readonly ToolEntry[]): void {
    this.wanted = entries;
    if (!this.table.holding) this.mark();
  }

  /** Marks the view's slots and sums its field lengths, when the entries or the table changed since last time. */
  private mark(): void {
    if (this.marked === this.wanted && this.version === this.table.version) return;
    const changes = this.marked !== undefined && sameIds(this.marked, this.wanted) ? this.table.changesSince(this.version) : undefined;
    if (changes === undefined) this.markAll();
    else this.markChanges(changes);
    this.marked = this.wanted;
    this.version = this.table.version;
  }

  /**
   * The view's tools are the ones last marked: each tool the table removed or filed since is unmarked
   * or marked (a tool filed again may have moved to another slot), with its field lengths.
   */
  private markChanges(changes: readonly TableChange[]): void {
    const slots = this.table.terms.slots;
    if (this.member.length < slots) {
      const member = new Uint8Array(slots);
      member.set(this.member);
      this.member = member;
    }
    /** What the view held of each tool changed, before the changes. */
    const before = new Map<string, PreparedTool>();
    for (const c of changes) {
      const held = this.held.get(c.id);
      if (!c.added) {
        // A tool the view does not hold, or held as filed later than this change.
        if (held !== c.prepared) continue;
        if (!before.has(c.id)) before.set(c.id, held);
        this.count(c, -1);
        this.held.delete(c.id);
      } else if (before.has(c.id)) {
        // The view's tools did not change: a tool filed is one of them when the view held it before.
        this.count(c, 1);
        this.held.set(c.id, c.prepared);
      }
    }
    for (const [id, prepared] of before) if (this.held.get(id) !== prepared) this.counters.replaced++;
  }

  /** Marks (+1) or unmarks (-1) a change's slot, with its field lengths. */
  private count(c: TableChange, sign: 1 | -1): void {
    this.member[c.slot] = sign > 0 ? 1 : 0;
    const doc = c.prepared.fields;
    for (let f = 0; f < FIELDS; f++) this.totalLength[f] += sign * Math.min(doc[FIELDS + f], 0xffff);
  }

  private markAll(): void {
    const { terms, byId } = this.table;
    const member = new Uint8Array(terms.slots);
    const totalLength = new Array<number>(FIELDS).fill(0);
    const held = new Map<string, PreparedTool>();
    for (const entry of this.wanted) {
      const id = entry.tool.descriptor.toolId;
      const item = byId.get(id)!;
      member[item.slot] = 1;
      for (let f = 0; f < FIELDS; f++) totalLength[f] += terms.fieldLength(f, item.slot);
      held.set(id, item.prepared);
      const before = this.held.get(id);
      if (before === undefined) this.counters.added++;
      else if (before !== item.prepared) this.counters.replaced++;
    }
    for (const id of this.held.keys()) if (!held.has(id)) this.counters.removed++;
    this.member = member;
    this.totalLength = totalLength;
    this.held = held;
    this.size = held.size;
  }

  /** Files this view's tools in the shared table now, on the caller's turn (a search does it first). */
  fileView(): void {
    this.table.finishFor(this.wanted);
  }

  /** `extra`: the embeddings endpoint's ranking, fused in place of the word vectors' when it covers the view. */
  search(query: string, limit: number, filter: SearchFilter = {}, extra?: ExtraRanking): SearchAnswer {
    this.fileView();
    this.mark();
    if (this.size === 0) return { hits: [], total: 0 };
    const table = this.table;
    const pass = this.filterOf(filter);
    const { signals } = this.options;
    const f = this.fusion;
    const named = signals.includes('prior') ? table.sources.named(query, table.wordVectors) : new Set<number>();
    const idOf = (slot: number): string => table.slotIds[slot];
    const byExtra = extra?.rank(this.member, table.terms.slots, isEmpty(filter) ? undefined : pass, new TopHits(FUSION_POOL, idOf));
    const vectors = signals.includes('meaning') && byExtra === undefined ? table.wordVectors : undefined;
    const qv = vectors === undefined ? undefined : queryVector(vectors, query);
    const byTerms: TermHits | undefined = signals.includes('terms')
      ? termHits({ index: table.terms, subset: this, synonyms: this.synonyms, idOf, origin: table.slotOrigin, pool: FUSION_POOL, perSourcePool: PER_SOURCE_POOL }, query, pass)
      : undefined;
    const byMeaning = qv === undefined ? undefined : table.vectors!.nearest(qv, f.minCosine, this.member, table.terms.slots, isEmpty(filter) ? undefined : pass, new TopHits(FUSION_POOL, idOf));
    // Reciprocal rank fusion: each signal contributes by the rank it gives, not by its score's scale.
    const fused = new Map<number, number>();
    const add = (slot: number, weight: number, rank: number): void => void fused.set(slot, (fused.get(slot) ?? 0) + weight / (f.k + rank));
    if (byTerms !== undefined) {
      for (let i = 0; i < byTerms.top.count; i++) add(byTerms.top.slots[i], f.terms, i + 1);
      if (signals.includes('prior')) for (const top of byTerms.perSource.values()) for (let i = 0; i < top.count; i++) add(top.slots[i], f.perSource, i + 1);
    }
    if (byMeaning !== undefined) for (let i = 0; i < byMeaning.count; i++) add(byMeaning.slots[i], f.meaning, i + 1);
    if (byExtra !== undefined) for (let i = 0; i < byExtra.count; i++) add(byExtra.slots[i], extra!.weight, i + 1);
    // A request only to read holds back the tools known to change something: a connector's tier comes from its HTTP method
    // (an MCP tool's, without the upstream's hints, is the policy's default, which says nothing).
    const changeFactor = signals.includes('prior') && f.read !== 1 && wantsToRead(query) ? 1 / f.read : 1;
    const readFactor = signals.includes('prior') && f.change !== 1 && wantsToChange(query) ? 1 / f.change : 1;
    const readTier = TIER_RANK.get('read')!;
    const connector = SOURCE_CODE.get('connector')!;
    const top = new TopHits(limit, idOf);
    for (const [slot, score] of fused) {
      const changes = table.slotSource[slot] === connector && table.slotTier[slot] > readTier;
      const reads = table.slotSource[slot] === connector && table.slotTier[slot] <= readTier;
      const prior = (named.has(table.slotOrigin[slot]) ? f.named : 1) * (changes ? changeFactor : reads ? readFactor : 1);
      top.offer(Math.round(score * prior * 1e6) / 1e2, slot);
    }
    let more = 0;
    for (const other of [byMeaning, byExtra]) if (other !== undefined) for (let i = 0; i < other.count; i++) if (byTerms === undefined || !byTerms.matched(other.slots[i])) more++;
    return this.answer(top, (byTerms?.total ?? 0) + more);
  }

  private answer(top: TopHits, total: number): SearchAnswer {
    const hits: SearchHit[] = [];
    for (let i = 0; i < top.count; i++) hits.push({ entry: this.table.bySlot[top.slots[i]]!.entry, score: top.scores[i] });
    return { hits, total };
  }

  /** Whether a slot passes the filter: its source and tier, read from typed arrays. */
  private filterOf(filter: SearchFilter): (slot: number) => boolean {
    const source = filter.source === undefined ? -1 : SOURCE_CODE.get(filter.source)!;
    const tier = filter.safetyTier === undefined ? -1 : TIER_RANK.get(filter.safetyTier)!;
    const maxTier = filter.maxTier === undefined ? SAFETY_TIERS.length : TIER_RANK.get(filter.maxTier)!;
    const { slotSource, slotTier, slotOrigin } = this.table;
    // A source the view does not hold (or the caller does not see) matches nothing.
    const origin = filter.sourceId === undefined ? -1 : (this.table.sources.find(filter.sourceId) ?? -2);
    return (doc) => !((source >= 0 && slotSource[doc] !== source) || (tier >= 0 && slotTier[doc] !== tier) || slotTier[doc] > maxTier || (origin !== -1 && slotOrigin[doc] !== origin));
  }
}

/** Whether two lists of entries name the same tools in the same order. */
function sameIds(a: readonly ToolEntry[], b: readonly ToolEntry[]): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i] && a[i].tool.descriptor.toolId !== b[i].tool.descriptor.toolId) return false;
  return true;
}

const isEmpty = (f: SearchFilter): boolean => f.source === undefined && f.safetyTier === undefined && f.maxTier === undefined && f.sourceId === undefined;
