// Conjunction (`and`, for allOf and `$ref` siblings) and loosest common
// schema (`or`, for anyOf/oneOf) of two already-compacted subschemas.
//
// Soundness rule for both: the result accepts every instance the exact
// conjunction/disjunction accepts. Where the compact keywords can express the
// exact result it is exact; elsewhere it is looser, never stricter.
//
// Results may share subschema objects with their arguments; the caller never
// mutates a returned schema (and unshares the final tree).
import type { JsonObject, JsonValue } from '../../contract/descriptor.js';
import { isPlainObject, setOwn } from '../../util/json.js';
import { andAnnotations, andContains, andCounts, andFormat, andNumeric, andPattern, andType, andValues, explicitValues } from './and-keywords.js';
import { type Bound, type Dialect, type Schema, deepEqual, getBound, getDepsRequired, getTuple, has, hasTuple, isTrivial, K_ARR, K_BOOL, K_NULL, K_NUM, K_OBJ, K_STR, looser, multipleOfOr, ordered, own, patternOr, setBound, setTuple, typeFromMask, typeMask, uniqueValues, valueKind } from './schema-util.js';

export interface AlgebraHost {
  /** Spend one unit of the work budget; false when it is exhausted. */
  spend(): boolean;
  /** Record a loosening at the current path. */
  note(message: string): void;
}

const NUMERIC_FORMATS = new Set(['int32', 'int64', 'float', 'double']);

/** Instance kinds a format applies to (validators check formats only on their own kind). */
function formatMask(f: JsonValue | undefined): number {
  return typeof f === 'string' && NUMERIC_FORMATS.has(f) ? K_NUM : K_STR;
}

/** Instance kinds a compacted node can accept at all (type narrowed by its enumeration). */
export function admittedKinds(s: Schema): number {
  if (s === true) return 127;
  if (s === false) return 0;
  let m = typeMask(s.type);
  const vals = explicitValues(s);
  if (vals) {
    let vm = 0;
    for (const v of vals) vm |= valueKind(v);
    m &= vm;
  }
  return m;
}

function kindAllowed(v: JsonValue, mask: number): boolean {
  return (valueKind(v) & mask) !== 0;
}

/** Each side's declared properties, and the schema its additionalProperties gives a name it does not declare. */
interface PropertySides {
  pa: JsonObject | undefined;
  pb: JsonObject | undefined;
  addA: Schema;
  addB: Schema;
}

function propertySides(a: JsonObject, b: JsonObject): PropertySides {
  return {
    pa: isPlainObject(a.properties) ? a.properties : undefined,
    pb: isPlainObject(b.properties) ? b.properties : undefined,
    addA: (has(a, 'additionalProperties') ? a.additionalProperties : true) as Schema,
    addB: (has(b, 'additionalProperties') ? b.additionalProperties : true) as Schema,
  };
}

/**
 * The properties of a conjunction or a union, a's names first: a name a
 * declares is combined with b's schema for it (b's additionalProperties when
 * b does not declare it); a name only b declares goes to `onlyB`.
 */
function combineProperties(sides: PropertySides, combine: (x: Schema, y: Schema) => Schema, onlyB: (y: Schema) => Schema): JsonObject {
  const { pa, pb, addB } = sides;
  const props: JsonObject = {};
  for (const n of Object.keys(pa ?? {})) {
    const y = own(pb, n);
    setOwn(props, n, combine(pa![n] as Schema, (y === undefined ? addB : y) as Schema));
  }
  for (const n of Object.keys(pb ?? {})) {
    if (pa && has(pa, n)) continue;
    setOwn(props, n, onlyB(pb![n] as Schema));
  }
  return props;
}

export class Algebra {
  /** Set by `or` when the union could not keep some branch information. Reset by the caller. */
  lossy = false;

  constructor(
    private readonly d: Dialect,
    private readonly host: AlgebraHost,
  ) {}

  // ---- conjunction --------------------------------------------------------

