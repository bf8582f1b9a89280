// The list bodies of a snapshot (GET /tools, standard and compact): the
// entries' bytes joined, never serialized again: a list costs a join, not a JSON.stringify of
// thousands of descriptors.
//
// Memory: a large catalog's entry bytes are tens of megabytes, and a tenant
// that sees every tool would have list bodies of the same bytes again. A
// build writes its entries' bytes into slabs in catalog order, a comma after
// each (EntrySlabs), so a list of them is held as the runs of those slabs'
// bytes, plus the frame and any entry that lies elsewhere (a tool changed
// by a refresh), written and compressed part by part (body.ts), joined only
// for a caller that needs one buffer. Copying 30 MB on every change was most
// of a refresh's cost.
//
// A list that would be more than MAX_LIST_PARTS parts is joined; when it
// lists every entry, the snapshot's own entries move onto slices of it (new
// bodies of the same bytes, ETag and compressed forms, so nothing observable
// changes), and the slabs they leave are freed once no entry holds them.
// Views listing the same entries (two tenants that both see everything)
// share one body.
import { createHash } from 'node:crypto';
import { Body } from './body.js';

export type Kind = 'standard' | 'compact';

/** What a list body is made of: one of the entry's bodies per kind. */
export type Listed = Readonly<Record<Kind, Body>>;

/** An entry of the snapshot these lists belong to: its bytes can move into that snapshot's list of every entry. */
export interface OwnEntry extends Listed {
  /** From now on, hold the `kind` body's bytes in `bytes`, an equal copy. */
  moveOnto(kind: Kind, bytes: Buffer): void;
}

const FRAME: Record<Kind, { open: Buffer; close: Buffer }> = {
  standard: { open: Buffer.from('['), close: Buffer.from(']') },
  compact: { open: Buffer.from('{"tools":['), close: Buffer.from(']}') },
};
const COMMA = Buffer.from(',');
const COMMA_BYTE = 0x2c;

/** Beyond this many parts a list is joined into one buffer (its entries then move onto it), so parts never pile up. */
export const MAX_LIST_PARTS = 257;

/**
 * Memory laid out as a list's inside: entries one after another with a
 * comma between (every list joined so far, and the slabs of EntrySlabs).
 * Only runs inside these are taken as parts (a small buffer's neighbour in
 * node's pool is not).
 */
const joinedLists = new WeakSet<ArrayBufferLike>();

/** A writer's first slab, and its largest: a small catalog takes a few KB, a large one about one slab per MB. */
const FIRST_SLAB_BYTES = 16 * 1024;
const MAX_SLAB_BYTES = 1024 * 1024;

/**
 * Where builds write their new entries' bytes (a writer per kind, handed
 * from snapshot to snapshot): into slabs, each entry followed by a comma, so
 * the entries of a build made in catalog order are already their list's
 * inside and the list of them is a run per slab (partsOf), never joined. A
 * buffer per entry, freed when the list was joined, left tens of MB of small
 * holes in the C heap at 10,000 tools that the allocator kept
 * (docs/benchmarks.md, "RSS: entries written into slabs, …"). Slabs start
 * small and double up to 1 MB, and a later build fills the current one
 * before taking another; a slab that holds a live entry stays alive with it.
 */
export class EntrySlabs {
  private slab?: Buffer;
  private used = 0;
  private nextSize = FIRST_SLAB_BYTES;

  /** A body of `text`'s UTF-8 bytes, written into the current slab. */
  body(text: string): Body {
    const size = Buffer.byteLength(text, 'utf8');
    if (this.slab === undefined || this.used + size + 1 > this.slab.length) {
      this.slab = Buffer.allocUnsafeSlow(Math.max(this.nextSize, size + 1));
      this.nextSize = Math.min(this.nextSize * 2, MAX_SLAB_BYTES);
      this.used = 0;
      joinedLists.add(this.slab.buffer);
    }
    const start = this.used;
    this.slab.write(text, start, size, 'utf8');
    this.slab[start + size] = COMMA_BYTE;
    this.used = start + size + 1;
    return new Body(this.slab.subarray(start, start + size));
  }
}

/**
 * The list's bytes as parts: the frame, and runs of consecutive entries that
 * lie one after another (with the comma between them) in a slab or a joined
 * list, else each entry and a comma. Undefined when no entry lies in such
 * memory or once there would be more than MAX_LIST_PARTS.
 */
