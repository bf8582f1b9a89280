// One search index over one visible set of tools (docs/search.md): MiniSearch
// (BM25 over the fields of documents.ts) holding exactly the tools one set of
// callers may see, so a score depends on nothing those callers cannot see
// (BM25's document frequencies and field lengths are corpus-wide).
//
// Kept up to date by `sync`, which compares the entries it indexed with the
// ones it is given: a tool whose entry is the same object, or whose content
// identity is equal, is left alone; only added, removed and changed tools
// touch the index. Removal is exact (`remove` with the indexed document, made
// again from the old entry), so an index kept up to date scores as one built
// afresh from the same tools would.
import MiniSearch, { type Query, type SearchResult as MiniResult } from 'minisearch';
import { SAFETY_TIERS, type SafetyTier, type Source } from '../../contract/descriptor.js';
import type { ToolEntry } from '../snapshot.js';
import { contentIdentity, SEARCH_FIELDS, type SearchDocument, type SearchField, searchDocument } from './documents.js';
import { indexTerm, queryTerms, type Synonyms, words } from './text.js';

/** Index operations since start, for every index (tests and metrics read them). */
export interface IndexCounters {
  added: number;
  removed: number;
  replaced: number;
}

export interface SearchFilter {
  source?: Source;
  safetyTier?: SafetyTier;
  /** Only tools of this tier or a lower one (pure < read < write < exec). */
  maxTier?: SafetyTier;
}

export interface SearchHit {
  entry: ToolEntry;
  /** Relevance, rounded to 4 decimals; higher is better. Comparable within one answer only. */
  score: number;
}

export interface SearchAnswer {
  hits: SearchHit[];
  /** How many visible tools matched (and passed the filter), of which `hits` are the best. */
  total: number;
}

/** Field weights: a word in the toolId or title says more about the tool than one in a parameter's description. */
const FIELD_BOOSTS: Record<SearchField, number> = { name: 2, title: 4, description: 1, params: 0.4, paramText: 0.2, keywords: 1 };
const SYNONYM_FIELDS: SearchField[] = ['name', 'title'];
/** A synonym's match counts less than the word itself. */
const SYNONYM_WEIGHT = 0.5;
const TIER_RANK = new Map<SafetyTier, number>(SAFETY_TIERS.map((t, i) => [t, i]));

interface Indexed {
  entry: ToolEntry;
  /** The sync pass that last saw this tool. */
  seen: number;
}

export class ToolSearchIndex {
  private readonly mini = new MiniSearch<SearchDocument>({
    fields: [...SEARCH_FIELDS],
    idField: 'id',
    tokenize: words,
    processTerm: (w) => indexTerm(w) ?? null,
    autoVacuum: false,
  });
  private readonly indexed = new Map<string, Indexed>();
  private pass = 0;

  constructor(
    private readonly synonyms: Synonyms,
    private readonly counters: IndexCounters,
  ) {}

  get size(): number {
    return this.indexed.size;
  }

  /** Makes the index hold exactly these entries, touching only what differs from what it holds. */
  sync(entries: readonly ToolEntry[]): void {
    const pass = ++this.pass;
    const fresh: SearchDocument[] = [];
    for (const entry of entries) {
      const id = entry.tool.descriptor.toolId;
      const known = this.indexed.get(id);
      if (known === undefined) {
        this.indexed.set(id, { entry, seen: pass });
        fresh.push(searchDocument(entry));
        continue;
      }
      known.seen = pass;
      if (known.entry === entry) continue;
      if (contentIdentity(known.entry) !== contentIdentity(entry)) {
        this.mini.remove(searchDocument(known.entry));
        this.mini.add(searchDocument(entry));
        this.counters.replaced++;
      }
      known.entry = entry;
    }
    for (const [id, known] of this.indexed) {
      if (known.seen === pass) continue;
      this.mini.remove(searchDocument(known.entry));
      this.indexed.delete(id);
      this.counters.removed++;
    }
    if (fresh.length > 0) {
      this.mini.addAll(fresh);
      this.counters.added += fresh.length;
    }
  }

  search(query: string, limit: number, filter: SearchFilter = {}): SearchAnswer {
    const { terms, expansions, origins } = queryTerms(query, this.synonyms);
    if (terms.length === 0) return { hits: [], total: 0 };
    const own = new Set(terms);
    const maxRank = filter.maxTier === undefined ? undefined : TIER_RANK.get(filter.maxTier)!;
    const accepts = (toolId: string): boolean => {
      const d = this.indexed.get(toolId)!.entry.tool.descriptor;
      return (
        (filter.source === undefined || d.source === filter.source) &&
        (filter.safetyTier === undefined || d.safetyTier === filter.safetyTier) &&
        (maxRank === undefined || TIER_RANK.get(d.safetyTier)! <= maxRank)
      );
    };
    const filtered = filter.source !== undefined || filter.safetyTier !== undefined || maxRank !== undefined;
    // Synonyms are looked for in the toolId and title only: that is where a tool names its action and object,
    // and it keeps common expansions from scanning every description.
    const anyTerm: Query = { combineWith: 'OR', queries: [{ combineWith: 'OR', queries: terms }, ...(expansions.length > 0 ? [{ combineWith: 'OR', queries: expansions, fields: SYNONYM_FIELDS } as Query] : [])] };
    const results: MiniResult[] = this.mini.search(anyTerm, {
      tokenize: (t) => [t],
      processTerm: (t) => t,
      boost: FIELD_BOOSTS,
      bm25: { k: 1.2, b: 0.9, d: 0.5 },
      boostTerm: (t) => (own.has(t) ? 1 : SYNONYM_WEIGHT),
      ...(filtered ? { filter: (r: MiniResult) => accepts(r.id as string) } : {}),
    });
    // MiniSearch multiplies a score by the number of query terms matched; count query words instead, so a
    // tool matching three synonyms of one word does not outrank one matching two different words.
    const covered = (matched: readonly string[]): number => new Set(matched.flatMap((t) => origins.get(t) ?? [t])).size;
    const ranked = results.map((r) => ({ id: r.id as string, score: Math.round(((r.score / Math.max(1, r.queryTerms.length)) * covered(r.queryTerms) ** 2) * 1e4) / 1e4 }));
    // Ties in toolId order, so equal content gives equal answers whatever order the tools were indexed in.
    ranked.sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    const hits = ranked.slice(0, limit).map((r) => ({ entry: this.indexed.get(r.id)!.entry, score: r.score }));
    return { hits, total: ranked.length };
  }
}
