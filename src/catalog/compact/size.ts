// The size bound of a compact schema: at most MAX_COMPACT_SCHEMA_BYTES of
// JSON. When a schema is larger, the deepest subschemas are replaced first by
// a stub keeping only `type` and a shortened `description` (a loosening),
// choosing the deepest cut level that fits. The tree may share subschema
// objects (after merges), so sizes and rebuilds are memoized per object and
// level and never walk a shared subtree twice.
import { Buffer } from 'node:buffer';
import type { JsonObject, JsonValue } from '../../contract/descriptor.js';
import { isPlainObject, setOwn } from '../../util/json.js';
import { MAX_COMPACT_SCHEMA_BYTES, MAX_STUB_DESCRIPTION } from './limits.js';
import { has, type Schema } from './schema-util.js';

/** Keywords whose value is one subschema. */
const SCHEMA_ONE = ['additionalProperties', 'propertyNames', 'contains', 'additionalItems'];

const TRUNCATED = '(details truncated)';

const NON_ASCII = /[^\x00-\x7f]/;

/** UTF-8 length of a string (fast path for ASCII). */
function strBytes(s: string): number {
  return NON_ASCII.test(s) ? Buffer.byteLength(s) : s.length;
}

/** Set by sizeOf when it meets one object twice (the tree is a DAG). */
let sawShared = false;

/**
 * A fresh copy of a JSON tree (shared subtrees become separate copies). Not
 * the connector's toJsonData: the input here is compacted JSON already, so
 * no cycle or non-JSON value needs a check on this hot path.
 */
function unshared(v: JsonValue): JsonValue {
  if (v === null || typeof v !== 'object') return v;
  if (Array.isArray(v)) return v.map(unshared);
  const out: JsonObject = {};
  for (const k of Object.keys(v)) setOwn(out, k, unshared(v[k]));
  return out;
}

/** Size of a scalar's JSON text (string escapes not counted); -1 for arrays and objects. */
function scalarSize(v: JsonValue): number {
  if (v === null) return 4;
  switch (typeof v) {
    case 'string':
      return strBytes(v) + 2;
    case 'number':
      return String(v).length;
    case 'boolean':
      return v ? 4 : 5;
  }
  return -1;
}

/** UTF-8 size of the JSON text, approximately (string escapes not counted), memoized per object. */
function sizeOf(v: JsonValue, memo: WeakMap<object, number>): number {
  const scalar = scalarSize(v);
  if (scalar >= 0) return scalar;
  const known = memo.get(v as object);
  if (known !== undefined) {
    sawShared = true;
    return known;
  }
  let n = 2;
  if (Array.isArray(v)) {
    for (const x of v) n += sizeOf(x, memo) + 1;
  } else {
    for (const k of Object.keys(v as JsonObject)) n += strBytes(k) + 4 + sizeOf((v as JsonObject)[k], memo);
  }
  memo.set(v as object, n);
  return n;
}

/** sizeOf for a tree known to share no object (no memo needed). */
function plainSize(v: JsonValue): number {
  const scalar = scalarSize(v);
  if (scalar >= 0) return scalar;
  let n = 2;
  if (Array.isArray(v)) {
    for (const x of v) n += plainSize(x) + 1;
  } else {
    for (const k of Object.keys(v as JsonObject)) n += strBytes(k) + 4 + plainSize((v as JsonObject)[k]);
  }
  return n;
}

/** Schema nesting height (a leaf schema has height 0). */
function heightOf(s: Schema, memo: WeakMap<object, number>): number {
  if (typeof s === 'boolean') return 0;
  const known = memo.get(s);
  if (known !== undefined) return known;
  memo.set(s, 0); // guards against cycles, which a JSON tree never has
  let h = 0;
  forEachChild(s, (c) => {
    h = Math.max(h, 1 + heightOf(c, memo));
  });
  memo.set(s, h);
  return h;
}

function forEachChild(s: JsonObject, fn: (c: Schema) => void): void {
  if (isPlainObject(s.properties)) for (const k of Object.keys(s.properties)) fn(s.properties[k] as Schema);
  for (const k of SCHEMA_ONE) if (has(s, k)) fn(s[k] as Schema);
  if (has(s, 'items')) {
    if (Array.isArray(s.items)) for (const c of s.items) fn(c as Schema);
    else fn(s.items as Schema);
  }
  if (Array.isArray(s.prefixItems)) for (const c of s.prefixItems) fn(c as Schema);
}

