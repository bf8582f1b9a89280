// Tool search scoped exactly like the catalog (docs/search.md "Scoping"):
// a caller searches its own view of the current snapshot, through an index
// of exactly the tools in that view. Views listing the same tools (same
// entries, hence the same list ETag) share one index; indexes are made on a
// view's first search and follow every snapshot swap incrementally, so a
// refresh that changed one tool changes one document per index.
//
// Nothing of a tool outside a caller's view reaches that caller's index: not
// its words, not its share of BM25's document counts. Results, scores and
// totals are therefore the same whatever tools other tenants have.
import type { CallerView, CatalogSnapshot } from '../snapshot.js';
import type { CatalogStore } from '../store.js';
import type { Caller } from '../visibility.js';
import { DEFAULT_SYNONYMS, Synonyms } from './text.js';
import { type IndexCounters, type SearchAnswer, type SearchFilter, ToolSearchIndex } from './tool-index.js';

export interface CatalogSearchOptions {
  /** Synonym groups added to the built-in ones. */
  synonyms?: readonly (readonly string[])[];
  /** Indexes kept at most (least recently searched dropped first). */
  maxIndexes?: number;
  /** Whether the built-in synonym groups apply (default true); off only to measure ranking without them. */
  builtInSynonyms?: boolean;
}

export const DEFAULT_MAX_INDEXES = 16;

interface Slot {
  index: ToolSearchIndex;
  /** A caller that sees this slot's tools: whose view the slot follows across swaps. */
  caller: Caller;
  /** The ETag of the view's standard list: equal ETags, equal tools. */
  fingerprint: string;
}

export class CatalogSearch {
  private readonly synonyms: Synonyms;
  private readonly maxIndexes: number;
  /** By fingerprint, least recently used first. */
  private readonly slots = new Map<string, Slot>();
  private readonly byView = new WeakMap<CallerView, Slot>();
  private readonly counters: IndexCounters = { added: 0, removed: 0, replaced: 0 };
  private readonly stopFollowing: () => void;

  constructor(
    private readonly store: CatalogStore,
    options: CatalogSearchOptions = {},
  ) {
    this.synonyms = new Synonyms([...(options.builtInSynonyms === false ? [] : DEFAULT_SYNONYMS), ...(options.synonyms ?? [])]);
    this.maxIndexes = options.maxIndexes ?? DEFAULT_MAX_INDEXES;
    this.stopFollowing = store.onSwap((next) => this.follow(next));
  }

  /** The caller's visible tools that match `query`, best first. */
  search(caller: Caller, query: string, limit: number, filter?: SearchFilter, snapshot: CatalogSnapshot = this.store.current()): SearchAnswer {
    return this.indexFor(snapshot.viewFor(caller), caller).search(query, limit, filter);
  }

  /** Index operations so far, over all indexes. */
  stats(): Readonly<IndexCounters> & { indexes: number } {
    return { ...this.counters, indexes: this.slots.size };
  }

  close(): void {
    this.stopFollowing();
    this.slots.clear();
  }

  private indexFor(view: CallerView, caller: Caller): ToolSearchIndex {
    let slot = this.byView.get(view);
    if (slot === undefined) {
      const fingerprint = view.standard.etag;
      slot = this.slots.get(fingerprint);
      if (slot === undefined) {
        const index = new ToolSearchIndex(this.synonyms, this.counters);
        index.sync(view.entries);
        slot = { index, caller: { tenant: caller.tenant, scopes: new Set(caller.scopes) }, fingerprint };
      }
      this.byView.set(view, slot);
    }
    // Most recently used last.
    if (!this.slots.delete(slot.fingerprint) && this.slots.size >= this.maxIndexes) this.slots.delete(this.slots.keys().next().value as string);
    this.slots.set(slot.fingerprint, slot);
    return slot.index;
  }

  /** On a swap: every index follows its callers' new view, touching only what changed. */
  private follow(next: CatalogSnapshot): void {
    const before = [...this.slots.values()];
    this.slots.clear();
    for (const slot of before) {
      const view = next.viewFor(slot.caller);
      const fingerprint = view.standard.etag;
      const same = this.slots.get(fingerprint);
      // Two views that now list the same tools: one index is enough.
      if (same !== undefined) {
        this.byView.set(view, same);
        continue;
      }
      slot.index.sync(view.entries);
      slot.fingerprint = fingerprint;
      this.slots.set(fingerprint, slot);
      this.byView.set(view, slot);
    }
  }
}
