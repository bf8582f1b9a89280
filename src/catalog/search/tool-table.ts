// Every tool of the current snapshot, as tool search holds it (docs/search.md
// "The index"): one term index, the slots' toolIds, sources and tiers as
// typed arrays, and one contiguous matrix of meaning vectors, shared by every
// view. A view (tool-index.ts) is the set of slots its callers see, with its
// own BM25 figures over them, so a caller's scores depend on nothing it
// cannot see, while the words of a tool are tokenized and filed once per
// process, not once per tenant.
//
// Kept up to date by `follow`, which compares the entries it holds with the
// ones it is given: a tool whose entry is the same object, or whose content
// identity is equal, is left alone; only added, removed and changed tools
// touch the index. When the tools are the same ids in the same order (the
// usual refresh) the comparison is one pass by position, with no lookup by
// id. A large change (the first snapshot, a source of thousands of tools
// joining) is applied in the background in short slices; a search arriving
// before it ends files the tools of its own view first (the rest is left to
// the background). Each tool filed or removed is logged, so
// a view marks only what changed since it last looked (tool-index.ts).
import { SAFETY_TIERS, type SafetyTier, SOURCES, type Source } from '../../contract/descriptor.js';
import type { ToolEntry } from '../snapshot.js';
import { ChangeLog, type TableChange } from './change-log.js';
import { contentIdentity, SEARCH_FIELDS, type SearchDocument, searchDocument } from './documents.js';
import { InvertedIndex } from './inverted-index.js';
import { Filing, meaningVector, type PreparedTool } from './prepared.js';
import { SlotMatrix } from './slot-matrix.js';
import { SourceTable, sourceIdOf } from './source-prior.js';
import type { WordVectors } from './word-vectors.js';

export type { TableChange } from './change-log.js';

export const TIER_RANK = new Map<SafetyTier, number>(SAFETY_TIERS.map((t, i) => [t, i]));
export const SOURCE_CODE = new Map<Source, number>(SOURCES.map((s, i) => [s, i]));

export interface Held {
  entry: ToolEntry;
  slot: number;
  prepared: PreparedTool;
}

/** Changes applied synchronously at most; more go to the background. */
const SYNC_LIMIT = 256;
/** A background slice runs this long before it yields to the event loop. */
const SLICE_MS = 8;

export class ToolTable {
  readonly terms = new InvertedIndex(SEARCH_FIELDS.length + 1);
  readonly sources = new SourceTable();
  readonly byId = new Map<string, Held>();
  /** By slot: the tool held there (undefined for a free slot). */
  readonly bySlot: (Held | undefined)[] = [];
  readonly slotIds: string[] = [];
  slotSource: Uint8Array = new Uint8Array(16);
  /** By slot: the number of the tool's own source in `sources`. */
  slotOrigin: Uint16Array = new Uint16Array(16);
  slotTier: Uint8Array = new Uint8Array(16);
  /** The meaning vectors by slot, for `vectorsUsed`, once every held tool has its vector. */
  vectors: SlotMatrix | undefined;
  private vectorsUsed: WordVectors | undefined;
  /** Whether the meaning scan's bounds are still being made in the background. */
  private bounding = false;
  /** Word vectors newly loaded, and how far the background got in making the tools' vectors. */
  private vectorFill: { vectors: WordVectors; matrix: SlotMatrix; items: Held[]; done: number } | undefined;
  private readonly filing = new Filing(this.terms.terms);
  /** The entries held (once `pending` is done), and what holds each, by position. */
  private held: readonly ToolEntry[] = [];
  private heldItems: Held[] = [];
  /** Entries still to hold, and how far the background got through them. */
  private pending: { entries: readonly ToolEntry[]; done: number } | undefined;
  private generation = 0;
  private readonly log = new ChangeLog();
  /** Tools tokenized and filed so far (added or changed): the work views share. */
  filed = 0;
  private idle: Promise<void> = Promise.resolve();

  /** Start holding exactly these entries: at once when few tools changed, else in the background. */
  follow(entries: readonly ToolEntry[]): void {
    if (this.pending === undefined && this.followAligned(entries)) return;
    this.pending = this.plan(entries);
    if (this.pending === undefined) return;
    if (this.changedCount(entries) > SYNC_LIMIT) this.inBackground();
    // A few tools at once; vectors being made for newly loaded word vectors go on in the background.
    else while (this.pending !== undefined) this.holdSome(Infinity);
  }

