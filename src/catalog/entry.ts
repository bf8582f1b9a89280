// A catalog entry (docs/contract.md "The descriptor", "Views and sessions"): one tool's
// standard bytes, made when its snapshot is built, and its compact bytes,
// made on first use or by the snapshot's background compaction, so that a
// start serves the standard view without waiting for compaction
// (snapshot.ts). Entries of unchanged tools are carried from one snapshot to
// the next with their bodies.
import type { CompactToolDescriptor } from '../contract/descriptor.js';
import { Body } from './body.js';
import type { BuiltTool } from './build.js';
import { compactDescriptor } from './compact-descriptor.js';
import { descriptorJson, type SchemaRanges, type SchemaTexts } from './describe.js';
import type { EntrySlabs, Kind, OwnEntry } from './list-body.js';
import { holdTextIn, jsonTextBytesOf } from '../util/json-text.js';

export interface ToolEntry {
  readonly tool: BuiltTool;
  readonly standard: Body;
  /** The compact projection as an object (the MCP front door's compact sessions read it). */
  readonly compactDescriptor: CompactToolDescriptor;
  readonly compact: Body;
}

/**
 * A catalog entry, owned by one snapshot. The compact descriptor is kept as
 * bytes only: as an object it is parsed back on demand (and kept while
 * something holds it), which saves tens of MB of heap in a 10,000-tool catalog.
 * Its bytes are made on first use, or by the snapshot's background compaction.
 */
export class Entry implements ToolEntry, OwnEntry {
  constructor(
    readonly tool: BuiltTool,
    private standardBody: Body,
    private compactBody?: Body,
    private compactRef?: WeakRef<CompactToolDescriptor>,
    /** The entry this one carries, while it has no compact body yet: the one compaction serves both. */
    private compactFrom?: Entry,
  ) {}

  /** The next snapshot's entry for a tool whose content `prior` holds: the same bodies, nothing serialized again. */
  static carrying(tool: BuiltTool, prior: Entry): Entry {
    return new Entry(tool, prior.standardBody, prior.compactBody, prior.compactRef, prior.compactBody === undefined ? prior : undefined);
  }

  get standard(): Body {
    return this.standardBody;
  }

  get compact(): Body {
    return this.compactInto();
  }

  /** The compact body, made now if it is not yet (its bytes written into `slabs`, when given: the background compaction's). */
  compactInto(slabs?: EntrySlabs): Body {
    if (this.compactBody === undefined) {
      if (this.compactFrom !== undefined) this.compactBody = this.compactFrom.compactInto(slabs);
      else {
        const text = JSON.stringify(compactDescriptor(this.tool.descriptor));
        this.compactBody = slabs === undefined ? Body.json(text) : slabs.body(text);
      }
      this.compactFrom = undefined;
    }
    return this.compactBody;
  }

  /** Whether the compact bytes exist already. */
  get compacted(): boolean {
    return this.compactBody !== undefined;
  }

  get compactDescriptor(): CompactToolDescriptor {
    let d = this.compactRef?.deref();
    if (d === undefined) {
      d = JSON.parse(this.compact.bytes.toString('utf8')) as CompactToolDescriptor;
      this.compactRef = new WeakRef(d);
    }
    return d;
  }

  moveOnto(kind: Kind, bytes: Buffer): void {
    if (kind === 'compact') {
      this.compactBody = this.compact.heldIn(bytes);
      return;
    }
    const before = this.standardBody.bytes;
    this.standardBody = this.standardBody.heldIn(bytes);
    // Schemas read from the old bytes read from the same range of the new ones, so the old bytes can be freed.
    const d = this.tool.descriptor;
    for (const key of SCHEMA_KEYS) {
      const held = jsonTextBytesOf(d, key);
      if (held?.bytes === before) holdTextIn(d, key, this.standardBody.bytes, held.start, held.end);
    }
  }
}

const SCHEMA_KEYS = ['inputSchema', 'outputSchema'] as const;

/**
 * A new entry: the descriptor serialized (with the schema text its build
 * made, if any) into the build's slabs; compacted later. Schemas held as
 * text are read from the entry's bytes from now on (util/json-text.ts).
 */
export function makeEntry(tool: BuiltTool, slabs: EntrySlabs, schemaTexts?: SchemaTexts): Entry {
  const ranges: SchemaRanges = {};
  const json = descriptorJson(tool.descriptor, schemaTexts, ranges);
  const body = slabs.body(json);
  const bytes = body.bytes;
  // All ASCII (the usual case): a string offset is a byte offset.
  const ascii = bytes.length === json.length;
  const byteAt = (i: number) => (ascii ? i : Buffer.byteLength(json.slice(0, i), 'utf8'));
  for (const key of SCHEMA_KEYS) {
    const range = ranges[key];
    if (range !== undefined) holdTextIn(tool.descriptor, key, bytes, byteAt(range[0]), byteAt(range[1]));
  }
  return new Entry(tool, body);
}