function stub(s: Schema): Schema {
  if (typeof s === 'boolean') return s;
  const out: JsonObject = {};
  if (has(s, 'type')) out.type = s.type;
  const d = typeof s.description === 'string' ? s.description.trim().replace(/\s+/g, ' ') : '';
  const short = d.length > MAX_STUB_DESCRIPTION ? d.slice(0, MAX_STUB_DESCRIPTION - 1) + '…' : d;
  out.description = short ? `${short} ${TRUNCATED}` : TRUNCATED;
  return out;
}

/** Rebuild with every subschema at depth >= cut replaced by its stub. */
function pruneAt(s: Schema, depth: number, cut: number, memo: Map<object, Map<number, Schema>>, sizes: WeakMap<object, number>): Schema {
  if (typeof s === 'boolean') return s;
  if (depth >= cut) {
    const st = stub(s);
    // a small leaf stays: its stub would not be smaller
    let leaf = true;
    forEachChild(s, () => (leaf = false));
    return leaf && sizeOf(s, sizes) <= sizeOf(st, sizes) ? s : st;
  }
  let byDepth = memo.get(s);
  const known = byDepth?.get(depth);
  if (known !== undefined) return known;
  const out: JsonObject = {};
  for (const k of Object.keys(s)) {
    const v = s[k];
    if (k === 'properties' && isPlainObject(v)) {
      const props: JsonObject = {};
      for (const n of Object.keys(v)) setOwn(props, n, pruneAt(v[n] as Schema, depth + 1, cut, memo, sizes));
      out.properties = props;
    } else if (SCHEMA_ONE.includes(k) || (k === 'items' && !Array.isArray(v))) {
      out[k] = pruneAt(v as Schema, depth + 1, cut, memo, sizes);
    } else if ((k === 'items' || k === 'prefixItems') && Array.isArray(v)) {
      out[k] = v.map((c) => pruneAt(c as Schema, depth + 1, cut, memo, sizes));
    } else out[k] = v;
  }
  if (!byDepth) memo.set(s, (byDepth = new Map()));
  byDepth.set(depth, out);
  return out;
}

function fits(s: JsonObject): string | undefined {
  if (sizeOf(s, new WeakMap()) > MAX_COMPACT_SCHEMA_BYTES) return undefined;
  const text = JSON.stringify(s);
  return Buffer.byteLength(text) <= MAX_COMPACT_SCHEMA_BYTES ? text : undefined;
}

/**
 * Bound the serialized size of a top-level compact schema. `shared` says the
 * tree may hold one object at several places; the result then is a fresh tree.
 */
export function enforceSizeLimit(top: JsonObject, shared: boolean, note: (message: string) => void): JsonObject {
  // Escapes can at most sextuple a string, so a small estimate needs no exact check.
  let est: number;
  let dag = false;
  if (!shared) {
    est = plainSize(top);
  } else {
    sawShared = false;
    est = sizeOf(top, new WeakMap());
    dag = sawShared;
  }
  if (est * 6 <= MAX_COMPACT_SCHEMA_BYTES) return dag ? (unshared(top) as JsonObject) : top;
  const whole = fits(top);
  if (whole !== undefined) return dag ? (JSON.parse(whole) as JsonObject) : top;

  // Deepest cut level that fits, by binary search on the (monotone) pruned size.
  const height = heightOf(top, new WeakMap());
  let lo = 1;
  let hi = height; // cut = height changes nothing
  let best: { cut: number; text: string } | undefined;
  const sizes = new WeakMap<object, number>();
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const pruned = pruneAt(top, 0, mid, new Map(), sizes) as JsonObject;
    const text = fits(pruned);
    if (text !== undefined) {
      best = { cut: mid, text };
      lo = mid + 1;
    } else hi = mid - 1;
  }
  if (best) {
    note(`larger than ${MAX_COMPACT_SCHEMA_BYTES} bytes; subschemas nested ${best.cut} or more levels deep were cut to stubs`);
    return JSON.parse(best.text) as JsonObject;
  }

  // Not even the top-level property list fits: keep only the object shape.
  note(`larger than ${MAX_COMPACT_SCHEMA_BYTES} bytes even with stubs; reduced to an unconstrained object`);
  const out: JsonObject = {};
  if (typeof top.$schema === 'string' && top.$schema.length < 200) out.$schema = top.$schema;
  if (typeof top.title === 'string') out.title = top.title.slice(0, 200);
  out.type = 'object';
  out.properties = {};
  const d = typeof top.description === 'string' ? top.description.slice(0, 1000) : '';
  out.description = d ? `${d} (input schema too large; truncated)` : '(input schema too large; truncated)';
  return out;
}