  /** Grows whenever the tools held change: views compare it with the one they last saw. */
  get version(): number {
    return this.log.version;
  }

  /** The changes since `version`, in order; undefined when they are no longer logged. */
  changesSince(version: number): readonly TableChange[] | undefined {
    return this.log.since(version);
  }

  /**
   * The same tools in the same order as held (the usual refresh): one pass by position, each entry
   * updated, the few changed ones filed again at once. False (nothing done) otherwise.
   */
  private followAligned(entries: readonly ToolEntry[]): boolean {
    const held = this.heldItems;
    if (entries.length !== held.length || entries.length !== this.held.length) return false;
    let changed: number[] | undefined;
    for (let i = 0; i < entries.length; i++) {
      const entry = entries[i];
      const item = held[i];
      if (item.entry === entry) continue;
      if (item.entry.tool.descriptor.toolId !== entry.tool.descriptor.toolId) return false;
      // The same content: the new entry serves (a change of content is filed below, or by the general path).
      if (sameContent(item, entry)) item.entry = entry;
      else if ((changed ??= []).push(i) > SYNC_LIMIT) return false;
    }
    if (changed !== undefined) {
      for (const i of changed) this.hold(entries[i]);
      this.filing.clear();
    }
    this.held = entries;
    return true;
  }

  /** Makes every held tool's vector for newly loaded word vectors, in the background; until done the meaning signal is off. */
  useVectors(vectors: WordVectors): void {
    if (vectors === this.vectorsUsed || vectors === this.vectorFill?.vectors) return;
    this.vectorFill = { vectors, matrix: new SlotMatrix(vectors.dimensions), items: [...this.byId.values()], done: 0 };
    this.inBackground();
  }

  /** The word vectors the meaning signal uses now (undefined until every held tool has its vector). */
  get wordVectors(): WordVectors | undefined {
    return this.vectorsUsed;
  }

  private inBackground(): void {
    const generation = ++this.generation;
    this.idle = (async () => {
      while ((this.busy || this.bounding) && generation === this.generation) {
        await new Promise((r) => setImmediate(r));
        if (generation !== this.generation) break;
        const until = performance.now() + SLICE_MS;
        if (this.busy) this.step(until);
        // The meaning scan's bounds: a search does not wait for them (without one a tool's cosine is computed in full).
        else if (this.vectors?.projectSome(until) ?? true) this.bounding = false;
      }
      // Tools changed later are few: their words are not worth keeping, and terms no tool holds are let go.
      if (generation === this.generation) this.filing.clear();
    })();
  }

  /** Whether some entries are still to be held (the views' slots are not all known yet). */
  get holding(): boolean {
    return this.pending !== undefined;
  }

  get busy(): boolean {
    return this.pending !== undefined || this.vectorFill !== undefined;
  }

  /** Resolves when no background work is left. */
  async whenIdle(): Promise<void> {
    for (let p = this.idle; ; p = this.idle) {
      await p;
      if (p === this.idle) return;
    }
  }

  /**
   * Finishes on the caller's turn what a search of these entries needs: they are held (the other tools
   * of a large change may still wait for the background) and every held tool has its vector.
   */
  finishFor(entries: readonly ToolEntry[]): void {
    const p = this.pending;
    if (p !== undefined) {
      // A view of most of what is pending: all of it, in order.
      if (entries.length >= p.entries.length - p.done) this.holdSome(Infinity);
      else for (const entry of entries) this.hold(entry);
    }
    while (this.vectorFill !== undefined) this.fillSome(Infinity);
  }

  /** Nothing to do when the entries are the ones held; else the work, with removals done at once (they are cheap). */
  private plan(entries: readonly ToolEntry[]): ToolTable['pending'] {
    if (entries === this.held && this.pending === undefined) return undefined;
    const next = new Map<string, ToolEntry>();
    for (const entry of entries) next.set(entry.tool.descriptor.toolId, entry);
    for (const [id, known] of this.byId) {
      if (next.has(id)) continue;
      this.drop(known);
      this.byId.delete(id);
    }
    this.heldItems = [];
    return { entries, done: 0 };
  }

