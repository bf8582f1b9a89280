// Shared helpers of the compact view: dialects, instance kinds, data
// equality, and the accessors for keyword groups whose spelling depends on
// the dialect (tuples, numeric bounds, required-dependencies).
import type { JsonObject, JsonValue } from '../../contract/descriptor.js';
import { isPlainObject } from '../../util/json.js';

/** A compacted subschema: a boolean schema or an object using only compact keywords. */
export type Schema = JsonObject | boolean;

export type DialectId = 'draft-04' | 'draft-06' | 'draft-07' | '2019-09' | '2020-12';

export interface Dialect {
  id: DialectId;
  /** 2019-09 and later apply the siblings of `$ref`; earlier drafts ignore them. */
  refSiblings: boolean;
  /** `prefixItems` + `items` (2020-12) or array `items` + `additionalItems` (earlier). */
  tuple: 'prefixItems' | 'itemsArray';
  /** Keyword for "if key present, these keys are required". */
  depsKeyword: 'dependentRequired' | 'dependencies';
  /** draft-04: `exclusiveMinimum`/`exclusiveMaximum` are booleans modifying `minimum`/`maximum`. */
  booleanExclusive: boolean;
  /** Keywords this dialect does not know (they have no effect in it, so they are dropped). */
  unknown: ReadonlySet<string>;
}

const LEGACY_UNKNOWN = ['minContains', 'maxContains', 'dependentRequired', 'prefixItems', 'unevaluatedProperties', 'unevaluatedItems', 'dependentSchemas'];

const DIALECTS: Record<DialectId, Dialect> = {
  'draft-04': {
    id: 'draft-04', refSiblings: false, tuple: 'itemsArray', depsKeyword: 'dependencies', booleanExclusive: true,
    unknown: new Set([...LEGACY_UNKNOWN, 'const', 'contains', 'propertyNames', 'examples', 'if', 'then', 'else']),
  },
  'draft-06': {
    id: 'draft-06', refSiblings: false, tuple: 'itemsArray', depsKeyword: 'dependencies', booleanExclusive: false,
    unknown: new Set([...LEGACY_UNKNOWN, 'if', 'then', 'else']),
  },
  'draft-07': {
    id: 'draft-07', refSiblings: false, tuple: 'itemsArray', depsKeyword: 'dependencies', booleanExclusive: false,
    unknown: new Set(LEGACY_UNKNOWN),
  },
  '2019-09': {
    id: '2019-09', refSiblings: true, tuple: 'itemsArray', depsKeyword: 'dependentRequired', booleanExclusive: false,
    unknown: new Set(['prefixItems', 'dependencies']),
  },
  '2020-12': {
    id: '2020-12', refSiblings: true, tuple: 'prefixItems', depsKeyword: 'dependentRequired', booleanExclusive: false,
    unknown: new Set(['additionalItems', 'dependencies']),
  },
};

/** The dialect named by a root `$schema`; absent or unrecognized means 2020-12 (the MCP default). */
export function detectDialect(root: JsonValue): Dialect {
  const uri = isPlainObject(root) && typeof root.$schema === 'string' ? root.$schema : '';
  if (uri.includes('draft-04')) return DIALECTS['draft-04'];
  if (uri.includes('draft-06')) return DIALECTS['draft-06'];
  if (uri.includes('draft-07')) return DIALECTS['draft-07'];
  if (uri.includes('2019-09')) return DIALECTS['2019-09'];
  return DIALECTS['2020-12'];
}

const hasOwn = Object.prototype.hasOwnProperty;
export function has(o: JsonObject, key: string): boolean {
  return hasOwn.call(o, key);
}

/** True for `true` and `{}`: accepts everything. */
export function isTrivial(s: Schema): boolean {
  if (s === true) return true;
  if (s === false) return false;
  for (const _ in s) return false;
  return true;
}

// ---- instance kinds -------------------------------------------------------

export const K_NULL = 1;
export const K_BOOL = 2;
export const K_OBJ = 4;
export const K_ARR = 8;
export const K_STR = 16;
/** Integral numbers. */
export const K_INT = 32;
/** Non-integral numbers. */
export const K_FRAC = 64;
export const K_NUM = K_INT | K_FRAC;
export const K_ALL = 127;

const TYPE_MASK: Record<string, number> = {
  null: K_NULL, boolean: K_BOOL, object: K_OBJ, array: K_ARR, string: K_STR, integer: K_INT, number: K_NUM,
};
export const TYPE_NAMES = new Set(Object.keys(TYPE_MASK));