  and(a: Schema, b: Schema): Schema {
    if (a === false || b === false) return false;
    if (isTrivial(b)) return a;
    if (isTrivial(a)) return b;
    if (!this.host.spend()) {
      this.host.note('work budget exhausted; a conjunction kept only its first part');
      return a;
    }
    a = a as JsonObject;
    b = b as JsonObject;
    const out: JsonObject = {};
    andAnnotations(a, b, out);
    if (!andType(a, b, out) || !andValues(a, b, out, this.d)) return false;
    andFormat(a, b, out, this.host);
    andNumeric(a, b, out, this.d, this.host);
    andCounts(a, b, out);
    andPattern(a, b, out, this.host);
    if (has(a, 'uniqueItems') || has(b, 'uniqueItems')) out.uniqueItems = a.uniqueItems === true || b.uniqueItems === true;
    this.andItems(a, b, out);
    andContains(a, b, out, this.host);
    this.andObject(a, b, out);
    return ordered(out);
  }

  /** Tuple items and the rest, position by position (a missing position is the side's rest). */
  private andItems(a: JsonObject, b: JsonObject, out: JsonObject): void {
    if (!hasTuple(a) && !hasTuple(b)) return;
    const d = this.d;
    const ta = getTuple(a, d);
    const tb = getTuple(b, d);
    const rest = this.andOpt(ta.rest, tb.rest);
    if (!ta.prefix && !tb.prefix) setTuple(out, { rest }, d);
    else {
      const n = Math.max(ta.prefix?.length ?? 0, tb.prefix?.length ?? 0);
      const prefix: Schema[] = [];
      for (let i = 0; i < n; i++) {
        prefix.push(this.and(ta.prefix?.[i] ?? ta.rest ?? true, tb.prefix?.[i] ?? tb.rest ?? true));
      }
      setTuple(out, { prefix, rest }, d);
    }
  }

  private andOpt(a: Schema | undefined, b: Schema | undefined): Schema | undefined {
    if (a === undefined) return b;
    if (b === undefined) return a;
    return this.and(a, b);
  }

  private andObject(a: JsonObject, b: JsonObject, out: JsonObject): void {
    const d = this.d;
    const objA = has(a, 'properties') || has(a, 'additionalProperties');
    const objB = has(b, 'properties') || has(b, 'additionalProperties');
    if (objA && objB) {
      const { pa, pb, addA, addB } = propertySides(a, b);
      // A name only one side declares is governed on the other side by its additionalProperties:
      // this is exact, also when one side forbids additional properties.
      if (pa || pb) out.properties = combineProperties({ pa, pb, addA, addB }, (x, y) => this.and(x, y), (y) => this.and(y, addA));
      if (has(a, 'additionalProperties') || has(b, 'additionalProperties')) {
        const add = this.and(addA, addB);
        if (!isTrivial(add)) out.additionalProperties = add;
      }
    } else {
      const src = objA ? a : objB ? b : undefined;
      if (src) {
        if (has(src, 'properties')) out.properties = src.properties;
        if (has(src, 'additionalProperties')) out.additionalProperties = src.additionalProperties;
      }
    }

    if (Array.isArray(a.required) || Array.isArray(b.required)) {
      const req = uniqueValues([...((a.required as JsonValue[]) ?? []), ...((b.required as JsonValue[]) ?? [])]);
      out.required = req;
    }

    const pn = this.andOpt(a.propertyNames as Schema | undefined, b.propertyNames as Schema | undefined);
    if (pn !== undefined) out.propertyNames = pn;

    const da = getDepsRequired(a, d);
    const db = getDepsRequired(b, d);
    if (da && db) {
      const deps: JsonObject = {};
      for (const k of Object.keys(da)) setOwn(deps, k, uniqueValues([...da[k], ...((own(db, k) as string[] | undefined) ?? [])]));
      for (const k of Object.keys(db)) if (!has(da, k)) setOwn(deps, k, db[k]);
      out[d.depsKeyword] = deps;
    } else if (da || db) out[d.depsKeyword] = (da ?? db) as JsonObject;
  }

  // ---- loosest common schema ----------------------------------------------

