// The best `limit` search results without sorting, or even looking at, every
// match (docs/search.md "The index"): a query may match most of a large
// catalog, and only the top few are answered. Candidates are slots of the
// term index with their scores; a toolId is read only to break a tie, so equal
// content gives equal answers whatever order the tools were indexed in.

export class TopHits {
  /** Best first; `count` of them in use. */
  readonly scores: Float64Array;
  readonly slots: Int32Array;
  count = 0;

  constructor(
    private readonly limit: number,
    /** The toolId in a slot: the tie-break. */
    private readonly idOf: (slot: number) => string,
  ) {
    this.scores = new Float64Array(limit);
    this.slots = new Int32Array(limit);
  }

  /** The score a candidate must reach to be kept (a tie only with a smaller toolId); -Infinity until `limit` are kept. */
  get floor(): number {
    return this.count === this.limit ? this.scores[this.limit - 1] : -Infinity;
  }

  offer(score: number, slot: number): void {
    const { scores, slots, limit } = this;
    if (this.count === limit && !this.before(score, slot, limit - 1)) return;
    // Insertion from the end: `limit` is small (at most 50).
    let i = this.count === limit ? limit - 1 : this.count++;
    while (i > 0 && this.before(score, slot, i - 1)) {
      scores[i] = scores[i - 1];
      slots[i] = slots[i - 1];
      i--;
    }
    scores[i] = score;
    slots[i] = slot;
  }

  /** True when the candidate ranks before the kept hit at `at`. */
  private before(score: number, slot: number, at: number): boolean {
    const other = this.scores[at];
    return score > other || (score === other && this.idOf(slot) < this.idOf(this.slots[at]));
  }
}
