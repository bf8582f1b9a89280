// Plain BM25 for the search benchmark's baseline (docs/search.md "Measured
// quality"): one field, the same texts toolhost indexes (documents.ts) run
// together, the same words and stemmer, k1 1.2 and b 0.75, no synonyms, no
// field weights, no priors. What a generic full-text index would do.
import type { ToolEntry } from '../src/catalog/snapshot.js';
import { SEARCH_FIELDS, searchDocument } from '../src/catalog/search/documents.js';
import { indexTerm, words } from '../src/catalog/search/text.js';

const terms = (text: string): string[] => words(text).flatMap((w) => indexTerm(w) ?? []);

export class PlainBm25 {
  private readonly ids: string[] = [];
  private readonly tf: Map<string, number>[] = [];
  private readonly lengths: number[] = [];
  private readonly df = new Map<string, number>();
  private readonly avgLength: number;

  constructor(entries: readonly ToolEntry[]) {
    for (const e of entries) {
      const doc = searchDocument(e);
      const t = terms(SEARCH_FIELDS.map((f) => doc[f]).join(' '));
      const counts = new Map<string, number>();
      for (const term of t) counts.set(term, (counts.get(term) ?? 0) + 1);
      for (const term of counts.keys()) this.df.set(term, (this.df.get(term) ?? 0) + 1);
      this.ids.push(doc.id);
      this.tf.push(counts);
      this.lengths.push(t.length);
    }
    this.avgLength = this.lengths.reduce((a, b) => a + b, 0) / Math.max(1, this.lengths.length);
  }

  search(query: string, limit: number): string[] {
    const q = [...new Set(terms(query))];
    const n = this.ids.length;
    const scored: { id: string; score: number }[] = [];
    for (let i = 0; i < n; i++) {
      let score = 0;
      for (const term of q) {
        const f = this.tf[i].get(term);
        if (f === undefined) continue;
        const df = this.df.get(term)!;
        const idf = Math.log(1 + (n - df + 0.5) / (df + 0.5));
        score += (idf * f * 2.2) / (f + 1.2 * (1 - 0.75 + (0.75 * this.lengths[i]) / this.avgLength));
      }
      if (score > 0) scored.push({ id: this.ids[i], score });
    }
    scored.sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : 1));
    return scored.slice(0, limit).map((s) => s.id);
  }
}