  or(a: Schema, b: Schema): Schema {
    if (a === false) return b;
    if (b === false) return a;
    const ma = admittedKinds(a);
    const mb = admittedKinds(b);
    if (ma === 0) return b;
    if (mb === 0) return a;
    if (isTrivial(a) || isTrivial(b)) {
      const other = (isTrivial(a) ? b : a) as Schema;
      if (!isTrivial(other)) this.lossy = true;
      return annotationsOnly(other);
    }
    if (!this.host.spend()) {
      this.host.note('work budget exhausted; a union became {}');
      this.lossy = true;
      return {};
    }
    a = a as JsonObject;
    b = b as JsonObject;
    const out: JsonObject = {};

    if (has(a, '$schema')) out.$schema = a.$schema;
    for (const k of ['title', 'description'] as const) {
      if (has(a, k) && has(b, k)) {
        if (a[k] === b[k]) out[k] = a[k];
        else this.lossy = true;
      } else if (has(a, k)) out[k] = a[k];
      else if (has(b, k)) out[k] = b[k];
    }
    if (has(a, 'default') && has(b, 'default')) {
      if (deepEqual(a.default, b.default)) out.default = a.default;
    } else if (has(a, 'default')) out.default = a.default;
    else if (has(b, 'default')) out.default = b.default;
    if (Array.isArray(a.examples) && Array.isArray(b.examples)) out.examples = uniqueValues([...a.examples, ...b.examples]);
    else if (has(a, 'examples')) out.examples = a.examples;
    else if (has(b, 'examples')) out.examples = b.examples;
    for (const k of ['deprecated', 'readOnly', 'writeOnly'] as const) {
      if (has(a, k) && has(b, k) && a[k] === b[k]) out[k] = a[k];
    }

    const mask = ma | mb;
    const t = typeFromMask(mask);
    if (t !== undefined) out.type = t;

    const xa = explicitValues(a);
    const xb = explicitValues(b);
    const ea = this.finiteValues(xa, ma);
    const eb = this.finiteValues(xb, mb);
    if (ea && eb) {
      const vals = uniqueValues([...ea, ...eb]);
      if (vals.length === 1 && !this.d.unknown.has('const')) out.const = vals[0];
      else out.enum = vals;
    } else if (xa || xb) this.lossy = true;

    // Each keyword group constrains only instances of its kinds: a group is
    // taken as-is from the one branch admitting those kinds, and loosened to
    // the common part when both admit them.
    this.orFormat(a, b, ma, mb, out);
    this.orGroup(a, b, ma, mb, K_NUM, out, (x, y, o) => this.orNumeric(x, y, o), NUMERIC_KEYS);
    this.orGroup(a, b, ma, mb, K_STR, out, (x, y, o) => this.orString(x, y, o), STRING_KEYS);
    this.orGroup(a, b, ma, mb, K_ARR, out, (x, y, o) => this.orArray(x, y, o), ARRAY_KEYS);
    this.orGroup(a, b, ma, mb, K_OBJ, out, (x, y, o) => this.orObjectGroup(x, y, o), OBJECT_KEYS);
    return ordered(out);
  }

  /** Finite set of values a branch accepts, when it is one: its enumeration, or the kinds null/boolean alone. */
  private finiteValues(explicit: JsonValue[] | undefined, mask: number): JsonValue[] | undefined {
    if (explicit) return explicit.filter((v) => kindAllowed(v, mask));
    if (mask === K_NULL) return [null];
    if (mask === K_BOOL) return [true, false];
    if (mask === (K_NULL | K_BOOL)) return [true, false, null];
    return undefined;
  }

  private orFormat(a: JsonObject, b: JsonObject, ma: number, mb: number, out: JsonObject): void {
    const fa = typeof a.format === 'string' && ma & formatMask(a.format) ? a.format : undefined;
    const fb = typeof b.format === 'string' && mb & formatMask(b.format) ? b.format : undefined;
    if (fa !== undefined && fb !== undefined) {
      if (fa === fb) out.format = fa;
      else this.lossy = true;
    } else if (fa !== undefined) {
      if (mb & formatMask(fa)) this.lossy = true;
      else out.format = fa;
    } else if (fb !== undefined) {
      if (ma & formatMask(fb)) this.lossy = true;
      else out.format = fb;
    }
  }

