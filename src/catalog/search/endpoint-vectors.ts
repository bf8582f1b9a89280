// The meaning signal from an operator's embeddings endpoint (docs/search.md
// "An embeddings endpoint"): a sentence model reads a whole request ("react
// with a thumbs up") where averaged word vectors cannot. Optional and never
// required: a tool's vector is asked for once per content (its text's hash,
// cached for the life of the process, whatever snapshots come and go), in
// the background, and a request's vector is awaited only up to a short
// deadline. Until every tool a view holds has its vector, or when the
// endpoint fails or is slow, search ranks as it does without it; a failure
// is logged once (host and problem, never the key or the texts) and the
// endpoint is left alone for a while before it is asked again.
import { createHash } from 'node:crypto';
import type { ToolEntry } from '../snapshot.js';
import { searchDocument, stripMarkup } from './documents.js';
import { embed, type EmbeddingsEndpoint, MAX_BATCH } from './embeddings-client.js';
import { SlotMatrix } from './slot-matrix.js';
import type { PreparedTool } from './prepared.js';
import { words } from './text.js';
import type { ToolTable } from './tool-table.js';
import type { TopHits } from './top-hits.js';

export interface EndpointVectorsOptions {
  endpoint: EmbeddingsEndpoint;
  /** How long a search waits for its request's vector. */
  queryTimeoutMs: number;
  /** The weight of this ranking in the fusion. */
  weight: number;
  /** Told once when the endpoint starts failing, and once when it answers again. */
  log: (level: 'warn' | 'info', message: string) => void;
}

/** A ranking fused beside the term index's, over a view's slots (tool-index.ts). */
export interface ExtraRanking {
  weight: number;
  /** The view's best slots, or undefined when some tool of the view has no vector yet. */
  rank(member: Uint8Array, slots: number, pass: ((slot: number) => boolean) | undefined, top: TopHits): TopHits | undefined;
}

/** How long a failed endpoint is left alone: a hanging server costs one deadline, not one per search. */
const RETRY_MS = 30_000;
/** A batch of tool texts may take this long (a model server embeds 64 texts in well under a second). */
const BATCH_TIMEOUT_MS = 30_000;
const MAX_TEXT_CHARS = 1000;
const MAX_QUERIES = 512;
/** A background slice runs this long before it yields to the event loop. */
const SLICE_MS = 8;

/** What the model reads of a tool: its name's words, its title and its description without markup. */
export function embeddingText(entry: ToolEntry): string {
  const doc = searchDocument(entry);
  const name = words(doc.name.slice(doc.name.indexOf('.') + 1)).join(' ');
  const text = [name, doc.title, stripMarkup(doc.description).replace(/\s+/g, ' ').trim()].filter((s) => s !== '').join('. ');
  return text.length <= MAX_TEXT_CHARS ? text : text.slice(0, MAX_TEXT_CHARS);
}

function unit(v: Float32Array): Float32Array | undefined {
  let n = 0;
  for (let i = 0; i < v.length; i++) n += v[i] * v[i];
  if (n === 0) return undefined;
  const s = 1 / Math.sqrt(n);
  for (let i = 0; i < v.length; i++) v[i] *= s;
  return v;
}

interface Wanted {
  slot: number;
  prepared: PreparedTool;
  entry: ToolEntry;
}

export class EndpointVectors {
  /** Unit vectors by the hash of the model and the tool's text. */
  private readonly byContent = new Map<string, Float32Array>();
  private readonly keys = new WeakMap<PreparedTool, string>();
  private matrix: SlotMatrix | undefined;
  /** By slot: the tool whose vector the matrix holds there. */
  private filed: (PreparedTool | undefined)[] = [];
  private ready = new Uint8Array(0);
  private seen = -1;
  private todo: Wanted[] = [];
  private fill: Promise<void> = Promise.resolve();
  private filling = false;
  private readonly queries = new Map<string, Float32Array>();
  private failedAt = -Infinity;
  private failing = false;
  private closed = false;

  constructor(
    private readonly table: ToolTable,
    private readonly options: EndpointVectorsOptions,
  ) {}

  /**
   * Files the vectors known for the tools the table holds now and starts
   * asking for the others. Tools the table files later (a large change is
   * filed in the background) are followed at the next call: until then a
   * view holding one has no endpoint ranking (`ranking` checks every slot).
   */
  follow(): void {
    const table = this.table;
    if (table.version !== this.seen) {
      this.seen = table.version;
      if (this.ready.length < table.bySlot.length) {
        const next = new Uint8Array(Math.max(this.ready.length * 2, table.bySlot.length));
        next.set(this.ready);
        this.ready = next;
      }
      this.todo = [];
      for (const held of table.byId.values()) {
        if (this.filed[held.slot] === held.prepared) continue;
        this.ready[held.slot] = 0;
        const known = this.keys.get(held.prepared);
        const vector = known === undefined ? undefined : this.byContent.get(known);
        if (vector !== undefined) this.file(held.slot, held.prepared, vector);
        else this.todo.push({ slot: held.slot, prepared: held.prepared, entry: held.entry });
      }
    }
    if (this.todo.length > 0 && !this.filling && !this.resting()) this.startFill();
  }

