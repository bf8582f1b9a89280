// The meaning vectors of the tool table by slot, and the scan that finds the
// tools nearest a request (docs/search.md "Meaning"). A full scan, a
// 100-float dot product for each of 10,000 tools, would be most of a query's
// time. Each vector is also kept as its coordinates along a few directions
// that hold most of the tools' vectors (their leading principal axes) and the
// length of what is left; with the request's, those give an upper bound of
// the cosine (Cauchy-Schwarz on the rest) for a sixth of the work. A tool
// whose bound cannot beat the candidates kept so far is passed over; every
// other tool's cosine is the full dot product, so the ranking is exactly the
// one of a scan of every tool.
import type { TopHits } from './top-hits.js';

/** Directions of the bound. */
const AXES = 16;
/** Vectors the directions are found from, at most. */
const SAMPLE = 1024;
/** Below this many vectors a scan of all is cheap, and the directions are not worth finding. */
const MIN_ROWS = 256;
/** Allowance for rounding in the bound (a cosine is at most 1; float32 coordinates are off by about 1e-7). */
const MARGIN = 2e-4;

export class SlotMatrix {
  private data: Float32Array;
  /** Per slot, its coordinates along `axes` then the length of the rest (once the axes are found). */
  private bounds: Float32Array = new Float32Array(0);
  private axes: Float64Array | undefined;
  /** Slots below this one have their bound (the rest are projected in the background, a slice at a time). */
  private projected = 0;

  constructor(readonly dimensions: number) {
    this.data = new Float32Array(dimensions * 64);
  }

  /** Holds a copy of `vector` for the slot (zeros when there is none). */
  set(slot: number, vector: Float32Array | undefined): void {
    const need = (slot + 1) * this.dimensions;
    if (need > this.data.length) {
      const next = new Float32Array(Math.max(this.data.length * 2, need));
      next.set(this.data);
      this.data = next;
    }
    if (vector === undefined) this.data.fill(0, slot * this.dimensions, need);
    else this.data.set(vector, slot * this.dimensions);
    if (slot < this.projected) this.project(slot);
  }

  /** Finds the directions of the bound from the vectors of `slots` live slots, once; `projectSome` then gives each slot its bound. */
  prepareBounds(live: (slot: number) => boolean, slots: number): void {
    if (this.axes !== undefined) return;
    const rows: number[] = [];
    for (let slot = 0; slot < slots; slot++) if (live(slot)) rows.push(slot);
    if (rows.length < MIN_ROWS) return;
    const step = Math.max(1, Math.floor(rows.length / SAMPLE));
    this.axes = principalAxes(this.data, this.dimensions, rows.filter((_, i) => i % step === 0));
  }

  /** Gives slots their bound until `until` (performance.now()); true when every slot held has one. */
  projectSome(until: number): boolean {
    if (this.axes === undefined) return true;
    const slots = Math.floor(this.data.length / this.dimensions);
    while (this.projected < slots) {
      for (const end = Math.min(slots, this.projected + 256); this.projected < end; this.projected++) this.project(this.projected);
      if (performance.now() > until) break;
    }
    return this.projected === slots;
  }

  private project(slot: number): void {
    const axes = this.axes!;
    const d = this.dimensions;
    const width = AXES + 1;
    if ((slot + 1) * width > this.bounds.length) {
      const next = new Float32Array(Math.max(this.bounds.length * 2, (slot + 1) * width, 64 * width));
      next.set(this.bounds);
      this.bounds = next;
    }
    const base = slot * d;
    let norm = 0;
    for (let i = 0; i < d; i++) norm += this.data[base + i] * this.data[base + i];
    let along = 0;
    for (let a = 0; a < AXES; a++) {
      let p = 0;
      for (let i = 0; i < d; i++) p += axes[a * d + i] * this.data[base + i];
      this.bounds[slot * width + a] = p;
      along += p * p;
    }
    this.bounds[slot * width + AXES] = Math.sqrt(Math.max(0, norm - along));
  }

  /**
   * Offers `top` every live slot (passing the filter, when there is one) whose
   * cosine with the (unit) query is above `min`, rounded to 4 decimals.
   */
  nearest(query: Float32Array, min: number, live: Uint8Array, slots: number, pass: ((slot: number) => boolean) | undefined, top: TopHits): TopHits {
    const { data, dimensions } = this;
    const end = Math.min(slots, Math.floor(data.length / dimensions));
    const axes = this.axes;
    const width = AXES + 1;
    const q = axes === undefined ? undefined : queryBound(query, axes, dimensions);
    const bounds = this.bounds;
    const projected = this.projected;
    for (let slot = 0, base = 0; slot < end; slot++, base += dimensions) {
      if (live[slot] === 0) continue;
      if (q !== undefined && slot < projected) {
        let bound = q[AXES] * bounds[slot * width + AXES];
        for (let a = 0, b = slot * width; a < AXES; a++) bound += q[a] * bounds[b + a];
        if (bound + MARGIN <= min || bound + MARGIN < top.floor) continue;
      }
      const s = dot(data, base, query, dimensions);
      if (s > min && (pass === undefined || pass(slot))) top.offer(Math.round(s * 1e4) / 1e4, slot);
    }
    return top;
  }