  /** How many tools are new or changed: the work a sync would do (an entry carried with the same content costs nothing). */
  private changedCount(entries: readonly ToolEntry[]): number {
    let n = 0;
    for (const e of entries) {
      const known = this.byId.get(e.tool.descriptor.toolId);
      if (known === undefined || !sameContent(known, e)) n++;
    }
    return n;
  }

  /** Work until `until`: the tools to hold first, then the vectors to make. */
  private step(until: number): void {
    if (this.pending !== undefined && !this.holdSome(until)) return;
    this.fillSome(until);
  }

  /** Makes the vectors of held tools for newly loaded word vectors until `until`; they are used once every held tool has one. */
  private fillSome(until: number): void {
    const fill = this.vectorFill;
    if (fill === undefined) return;
    while (fill.done < fill.items.length) {
      const end = Math.min(fill.items.length, fill.done + 32);
      for (; fill.done < end; fill.done++) {
        const item = fill.items[fill.done];
        // A tool removed meanwhile is skipped (its slot may hold another now); one added or changed has its vector from put.
        if (this.byId.get(item.entry.tool.descriptor.toolId) === item) fill.matrix.set(item.slot, meaningVector(item.entry, fill.vectors));
      }
      if (performance.now() > until) return;
    }
    fill.matrix.prepareBounds((slot) => this.bySlot[slot] !== undefined, this.terms.slots);
    this.bounding = true;
    this.vectors = fill.matrix;
    this.vectorsUsed = fill.vectors;
    this.vectorFill = undefined;
  }

  /** Holds pending entries until `until`; true when none is left. */
  private holdSome(until: number): boolean {
    const p = this.pending!;
    while (p.done < p.entries.length) {
      const end = Math.min(p.entries.length, p.done + 32);
      for (; p.done < end; p.done++) this.hold(p.entries[p.done]);
      if (performance.now() > until) return false;
    }
    this.held = p.entries;
    this.heldItems = p.entries.map((e) => this.byId.get(e.tool.descriptor.toolId)!);
    this.pending = undefined;
    this.filing.clear();
    return true;
  }

  /** Holds the entry: added, replaced when its content changed, else only its entry object updated. */
  private hold(entry: ToolEntry): void {
    const id = entry.tool.descriptor.toolId;
    const known = this.byId.get(id);
    if (known === undefined) {
      const doc = searchDocument(entry);
      this.put({ entry, slot: -1, prepared: this.filing.prepare(entry, doc) }, doc);
      return;
    }
    if (known.entry === entry) return;
    if (!sameContent(known, entry)) {
      this.drop(known);
      known.entry = entry;
      const doc = searchDocument(entry);
      known.prepared = this.filing.prepare(entry, doc);
      this.put(known, doc);
    }
    known.entry = entry;
  }

  private drop(known: Held): void {
    this.terms.remove(known.slot, known.prepared.fields);
    this.bySlot[known.slot] = undefined;
    this.log.push({ id: known.entry.tool.descriptor.toolId, slot: known.slot, prepared: known.prepared, added: false });
  }

  private put(item: Held, doc: SearchDocument): void {
    this.filed++;
    const slot = (item.slot = this.terms.addPrepared(item.prepared.fields));
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
    if (this.vectorsUsed !== undefined) this.vectors!.set(slot, meaningVector(item.entry, this.vectorsUsed, doc));
    if (this.vectorFill !== undefined) this.vectorFill.matrix.set(slot, meaningVector(item.entry, this.vectorFill.vectors, doc));
    this.byId.set(d.toolId, item);
    this.log.push({ id: d.toolId, slot, prepared: item.prepared, added: true });
  }

  /** Stops the background work. */
  close(): void {
    this.generation++;
    this.pending = undefined;
    this.vectorFill = undefined;
  }
}

/**
 * Whether the entry holds the content the tool was filed with. A snapshot carries an unchanged tool's
 * bytes (the same Body) and raw keywords into its new entry: two pointers compared, no identity string made.
 */
function sameContent(known: Held, entry: ToolEntry): boolean {
  if (known.entry === entry) return true;
  if (known.entry.standard === entry.standard && known.entry.tool.raw.keywords === entry.tool.raw.keywords) return true;
  return known.prepared.identity === contentIdentity(entry);
}

function grown(array: Uint8Array, slot: number): Uint8Array {
  const next = new Uint8Array(Math.max(array.length * 2, slot + 1));
  next.set(array);
  return next;
}
