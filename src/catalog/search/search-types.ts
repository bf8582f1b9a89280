// The shapes tool search is asked and answers with (docs/search.md): the
// filter, the hits, the signals and how their rankings are fused. Apart from
// the index (tool-index.ts) so that module stays about ranking.
import type { SafetyTier, Source } from '../../contract/descriptor.js';
import type { ToolEntry } from '../snapshot.js';

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
  /** Only tools of this source (the toolId's part before the first `.`, e.g. `connector:github`). */
  sourceId?: string;
}

export type SearchSignal = 'terms' | 'meaning' | 'prior';
export const ALL_SIGNALS: readonly SearchSignal[] = ['terms', 'meaning', 'prior'];

export interface IndexOptions {
  /** The signals ranking uses (all by default; fewer only to measure each alone). */
  signals: readonly SearchSignal[];
  /** Fusion weights (defaults below); set only to tune them on the benchmark's tuning tasks. */
  fusion?: Partial<Fusion>;
}

/** How the signals' rankings are fused (reciprocal rank fusion: weight / (k + rank)). */
export interface Fusion {
  k: number;
  /** The term index's ranking over all tools. */
  terms: number;
  /** The term index's ranking within each tool's own source: a small catalog's best match counts as much as a big one's. */
  perSource: number;
  meaning: number;
  /** A tool's fused score is multiplied by this when the request names its source. */
  named: number;
  /** A tool whose meaning is this far from the request is no candidate. */
  minCosine: number;
  /** A tool known to change something has its fused score divided by this when the request only asks to read (intent.ts). */
  read: number;
  /** A tool known only to read has its fused score divided by this when the request opens with a verb of change (intent.ts). */
  change: number;
}

export const DEFAULT_FUSION: Fusion = { k: 20, terms: 1, perSource: 0.5, meaning: 0.25, named: 2, minCosine: 0.2, read: 2, change: 1.5 };

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