  get bytes(): number {
    return this.data.byteLength + this.bounds.byteLength;
  }
}

/** The tool's vector dotted with the query: four running sums, half the time of one on V8, which does not vectorize the loop. */
function dot(data: Float32Array, base: number, query: Float32Array, dimensions: number): number {
  const four = dimensions - (dimensions % 4);
  let s0 = 0;
  let s1 = 0;
  let s2 = 0;
  let s3 = 0;
  for (let d = 0; d < four; d += 4) {
    const i = base + d;
    s0 += data[i] * query[d];
    s1 += data[i + 1] * query[d + 1];
    s2 += data[i + 2] * query[d + 2];
    s3 += data[i + 3] * query[d + 3];
  }
  for (let d = four; d < dimensions; d++) s0 += data[base + d] * query[d];
  return s0 + s1 + s2 + s3;
}

/** The query's coordinates along the axes, then the length of the rest. */
function queryBound(query: Float32Array, axes: Float64Array, d: number): Float64Array {
  const q = new Float64Array(AXES + 1);
  let norm = 0;
  for (let i = 0; i < d; i++) norm += query[i] * query[i];
  let along = 0;
  for (let a = 0; a < AXES; a++) {
    let p = 0;
    for (let i = 0; i < d; i++) p += axes[a * d + i] * query[i];
    q[a] = p;
    along += p * p;
  }
  q[AXES] = Math.sqrt(Math.max(0, norm - along));
  return q;
}

/**
 * The leading AXES eigenvectors of the rows' second-moment matrix (power
 * iteration with deflation), made exactly orthonormal: any orthonormal axes
 * give a true bound; these make it tight.
 */
function principalAxes(data: Float32Array, d: number, rows: readonly number[]): Float64Array {
  const m = new Float64Array(d * d);
  for (const slot of rows) {
    const base = slot * d;
    for (let i = 0; i < d; i++) {
      const vi = data[base + i];
      if (vi === 0) continue;
      for (let j = i; j < d; j++) m[i * d + j] += vi * data[base + j];
    }
  }
  for (let i = 0; i < d; i++) for (let j = 0; j < i; j++) m[i * d + j] = m[j * d + i];
  const axes = new Float64Array(AXES * d);
  const v = new Float64Array(d);
  const w = new Float64Array(d);
  for (let a = 0; a < AXES; a++) {
    for (let i = 0; i < d; i++) v[i] = 1 + ((i * 7919 + a * 104729) % 97) / 97;
    for (let iteration = 0; iteration < 40; iteration++) {
      for (let i = 0; i < d; i++) {
        let s = 0;
        for (let j = 0; j < d; j++) s += m[i * d + j] * v[j];
        w[i] = s;
      }
      v.set(w);
      orthonormalize(v, axes, a, d);
    }
    axes.set(v, a * d);
    // Deflation: what this axis explains is taken out of the matrix.
    let lambda = 0;
    for (let i = 0; i < d; i++) for (let j = 0; j < d; j++) lambda += v[i] * m[i * d + j] * v[j];
    for (let i = 0; i < d; i++) for (let j = 0; j < d; j++) m[i * d + j] -= lambda * v[i] * v[j];
  }
  return axes;
}

/** Removes from `v` its parts along the first `count` axes (twice, for float error), then scales it to length 1. */
function orthonormalize(v: Float64Array, axes: Float64Array, count: number, d: number): void {
  for (let pass = 0; pass < 2; pass++) {
    for (let a = 0; a < count; a++) {
      let p = 0;
      for (let i = 0; i < d; i++) p += v[i] * axes[a * d + i];
      for (let i = 0; i < d; i++) v[i] -= p * axes[a * d + i];
    }
  }
  let n = 0;
  for (let i = 0; i < d; i++) n += v[i] * v[i];
  // Nothing left (the vectors span fewer directions): a unit direction not yet covered instead.
  for (let unit = 0; n < 1e-12 && unit < d; unit++) {
    v.fill(0);
    v[unit] = 1;
    for (let a = 0; a < count; a++) {
      const p = axes[a * d + unit];
      for (let i = 0; i < d; i++) v[i] -= p * axes[a * d + i];
    }
    n = 0;
    for (let i = 0; i < d; i++) n += v[i] * v[i];
  }
  const s = 1 / Math.sqrt(n);
  for (let i = 0; i < d; i++) v[i] *= s;
}