/** Mask of the instance kinds allowed by a `type` value (all when absent or malformed). */
export function typeMask(type: JsonValue | undefined): number {
  if (type === undefined) return K_ALL;
  if (typeof type === 'string') return TYPE_MASK[type] ?? K_ALL;
  if (Array.isArray(type)) {
    let m = 0;
    for (const t of type) {
      if (typeof t !== 'string' || !(t in TYPE_MASK)) return K_ALL;
      m |= TYPE_MASK[t];
    }
    return m === 0 ? K_ALL : m;
  }
  return K_ALL;
}

export function valueKind(v: JsonValue): number {
  if (v === null) return K_NULL;
  switch (typeof v) {
    case 'boolean': return K_BOOL;
    case 'string': return K_STR;
    case 'number': return Number.isInteger(v) ? K_INT : K_FRAC;
    default: return Array.isArray(v) ? K_ARR : K_OBJ;
  }
}

/** A `type` value for a kind mask, in a fixed order (null last); undefined when every kind is allowed. */
export function typeFromMask(mask: number): JsonValue | undefined {
  if (mask === K_ALL) return undefined;
  const out: string[] = [];
  if (mask & K_OBJ) out.push('object');
  if (mask & K_ARR) out.push('array');
  if (mask & K_STR) out.push('string');
  if (mask & K_FRAC) out.push('number');
  else if (mask & K_INT) out.push('integer');
  if (mask & K_BOOL) out.push('boolean');
  if (mask & K_NULL) out.push('null');
  return out.length === 1 ? out[0] : out;
}

// ---- data ------------------------------------------------------------------

export function deepEqual(a: JsonValue | undefined, b: JsonValue | undefined): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!deepEqual(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const ka = Object.keys(a);
  if (ka.length !== Object.keys(b).length) return false;
  for (const k of ka) if (!hasOwn.call(b, k) || !deepEqual(a[k], b[k])) return false;
  return true;
}

/** A key identifying a JSON value up to deep equality (object key order matters; good enough for dedupe). */
export function valueKey(v: JsonValue): string {
  if (v === null || typeof v !== 'object') return typeof v + ':' + String(v);
  return 'j:' + JSON.stringify(v);
}

/** Values of a then b, without duplicates (first occurrence wins). */
export function uniqueValues(values: JsonValue[]): JsonValue[] {
  const seen = new Set<string>();
  const out: JsonValue[] = [];
  for (const v of values) {
    const k = valueKey(v);
    if (!seen.has(k)) {
      seen.add(k);
      out.push(v);
    }
  }
  return out;
}

// ---- keyword groups --------------------------------------------------------

export interface Tuple {
  /** Positional item schemas, when the node is a tuple. */
  prefix?: Schema[];
  /** Items after the prefix (or all items when there is no prefix); undefined = unconstrained. */
  rest?: Schema;
}

export function getTuple(s: JsonObject, d: Dialect): Tuple {
  if (d.tuple === 'prefixItems') {
    return {
      prefix: Array.isArray(s.prefixItems) ? (s.prefixItems as Schema[]) : undefined,
      rest: s.items as Schema | undefined,
    };
  }
  if (Array.isArray(s.items)) return { prefix: s.items as Schema[], rest: s.additionalItems as Schema | undefined };
  return { rest: s.items as Schema | undefined };
}

export function setTuple(out: JsonObject, t: Tuple, d: Dialect): void {
  if (d.tuple === 'prefixItems') {
    if (t.prefix) out.prefixItems = t.prefix;
    if (t.rest !== undefined) out.items = t.rest;
    return;
  }
  if (t.prefix) {
    out.items = t.prefix;
    if (t.rest !== undefined) out.additionalItems = t.rest;
  } else if (t.rest !== undefined) {
    out.items = t.rest;
  }
}

export function hasTuple(s: JsonObject): boolean {
  return has(s, 'items') || has(s, 'prefixItems') || has(s, 'additionalItems');
}

export interface Bound {
  value: number;
  exclusive: boolean;
}

/** The effective lower (`dir = 'min'`) or upper bound of a node. */
export function getBound(s: JsonObject, dir: 'min' | 'max', d: Dialect): Bound | undefined {
  const incKey = dir === 'min' ? 'minimum' : 'maximum';
  const excKey = dir === 'min' ? 'exclusiveMinimum' : 'exclusiveMaximum';
  const inc = s[incKey];
  const exc = s[excKey];
  if (d.booleanExclusive) {
    return typeof inc === 'number' ? { value: inc, exclusive: exc === true } : undefined;
  }
  let b: Bound | undefined = typeof inc === 'number' ? { value: inc, exclusive: false } : undefined;
  if (typeof exc === 'number') {
    const e = { value: exc, exclusive: true };
    b = b === undefined ? e : tighter(b, e, dir);
  }
  return b;
}