  private orGroup(
    a: JsonObject, b: JsonObject, ma: number, mb: number, kinds: number, out: JsonObject,
    merge: (a: JsonObject, b: JsonObject, out: JsonObject) => void, keys: readonly string[],
  ): void {
    const inA = (ma & kinds) !== 0;
    const inB = (mb & kinds) !== 0;
    if (inA && inB) {
      if (kinds !== K_OBJ && (isFree(a, keys) || isFree(b, keys))) return; // one branch accepts every instance of these kinds
      const before = this.lossy;
      merge(a, b, out);
      // identical group keywords on both sides lose nothing
      if (!before && this.lossy && keys.every((k) => deepEqual(a[k], b[k]))) this.lossy = false;
    } else if (inA || inB) {
      const src = inA ? a : b;
      for (const k of keys) if (has(src, k)) out[k] = src[k];
    }
  }

  private orNumeric(a: JsonObject, b: JsonObject, out: JsonObject): void {
    for (const dir of ['min', 'max'] as const) {
      const ba = getBound(a, dir, this.d);
      const bb = getBound(b, dir, this.d);
      let r: Bound | undefined;
      if (ba && bb) r = looser(ba, bb, dir);
      if (ba && bb ? ba.value !== bb.value || ba.exclusive !== bb.exclusive : ba || bb) this.lossy = true;
      setBound(out, r, dir, this.d);
    }
    if (typeof a.multipleOf === 'number' && typeof b.multipleOf === 'number') {
      const m = multipleOfOr(a.multipleOf, b.multipleOf);
      if (m !== undefined) out.multipleOf = m;
      if (m !== a.multipleOf || m !== b.multipleOf) this.lossy = true;
    } else if (has(a, 'multipleOf') || has(b, 'multipleOf')) this.lossy = true;
  }

  private orString(a: JsonObject, b: JsonObject, out: JsonObject): void {
    this.orCount(a, b, out, 'minLength', 'maxLength');
    if (typeof a.pattern === 'string' && typeof b.pattern === 'string') {
      const p = patternOr(a.pattern, b.pattern);
      if (p !== undefined) out.pattern = p;
      else this.lossy = true;
    } else if (has(a, 'pattern') || has(b, 'pattern')) this.lossy = true;
  }

  private orCount(a: JsonObject, b: JsonObject, out: JsonObject, minK: string, maxK: string): void {
    if (typeof a[minK] === 'number' && typeof b[minK] === 'number') out[minK] = Math.min(a[minK] as number, b[minK] as number);
    if (typeof a[maxK] === 'number' && typeof b[maxK] === 'number') out[maxK] = Math.max(a[maxK] as number, b[maxK] as number);
    if (!deepEqual(a[minK], b[minK]) || !deepEqual(a[maxK], b[maxK])) this.lossy = true;
  }

  private orArray(a: JsonObject, b: JsonObject, out: JsonObject): void {
    const d = this.d;
    this.orCount(a, b, out, 'minItems', 'maxItems');
    if (a.uniqueItems === true && b.uniqueItems === true) out.uniqueItems = true;
    else if (a.uniqueItems === true || b.uniqueItems === true) this.lossy = true;
    if (hasTuple(a) || hasTuple(b)) {
      const ta = getTuple(a, d);
      const tb = getTuple(b, d);
      const restA = ta.rest ?? true;
      const restB = tb.rest ?? true;
      const rest = this.or(restA, restB);
      if (!ta.prefix && !tb.prefix) {
        if (!isTrivial(rest)) setTuple(out, { rest }, d);
      } else {
        const n = Math.max(ta.prefix?.length ?? 0, tb.prefix?.length ?? 0);
        const prefix: Schema[] = [];
        for (let i = 0; i < n; i++) prefix.push(this.or(ta.prefix?.[i] ?? restA, tb.prefix?.[i] ?? restB));
        if (prefix.some((p) => !isTrivial(p)) || !isTrivial(rest)) {
          setTuple(out, { prefix, rest: isTrivial(rest) ? undefined : rest }, d);
        }
      }
    }
    if (has(a, 'contains') && has(b, 'contains') && deepEqual(a.contains, b.contains)) {
      out.contains = a.contains;
      const minA = typeof a.minContains === 'number' ? a.minContains : 1;
      const minB = typeof b.minContains === 'number' ? b.minContains : 1;
      if (Math.min(minA, minB) !== 1) out.minContains = Math.min(minA, minB);
      if (typeof a.maxContains === 'number' && typeof b.maxContains === 'number') out.maxContains = Math.max(a.maxContains, b.maxContains);
    } else if (has(a, 'contains') || has(b, 'contains')) this.lossy = true;
  }

