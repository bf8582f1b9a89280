// The conjunction (allOf, `$ref` siblings) of the keywords of two compacted
// nodes that Algebra.and settles without combining subschemas: annotations,
// type, enumeration, format, numeric bounds, counts, pattern and contains.
// Each writes into `out` the exact conjunction where the compact keywords
// can say it; where they cannot, it keeps the first side's keyword and notes
// the loosening (looser, never stricter). Kept apart from algebra.ts so that
// the conjunction reads as a list of keyword groups.
import type { JsonObject, JsonValue } from '../../contract/descriptor.js';
import { type Dialect, deepEqual, getBound, has, multipleOfAnd, patternAnd, setBound, tighter, typeFromMask, typeMask, uniqueValues, valueKey } from './schema-util.js';

/** Where a keyword group records a loosening at the current path. */
export interface Notes {
  note(message: string): void;
}

const ANNOTATIONS = ['$schema', 'title', 'description', 'default', 'examples', 'deprecated', 'readOnly', 'writeOnly'] as const;
const MIN_COUNTS = ['minLength', 'minItems', 'minProperties'] as const;
const MAX_COUNTS = ['maxLength', 'maxItems', 'maxProperties'] as const;

/** Explicit enumeration of a node (`const`/`enum`), or undefined. */
export function explicitValues(s: JsonObject): JsonValue[] | undefined {
  if (has(s, 'const')) {
    if (Array.isArray(s.enum) && !s.enum.some((v) => deepEqual(v, s.const))) return [];
    return [s.const];
  }
  return Array.isArray(s.enum) ? s.enum : undefined;
}

/** Each annotation from the first side that has it. */
export function andAnnotations(a: JsonObject, b: JsonObject, out: JsonObject): void {
  for (const k of ANNOTATIONS) {
    if (has(a, k)) out[k] = a[k];
    else if (has(b, k)) out[k] = b[k];
  }
}

/** The common types; false when there are none (no instance satisfies both). */
export function andType(a: JsonObject, b: JsonObject, out: JsonObject): boolean {
  if (has(a, 'type') && has(b, 'type')) {
    if (deepEqual(a.type, b.type)) out.type = a.type;
    else {
      const m = typeMask(a.type) & typeMask(b.type);
      if (m === 0) return false;
      const t = typeFromMask(m);
      if (t !== undefined) out.type = t;
    }
  } else if (has(a, 'type')) out.type = a.type;
  else if (has(b, 'type')) out.type = b.type;
  return true;
}

/** The common enumerated values (`const`/`enum`); false when there are none. */
export function andValues(a: JsonObject, b: JsonObject, out: JsonObject, d: Dialect): boolean {
  const va = explicitValues(a);
  const vb = explicitValues(b);
  if (va && vb) {
    const keys = new Set(vb.map(valueKey));
    const common = uniqueValues(va.filter((v) => keys.has(valueKey(v))));
    if (common.length === 0) return false;
    if (common.length === 1 && (has(a, 'const') || has(b, 'const')) && !d.unknown.has('const')) out.const = common[0];
    else out.enum = common;
  } else {
    const src = va ? a : vb ? b : undefined;
    if (src) {
      if (has(src, 'const')) out.const = src.const;
      if (has(src, 'enum')) out.enum = src.enum;
    }
  }
  return true;
}

export function andFormat(a: JsonObject, b: JsonObject, out: JsonObject, notes: Notes): void {
  if (has(a, 'format') && has(b, 'format') && a.format !== b.format) {
    out.format = a.format;
    notes.note(`allOf with two formats ("${String(a.format)}", "${String(b.format)}"): kept the first`);
  } else if (has(a, 'format')) out.format = a.format;
  else if (has(b, 'format')) out.format = b.format;
}

/** The tighter bound each way, and a multipleOf both multiples satisfy. */
export function andNumeric(a: JsonObject, b: JsonObject, out: JsonObject, d: Dialect, notes: Notes): void {
  for (const dir of ['min', 'max'] as const) {
    const ba = getBound(a, dir, d);
    const bb = getBound(b, dir, d);
    setBound(out, ba && bb ? tighter(ba, bb, dir) : ba ?? bb, dir, d);
  }
  if (typeof a.multipleOf === 'number' && typeof b.multipleOf === 'number') {
    const m = multipleOfAnd(a.multipleOf, b.multipleOf);
    if (m === undefined) {
      out.multipleOf = a.multipleOf;
      notes.note(`allOf with multipleOf ${a.multipleOf} and ${b.multipleOf}: kept the first`);
    } else out.multipleOf = m;
  } else if (has(a, 'multipleOf')) out.multipleOf = a.multipleOf;
  else if (has(b, 'multipleOf')) out.multipleOf = b.multipleOf;
}

/** The larger of each minimum count, the smaller of each maximum. */
export function andCounts(a: JsonObject, b: JsonObject, out: JsonObject): void {
  for (const k of MIN_COUNTS) {
    if (typeof a[k] === 'number' && typeof b[k] === 'number') out[k] = Math.max(a[k] as number, b[k] as number);
    else if (has(a, k)) out[k] = a[k];
    else if (has(b, k)) out[k] = b[k];
  }
  for (const k of MAX_COUNTS) {
    if (typeof a[k] === 'number' && typeof b[k] === 'number') out[k] = Math.min(a[k] as number, b[k] as number);
    else if (has(a, k)) out[k] = a[k];
    else if (has(b, k)) out[k] = b[k];
  }
}

export function andPattern(a: JsonObject, b: JsonObject, out: JsonObject, notes: Notes): void {
  if (typeof a.pattern === 'string' && typeof b.pattern === 'string') {
    const p = patternAnd(a.pattern, b.pattern);
    if (p === undefined) {
      out.pattern = a.pattern;
      notes.note('allOf with two patterns that cannot be combined: kept the first');
    } else out.pattern = p;
  } else if (has(a, 'pattern')) out.pattern = a.pattern;
  else if (has(b, 'pattern')) out.pattern = b.pattern;
}

/** One `contains` with its counts: both sides' counts combined when they name the same subschema, else the first side's. */
export function andContains(a: JsonObject, b: JsonObject, out: JsonObject, notes: Notes): void {
  if (has(a, 'contains') && has(b, 'contains')) {
    out.contains = a.contains;
    if (deepEqual(a.contains, b.contains)) {
      const minA = typeof a.minContains === 'number' ? a.minContains : undefined;
      const minB = typeof b.minContains === 'number' ? b.minContains : undefined;
      if (minA !== undefined || minB !== undefined) out.minContains = Math.max(minA ?? 1, minB ?? 1);
      const maxA = typeof a.maxContains === 'number' ? a.maxContains : undefined;
      const maxB = typeof b.maxContains === 'number' ? b.maxContains : undefined;
      if (maxA !== undefined || maxB !== undefined) out.maxContains = Math.min(maxA ?? Infinity, maxB ?? Infinity);
    } else {
      if (has(a, 'minContains')) out.minContains = a.minContains;
      if (has(a, 'maxContains')) out.maxContains = a.maxContains;
      notes.note('allOf with two different "contains": kept the first');
    }
  } else {
    const src = has(a, 'contains') ? a : has(b, 'contains') ? b : undefined;
    if (src) {
      out.contains = src.contains;
      if (has(src, 'minContains')) out.minContains = src.minContains;
      if (has(src, 'maxContains')) out.maxContains = src.maxContains;
    }
  }
}