export function tighter(a: Bound, b: Bound, dir: 'min' | 'max'): Bound {
  if (a.value === b.value) return a.exclusive ? a : b;
  return (dir === 'min' ? a.value > b.value : a.value < b.value) ? a : b;
}

export function looser(a: Bound, b: Bound, dir: 'min' | 'max'): Bound {
  if (a.value === b.value) return a.exclusive ? b : a;
  return (dir === 'min' ? a.value < b.value : a.value > b.value) ? a : b;
}

export function setBound(out: JsonObject, b: Bound | undefined, dir: 'min' | 'max', d: Dialect): void {
  if (!b) return;
  const incKey = dir === 'min' ? 'minimum' : 'maximum';
  const excKey = dir === 'min' ? 'exclusiveMinimum' : 'exclusiveMaximum';
  if (d.booleanExclusive) {
    out[incKey] = b.value;
    if (b.exclusive) out[excKey] = true;
  } else {
    out[b.exclusive ? excKey : incKey] = b.value;
  }
}

export function getDepsRequired(s: JsonObject, d: Dialect): Record<string, string[]> | undefined {
  const v = s[d.depsKeyword];
  return isPlainObject(v) ? (v as Record<string, string[]>) : undefined;
}

/** Keyword order of rewritten nodes (copied nodes keep their own order). */
export const CANONICAL_ORDER = [
  '$schema', 'title', 'description', 'type', 'const', 'enum', 'default', 'examples', 'deprecated', 'readOnly', 'writeOnly',
  'format', 'minimum', 'exclusiveMinimum', 'maximum', 'exclusiveMaximum', 'multipleOf',
  'minLength', 'maxLength', 'pattern',
  'prefixItems', 'items', 'additionalItems', 'minItems', 'maxItems', 'uniqueItems', 'contains', 'minContains', 'maxContains',
  'properties', 'required', 'additionalProperties', 'propertyNames', 'minProperties', 'maxProperties',
  'dependentRequired', 'dependencies',
];

export function ordered(o: JsonObject): JsonObject {
  const out: JsonObject = {};
  for (const k of CANONICAL_ORDER) if (has(o, k)) out[k] = o[k];
  return out;
}

// ---- regular expressions ---------------------------------------------------

const regexValidity = new Map<string, boolean>();

/** Whether a pattern compiles as an ECMA-262 regex with the `u` flag (what validators use). */
export function isValidPattern(p: string): boolean {
  let ok = regexValidity.get(p);
  if (ok === undefined) {
    try {
      new RegExp(p, 'u');
      ok = true;
    } catch {
      ok = false;
    }
    if (regexValidity.size > 5000) regexValidity.clear();
    regexValidity.set(p, ok);
  }
  return ok;
}

const BACKREF = /\\[1-9]|\\k</;

/** A pattern matching where both match (unanchored search semantics), or undefined when that cannot be written safely. */
export function patternAnd(a: string, b: string): string | undefined {
  if (a === b) return a;
  if (BACKREF.test(a) || BACKREF.test(b)) return undefined;
  const p = `^(?=[\\s\\S]*?(?:${a}))(?=[\\s\\S]*?(?:${b}))`;
  return isValidPattern(p) ? p : undefined;
}

/** A pattern matching where either matches, or undefined when that cannot be written safely. */
export function patternOr(a: string, b: string): string | undefined {
  if (a === b) return a;
  if (BACKREF.test(a) || BACKREF.test(b)) return undefined;
  const p = `(?:${a})|(?:${b})`;
  return isValidPattern(p) ? p : undefined;
}

// ---- numbers ---------------------------------------------------------------

function gcdInt(a: number, b: number): number {
  while (b) [a, b] = [b, a % b];
  return a;
}

/** multipleOf of a conjunction, or undefined when it cannot be expressed exactly. */
export function multipleOfAnd(a: number, b: number): number | undefined {
  if (a === b) return a;
  if (Number.isInteger(a) && Number.isInteger(b)) {
    const l = (a / gcdInt(a, b)) * b;
    return Number.isSafeInteger(l) ? l : undefined;
  }
  if (Number.isInteger(a / b)) return a;
  if (Number.isInteger(b / a)) return b;
  return undefined;
}

/** multipleOf implied by either, or undefined (no constraint). */
export function multipleOfOr(a: number, b: number): number | undefined {
  if (a === b) return a;
  if (Number.isInteger(a) && Number.isInteger(b)) {
    const g = gcdInt(a, b);
    return g;
  }
  if (Number.isInteger(a / b)) return b;
  if (Number.isInteger(b / a)) return a;
  return undefined;
}

/** Own property value, or undefined (never an inherited member such as `constructor`). */
export function own(o: JsonObject | undefined, key: string): JsonValue | undefined {
  return o !== undefined && hasOwn.call(o, key) ? o[key] : undefined;
}
