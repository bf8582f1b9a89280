// Tool search scoped exactly like the catalog (docs/search.md "Scoping"):
// a caller searches its own view of the current snapshot, through an index
// of exactly the tools in that view. Views listing the same tools (same
// entries, hence the same list ETag) share one index; indexes are made on a
// view's first search and follow every snapshot swap.
//
// The text of every tool of the snapshot is tokenized, filed and given its
// meaning vector once, in a table all views share (tool-table.ts), in the
// background as soon as a snapshot is swapped in; a view's index is the set
// of its slots with its own BM25 figures, so making one costs a pass over
// its entries, and nothing of a tool outside a caller's view reaches that
// caller's scores: not its words, not its share of BM25's document counts.
// Results, scores and totals are the same whatever tools other tenants have.
import type { CallerView, CatalogSnapshot } from '../snapshot.js';
import type { CatalogStore } from '../store.js';
import { EndpointVectors, type EndpointVectorsOptions } from './endpoint-vectors.js';
import type { Caller } from '../visibility.js';
import { DEFAULT_SYNONYMS, Synonyms } from './text.js';
import { ALL_SIGNALS, type IndexCounters, type Fusion, type IndexOptions, type SearchAnswer, type SearchFilter, type SearchSignal, ToolSearchIndex } from './tool-index.js';
import { ToolTable } from './tool-table.js';
import type { WordVectors } from './word-vectors.js';

export interface CatalogSearchOptions {
  /** Synonym groups added to the built-in ones. */
  synonyms?: readonly (readonly string[])[];
  /** Indexes kept at most (least recently searched dropped first). */
  maxIndexes?: number;
  /** Whether the built-in synonym groups apply (default true); off only to measure ranking without them. */
  builtInSynonyms?: boolean;
  /** The signals ranking uses (default all); fewer only to measure each alone. */
  signals?: readonly SearchSignal[];
  /** Fusion weights other than the defaults (only to tune them on the benchmark). */
  fusion?: Partial<Fusion>;
  /** Loads word vectors for the meaning signal, called once (none: words alone rank). */
  wordVectors?: () => Promise<WordVectors | undefined>;
  /** Load the word vectors at once rather than on the first search (the benchmark measures a view ready with them). */
  preloadVectors?: boolean;
  /** An operator's embeddings endpoint, ranking in place of the word vectors while it answers (endpoint-vectors.ts). */
  embeddings?: EndpointVectorsOptions;
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
  private readonly indexOptions: IndexOptions;
  private readonly table: ToolTable;
  /** The snapshot the table follows. */
  private followed: CatalogSnapshot;
  private vectorsLoaded: Promise<void> | undefined;
  private readonly loadVectors: (() => Promise<WordVectors | undefined>) | undefined;
  private readonly endpoint: EndpointVectors | undefined;

  constructor(
    private readonly store: CatalogStore,
    options: CatalogSearchOptions = {},
  ) {
    this.synonyms = new Synonyms([...(options.builtInSynonyms === false ? [] : DEFAULT_SYNONYMS), ...(options.synonyms ?? [])]);
    this.maxIndexes = options.maxIndexes ?? DEFAULT_MAX_INDEXES;
    const signals = options.signals ?? ALL_SIGNALS;
    this.indexOptions = { signals, ...(options.fusion !== undefined ? { fusion: options.fusion } : {}) };
    this.loadVectors = signals.includes('meaning') ? options.wordVectors : undefined;
    this.table = new ToolTable();
    this.endpoint = options.embeddings === undefined || !signals.includes('meaning') ? undefined : new EndpointVectors(this.table, options.embeddings);
    this.followed = store.current();
    this.table.follow(this.followed.entries);
    this.stopFollowing = store.onSwap((next) => this.follow(next));
    if (options.preloadVectors === true) void this.vectorsLoading();
  }

  /**
   * Starts loading the word vectors, once: on the first search (or at start
   * when asked), so a host that never searches never reads them. Until they
   * are loaded and every tool has its vector (seconds on a machine's first
   * start, then a read of their cache and a second or so) words alone rank.
   */
  private vectorsLoading(): Promise<void> {
    if (this.vectorsLoaded === undefined) {
      const load = this.loadVectors;
      const loaded = (v: WordVectors | undefined): void => void (v !== undefined && this.table.useVectors(v));
      this.vectorsLoaded = load === undefined ? Promise.resolve() : load().then(loaded, () => undefined);
    }
    return this.vectorsLoaded;
  }

  /**
   * Resolves once the word vectors are loaded (or known to be missing) and
   * every tool of the current snapshot is filed with its vector; starts
   * loading them.
   */
  async whenReady(): Promise<void> {
    await this.vectorsLoading();
    await this.table.whenIdle();
    if (this.endpoint !== undefined) {
      this.endpoint.follow();
      await this.endpoint.whenIdle();
    }
  }

  /** Word vectors in use, if any: their count of words (for health and the docs' memory figures). */
  vectorWords(): number {
    return this.table.wordVectors?.size ?? 0;
  }

  /**
   * The caller's visible tools that match `query`, best first, ranked by the
   * embeddings endpoint's vectors as well when one is configured: its vector
   * of the request is awaited up to its deadline, else the offline ranking answers.
   */
  async searchAwaiting(caller: Caller, query: string, limit: number, filter?: SearchFilter, snapshot: CatalogSnapshot = this.store.current()): Promise<SearchAnswer> {
    const embedded = this.endpoint === undefined ? undefined : await this.endpoint.queryVector(query);
    return this.search(caller, query, limit, filter, snapshot, embedded);
  }

  /** The caller's visible tools that match `query`, best first; `embedded` is the request's vector from the embeddings endpoint. */
  search(caller: Caller, query: string, limit: number, filter?: SearchFilter, snapshot: CatalogSnapshot = this.store.current(), embedded?: Float32Array): SearchAnswer {
    void this.vectorsLoading();
    if (snapshot !== this.followed) this.follow(snapshot);
    const index = this.indexFor(snapshot.viewFor(caller), caller);
    if (this.endpoint === undefined) return index.search(query, limit, filter);
    // The view's tools, not the whole table: the rest is filed in the background and followed at a later search.
    index.fileView();
    this.endpoint.follow();
    return index.search(query, limit, filter, embedded === undefined ? undefined : this.endpoint.ranking(embedded));
  }

  /** The embeddings endpoint's vectors held by content, and their bytes, if one is configured. */
  endpointStats(): { vectors: number; bytes: number } | undefined {
    return this.endpoint?.stats();
  }

  /** Index operations so far, over all indexes: tools that entered, left or changed in a view; and the tools the shared table filed. */
  stats(): Readonly<IndexCounters> & { indexes: number; filed: number } {
    return { ...this.counters, indexes: this.slots.size, filed: this.table.filed };
  }

  close(): void {
    this.stopFollowing();
    this.slots.clear();
    this.table.close();
    this.endpoint?.close();
  }

  private indexFor(view: CallerView, caller: Caller): ToolSearchIndex {
    let slot = this.byView.get(view);
    if (slot === undefined) {
      const fingerprint = view.standard.etag;
      slot = this.slots.get(fingerprint);
      if (slot === undefined) {
        const index = new ToolSearchIndex(this.table, this.synonyms, this.counters, this.indexOptions);
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

  /** On a swap: the table follows the new snapshot, and every index its callers' new view. */
  private follow(next: CatalogSnapshot): void {
    this.followed = next;
    this.table.follow(next.entries);
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