function partsOf(entries: readonly Listed[], kind: Kind): Buffer[] | undefined {
  const { open, close } = FRAME[kind];
  const parts: Buffer[] = [open];
  // The current run: its first entry's bytes, where it ends, and the joined list it lies in (if any).
  let first: Buffer | undefined;
  let end = 0;
  let list: Uint8Array | undefined;
  let inJoined = false;
  const endRun = () => (first!.byteOffset + first!.length === end ? first! : Buffer.from(first!.buffer, first!.byteOffset, end - first!.byteOffset));
  for (let i = 0; i < entries.length; i++) {
    const bytes = entries[i][kind].bytes;
    if (first !== undefined) {
      if (list !== undefined && bytes.buffer === first.buffer && bytes.byteOffset === end + 1 && list[end] === COMMA_BYTE) {
        end = bytes.byteOffset + bytes.length;
        continue;
      }
      parts.push(endRun(), COMMA);
      if (parts.length > MAX_LIST_PARTS) return undefined;
    }
    first = bytes;
    end = bytes.byteOffset + bytes.length;
    list = joinedLists.has(bytes.buffer) ? new Uint8Array(bytes.buffer) : undefined;
    if (list !== undefined) inJoined = true;
  }
  // Nothing lies in a slab or an earlier list: joined, and the entries move onto it.
  if (!inJoined) return undefined;
  if (first !== undefined) parts.push(endRun());
  parts.push(close);
  return parts;
}

/** `[e1,e2,...]` or `{"tools":[e1,e2,...]}` from the entries' bytes. */
function joinEntries(entries: readonly Listed[], kind: Kind, length: number): Buffer {
  const { open, close } = FRAME[kind];
  const parts: Buffer[] = [open];
  for (let i = 0; i < entries.length; i++) {
    if (i > 0) parts.push(COMMA);
    parts.push(entries[i][kind].bytes);
  }
  parts.push(close);
  return Buffer.concat(parts, length);
}

/** Moves every entry's body onto its own bytes inside the joined list. */
function moveOnto(entries: readonly OwnEntry[], kind: Kind, list: Buffer): void {
  let offset = FRAME[kind].open.length;
  for (let i = 0; i < entries.length; i++) {
    const size = entries[i][kind].size;
    entries[i].moveOnto(kind, list.subarray(offset, offset + size));
    offset += size + COMMA.length;
  }
}

export class ListBodies {
  private readonly byTag = new Map<string, Body>();

  /** `own`: the snapshot's entries, in catalog order (the array its views of every entry list). */
  constructor(private readonly own: readonly OwnEntry[]) {}

  /**
   * The list body of these entries: its ETag hashes the kind and every
   * entry's ETag in order (the bytes are a function of exactly those), its
   * bytes are joined on first use.
   */
  bodyFor(entries: readonly Listed[], kind: Kind): Body {
    const tags = new Array<string>(entries.length);
    const { open, close } = FRAME[kind];
    let size = open.length + close.length + Math.max(0, entries.length - 1);
    for (let i = 0; i < entries.length; i++) {
      const body = entries[i][kind];
      tags[i] = body.etag;
      size += body.size;
    }
    const etag = `"${createHash('sha256').update(`list:${kind}:${entries.length}:`).update(tags.join('')).digest('base64url').slice(0, 32)}"`;
    const known = this.byTag.get(etag);
    if (known !== undefined) return known;
    const everything = entries === this.own && entries.length > 0;
    // A list of every entry joined into one buffer (here, or for a caller that needs one): the entries move onto it, so their bytes stay stored once.
    const joined = (bytes: Buffer) => {
      // Only memory of its own (not a slice of node's pool for small buffers, whose neighbours are not ours).
      if (bytes.byteOffset === 0 && bytes.buffer.byteLength === bytes.length) joinedLists.add(bytes.buffer);
      if (everything) moveOnto(this.own, kind, bytes);
    };
    const body = new Body(
      () => {
        const parts = entries.length > 0 ? partsOf(entries, kind) : undefined;
        if (parts !== undefined) return parts;
        const bytes = joinEntries(entries, kind, size);
        joined(bytes);
        return bytes;
      },
      etag,
      size,
      joined,
    );
    this.byTag.set(etag, body);
    return body;
  }
}