  /**
   * The request's unit vector, or undefined when the endpoint fails or misses
   * the deadline, or while tools' vectors are still missing (the ranking could
   * not be used: no search waits for nothing).
   */
  async queryVector(query: string): Promise<Float32Array | undefined> {
    const known = this.queries.get(query);
    if (known !== undefined) return known;
    if (this.resting() || this.matrix === undefined || this.filling || this.todo.length > 0) return undefined;
    try {
      const [v] = await embed(this.options.endpoint, [query], this.options.queryTimeoutMs);
      this.answered();
      const vector = unit(v);
      if (vector === undefined) return undefined;
      if (this.queries.size >= MAX_QUERIES) this.queries.delete(this.queries.keys().next().value as string);
      this.queries.set(query, vector);
      return vector;
    } catch (err) {
      this.failed(err);
      return undefined;
    }
  }

  /** The endpoint's ranking for this request's vector (of the dimensions the tools' vectors have). */
  ranking(query: Float32Array): ExtraRanking | undefined {
    const matrix = this.matrix;
    if (matrix === undefined || matrix.dimensions !== query.length) return undefined;
    const ready = this.ready;
    return {
      weight: this.options.weight,
      rank: (member, slots, pass, top) => {
        for (let slot = 0; slot < slots; slot++) if (member[slot] !== 0 && ready[slot] === 0) return undefined;
        return matrix.nearest(query, -2, member, slots, pass, top);
      },
    };
  }

  /** Resolves once the background has asked for every tool's vector it was told of (tests and the benchmark wait on it). */
  async whenIdle(): Promise<void> {
    for (let p = this.fill; ; p = this.fill) {
      await p;
      if (p === this.fill) return;
    }
  }

  /** Distinct tool texts with a vector, and the bytes those vectors take. */
  stats(): { vectors: number; bytes: number } {
    let bytes = this.matrix?.bytes ?? 0;
    for (const v of this.byContent.values()) bytes += v.byteLength;
    return { vectors: this.byContent.size, bytes };
  }

  close(): void {
    this.closed = true;
    this.todo = [];
  }

  private file(slot: number, prepared: PreparedTool, vector: Float32Array): void {
    if (this.matrix === undefined) this.matrix = new SlotMatrix(vector.length);
    if (vector.length !== this.matrix.dimensions) return;
    this.matrix.set(slot, vector);
    this.filed[slot] = prepared;
    if (slot >= this.ready.length) {
      const next = new Uint8Array(Math.max(this.ready.length * 2, slot + 1));
      next.set(this.ready);
      this.ready = next;
    }
    this.ready[slot] = 1;
  }

  private startFill(): void {
    this.filling = true;
    this.fill = this.fillAll().finally(() => void (this.filling = false));
  }

  /** Asks for the missing tools' vectors, a batch at a time; a tool changed meanwhile is left to the next `follow`. */
  private async fillAll(): Promise<void> {
    const model = this.options.endpoint.model;
    while (this.todo.length > 0 && !this.closed) {
      const batch: { want: Wanted; key: string; text: string }[] = [];
      const until = performance.now() + SLICE_MS;
      while (this.todo.length > 0 && batch.length < MAX_BATCH && performance.now() < until) {
        const want = this.todo.pop()!;
        const text = embeddingText(want.entry);
        const key = createHash('sha256').update(model).update('\0').update(text).digest('base64url');
        this.keys.set(want.prepared, key);
        const vector = this.byContent.get(key);
        if (vector !== undefined) this.fileIfCurrent(want, vector);
        else batch.push({ want, key, text });
      }
      if (batch.length > 0 && !(await this.ask(batch))) return;
      await new Promise((r) => setImmediate(r));
    }
  }

  private async ask(batch: { want: Wanted; key: string; text: string }[]): Promise<boolean> {
    try {
      const vectors = await embed(this.options.endpoint, batch.map((b) => b.text), BATCH_TIMEOUT_MS);
      this.answered();
      batch.forEach(({ want, key }, i) => {
        const vector = unit(vectors[i]) ?? new Float32Array(vectors[i].length);
        this.byContent.set(key, vector);
        this.fileIfCurrent(want, vector);
      });
      return true;
    } catch (err) {
      this.failed(err);
      // Asked again on a later search, once the endpoint has rested.
      this.todo.push(...batch.map((b) => b.want));
      return false;
    }
  }

  private fileIfCurrent(want: Wanted, vector: Float32Array): void {
    if (this.table.bySlot[want.slot]?.prepared === want.prepared) this.file(want.slot, want.prepared, vector);
  }

  private resting(): boolean {
    return performance.now() - this.failedAt < RETRY_MS;
  }

  private failed(err: unknown): void {
    this.failedAt = performance.now();
    if (this.failing) return;
    this.failing = true;
    this.options.log('warn', `search embeddings: ${(err as Error).message}; ranking without them, asking again in ${RETRY_MS / 1000} s`);
  }

  private answered(): void {
    if (!this.failing) return;
    this.failing = false;
    this.options.log('info', 'search embeddings: the endpoint answers again');
  }
}
