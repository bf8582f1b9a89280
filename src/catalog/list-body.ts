// The list bodies of a snapshot (GET /tools, standard and compact): the
// entries' bytes joined, never serialized again: a list costs a join, not a JSON.stringify of
// thousands of descriptors.
//
// Memory: a large catalog's entry bytes are tens of megabytes, and a tenant
// that sees every tool has list bodies of the same bytes again. When a list of
// every entry is joined, the snapshot's own entries move onto slices of it
// (new bodies of the same bytes, ETag and compressed forms, so nothing
// observable changes), and their former buffers, or the previous snapshot's
// list, are freed once that snapshot is. Views listing the same entries (two
// tenants that both see everything) share one body.
//
// A list whose entries mostly lie in order inside an earlier joined list (a
// refresh that changed a few tools) is not joined again: it is held as the
// runs of that list's bytes plus the changed entries' own bytes, written and
// compressed part by part (body.ts), joined only for a caller that needs one
// buffer. Copying 30 MB on every change was most of a refresh's cost.
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

/** The memory of every list joined so far: only runs inside these are taken as parts (a small buffer's neighbour in node's pool is not). */
const joinedLists = new WeakSet<ArrayBufferLike>();

/**
 * The list's bytes as parts: the frame, and runs of consecutive entries that
 * lie one after another (with the comma between them) in a joined list,
 * else each entry and a comma. Undefined when no entry lies in a joined
 * list (a first build) or once there would be more than MAX_LIST_PARTS.
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
  // Nothing lies in an earlier list (a first build): joined, and the entries move onto it.
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
  const list = Buffer.concat(parts, length);
  // A list of its own memory (not a slice of node's pool for small buffers).
  if (list.byteOffset === 0 && list.buffer.byteLength === list.length) joinedLists.add(list.buffer);
  return list;
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
    const body = new Body(
      () => {
        const parts = entries.length > 0 ? partsOf(entries, kind) : undefined;
        if (parts !== undefined) return parts;
        const bytes = joinEntries(entries, kind, size);
        if (everything) moveOnto(this.own, kind, bytes);
        return bytes;
      },
      etag,
      size,
    );
    this.byTag.set(etag, body);
    return body;
  }
}