  private orObjectGroup(a: JsonObject, b: JsonObject, out: JsonObject): void {
    const d = this.d;
    const { pa, pb, addA, addB } = propertySides(a, b);
    // A property only one branch names: the other branch accepts for it whatever
    // its additionalProperties accepts, so the union must too.
    if (pa || pb) out.properties = combineProperties({ pa, pb, addA, addB }, (x, y) => this.or(x, y), (y) => this.or(addA, y));
    if (has(a, 'additionalProperties') && has(b, 'additionalProperties')) {
      const add = this.or(addA, addB);
      if (!isTrivial(add)) out.additionalProperties = add;
    } else if (has(a, 'additionalProperties') || has(b, 'additionalProperties')) {
      const add = (has(a, 'additionalProperties') ? addA : addB) as Schema;
      if (!isTrivial(add)) this.lossy = true;
    }
    if (Array.isArray(a.required) && Array.isArray(b.required)) {
      const rb = new Set(b.required);
      const req = a.required.filter((n) => rb.has(n));
      if (req.length > 0) out.required = req;
      if (req.length !== a.required.length || req.length !== b.required.length) this.lossy = true;
    } else if (Array.isArray(a.required) || Array.isArray(b.required)) this.lossy = true;
    if (has(a, 'propertyNames') && has(b, 'propertyNames')) {
      const pn = this.or(a.propertyNames as Schema, b.propertyNames as Schema);
      if (!isTrivial(pn)) out.propertyNames = pn;
    } else if (has(a, 'propertyNames') || has(b, 'propertyNames')) this.lossy = true;
    this.orCount(a, b, out, 'minProperties', 'maxProperties');
    const da = getDepsRequired(a, d);
    const db = getDepsRequired(b, d);
    if (da && db) {
      const deps: JsonObject = {};
      for (const k of Object.keys(da)) {
        const other = own(db, k);
        if (!Array.isArray(other)) continue;
        const set = new Set(other);
        const common = da[k].filter((n) => set.has(n));
        if (common.length > 0) setOwn(deps, k, common);
      }
      if (Object.keys(deps).length > 0) out[d.depsKeyword] = deps;
      if (!deepEqual(da as unknown as JsonValue, db as unknown as JsonValue)) this.lossy = true;
    } else if (da || db) this.lossy = true;
  }
}

const NUMERIC_KEYS = ['minimum', 'exclusiveMinimum', 'maximum', 'exclusiveMaximum', 'multipleOf'];
const STRING_KEYS = ['minLength', 'maxLength', 'pattern'];
const ARRAY_KEYS = ['prefixItems', 'items', 'additionalItems', 'minItems', 'maxItems', 'uniqueItems', 'contains', 'minContains', 'maxContains'];
const OBJECT_KEYS = ['properties', 'required', 'additionalProperties', 'propertyNames', 'minProperties', 'maxProperties', 'dependentRequired', 'dependencies'];

/** No constraint of the group and no enumeration: the node accepts every instance of the group's kinds it admits. */
function isFree(s: JsonObject, keys: readonly string[]): boolean {
  return !has(s, 'const') && !has(s, 'enum') && !keys.some((k) => has(s, k));
}

/** Only the descriptive keywords of a node (`{}` when it has none). */
function annotationsOnly(s: Schema): Schema {
  if (typeof s === 'boolean') return {};
  const out: JsonObject = {};
  for (const k of ['title', 'description'] as const) if (has(s, k)) out[k] = s[k];
  return out;
}
