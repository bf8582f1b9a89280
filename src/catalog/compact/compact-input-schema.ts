// The compact view of a tool's input schema (issue 4, docs/compact-view.md).
//
// `compactInputSchema` rewrites a JSON Schema into a structural subset that
// LLM providers accept: top-level `type: "object"` with `properties`, and no
// `$ref`, `allOf`, `anyOf`, `oneOf`, `not`, `patternProperties` or
// `dependentSchemas` at any depth. It rewrites instead of dropping: every
// instance the original accepts, the compact schema accepts too, and it stays
// as tight as the subset allows. Pure: the input is never mutated and the
// output shares no object with it.
import type { JsonObject, JsonValue } from '../../contract/descriptor.js';
import { Algebra, type AlgebraHost, admittedKinds } from './algebra.js';
import { alternativesNote, boundedNote, brief, withNote } from './brief.js';
import {
  MAX_DATA_DEPTH, MAX_LOOSENED_NOTES, MAX_NOTE_LENGTH, MAX_RECURSION_UNROLL, MAX_SCHEMA_DEPTH, MAX_WORK,
} from './limits.js';
import {
  type Dialect, type Schema, detectDialect, has, isObject, isTrivial, isValidPattern, K_OBJ, ordered, pointerSegment,
  setKey, TYPE_NAMES, valueKind,
} from './schema-util.js';
import { enforceSizeLimit } from './size.js';

export interface CompactSchemaResult {
  schema: JsonObject;
  /** Human-readable notes on what was loosened; empty when nothing was. */
  loosened: string[];
}

/** The keywords a compact schema may contain (besides `$schema` at the top). */
export const COMPACT_KEYWORDS: ReadonlySet<string> = new Set([
  'type', 'enum', 'const', 'title', 'description', 'default', 'examples', 'deprecated', 'readOnly', 'writeOnly', 'format',
  'minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf', 'minLength', 'maxLength', 'pattern',
  'items', 'prefixItems', 'additionalItems', 'minItems', 'maxItems', 'uniqueItems', 'contains', 'minContains', 'maxContains',
  'properties', 'required', 'additionalProperties', 'propertyNames', 'minProperties', 'maxProperties',
  'dependentRequired', 'dependencies',
]);

/** Keywords kept next to a `$ref` in drafts that ignore its other siblings. */
const ANNOTATION_KEYWORDS = new Set(['title', 'description', 'default', 'examples', 'deprecated', 'readOnly', 'writeOnly']);
const COUNT_KEYWORDS = new Set([
  'minLength', 'maxLength', 'minItems', 'maxItems', 'minProperties', 'maxProperties', 'minContains', 'maxContains',
]);
/** Keywords that only identify or annotate locations; dropped (their targets are inlined). */
const LOCATION_KEYWORDS = new Set([
  '$defs', 'definitions', '$id', 'id', '$anchor', '$dynamicAnchor', '$recursiveAnchor', '$vocabulary', '$comment',
]);

export function compactInputSchema(schema: JsonObject): CompactSchemaResult {
  return compactSchemaValue(schema);
}

/** Same as `compactInputSchema`, for any JSON value (boolean schemas included). */
export function compactSchemaValue(schema: JsonValue): CompactSchemaResult {
  const c = new Compactor(schema);
  const compacted = c.compact(schema, 0);
  const top = c.toTopLevel(compacted);
  const sized = enforceSizeLimit(top, c.shared, (m) => c.noteAt('', m));
  return { schema: sized, loosened: c.loosenedList() };
}

interface Resolved {
  node: JsonValue;
  base: JsonValue;
}

class Compactor implements AlgebraHost {
  readonly d: Dialect;
  readonly alg: Algebra;
  /** True once a merge or union may have placed one object at two places in the output. */
  shared = false;
  private work = 0;
  private budgetNoted = false;
  private readonly notes: string[] = [];
  private readonly noteSet = new Set<string>();
  private extraNotes = 0;
  private readonly path: string[] = [];
  /** The input objects being compacted, outermost first (the current path, through inlined refs). */
  private readonly open: object[] = [];
  /** Root of the schema resource `#` fragments resolve against. */
  private base: JsonValue;
  private ids: Map<string, JsonObject> | undefined;
  private readonly resolved = new Map<JsonValue, Map<string, Resolved | null>>();
  private anchors: Map<JsonValue, Map<string, JsonObject>> | undefined;

  constructor(private readonly root: JsonValue) {
    this.d = detectDialect(root);
    this.base = root;
    this.alg = new Algebra(this.d, this);
  }

  // ---- bookkeeping --------------------------------------------------------

  spend(n = 1): boolean {
    this.work += n;
    if (this.work <= MAX_WORK) return true;
    if (!this.budgetNoted) {
      this.budgetNoted = true;
      this.noteHere(`work budget (${MAX_WORK}) exhausted; the rest of the schema was loosened to {}`);
    }
    return false;
  }

  noteAt(pointer: string, message: string): void {
    if (this.notes.length >= MAX_LOOSENED_NOTES) {
      this.extraNotes++;
      return;
    }
    const text = `${pointer || '/'}: ${message}`;
    if (this.noteSet.has(text)) return;
    this.noteSet.add(text);
    this.notes.push(text);
  }

  note(message: string): void {
    this.noteHere(message);
  }

  private noteHere(message: string): void {
    if (this.notes.length >= MAX_LOOSENED_NOTES) {
      this.extraNotes++;
      return;
    }
    let pointer = '';
    for (const seg of this.path) pointer += '/' + pointerSegment(seg);
    this.noteAt(pointer, message);
  }

  loosenedList(): string[] {
    return this.extraNotes ? [...this.notes, `… and ${this.extraNotes} more`] : [...this.notes];
  }

  /** Compact a subschema one level down, with its location for notes. */
  private sub(v: JsonValue, depth: number, seg1: string, seg2?: string): Schema {
    const n = this.path.length;
    this.path.push(seg1);
    if (seg2 !== undefined) this.path.push(seg2);
    try {
      return this.compact(v, depth + 1);
    } finally {
      this.path.length = n;
    }
  }

  // ---- the walk -----------------------------------------------------------

  compact(input: JsonValue, depth: number): Schema {
    if (input === true || input === false) return input;
    if (!isObject(input)) {
      this.noteHere('not a schema; replaced by {}');
      return {};
    }
    if (depth > MAX_SCHEMA_DEPTH) {
      // `{}` there is what an earlier pass left: nothing more is lost
      for (const _ in input) {
        this.noteHere(`nested deeper than ${MAX_SCHEMA_DEPTH} levels; replaced by {}`);
        break;
      }
      return {};
    }
    if (!this.spend()) return {};
    const n = this.open.length;
    this.open.push(input);
    const prevBase = this.base;
    if (depth > 0 && typeof input.$id === 'string' && !input.$id.startsWith('#')) this.base = input;
    try {
      return this.compactObject(input, depth);
    } finally {
      this.base = prevBase;
      this.open.length = n;
    }
  }

  private compactObject(input: JsonObject, depth: number): Schema {
    const d = this.d;
    const local: JsonObject = {};
    const descNotes: string[] = [];
    let ref: string | undefined;
    let allOf: JsonValue[] | undefined;
    let anyOf: JsonValue[] | undefined;
    let oneOf: JsonValue[] | undefined;
    let patternProps: JsonObject | undefined;
    let unevaluatedProps: JsonValue | undefined;
    let unevaluatedItems: JsonValue | undefined;
    let inPlace = false;
    let empty = false;
    const ignoreSiblings = has(input, '$ref') && !d.refSiblings;

    for (const key of Object.keys(input)) {
      const v = input[key];
      if (d.unknown.has(key) || LOCATION_KEYWORDS.has(key)) continue;
      if (ignoreSiblings && key !== '$ref' && !ANNOTATION_KEYWORDS.has(key) && !(key === '$schema' && depth === 0)) continue;
      switch (key) {
        case '$ref':
          if (typeof v === 'string') ref = v;
          else this.noteHere('invalid $ref dropped');
          break;
        case 'allOf':
        case 'anyOf':
        case 'oneOf':
          if (Array.isArray(v) && v.length > 0) {
            if (key === 'allOf') allOf = v;
            else if (key === 'anyOf') anyOf = v;
            else oneOf = v;
            inPlace = true;
          } else this.noteHere(`invalid ${key} dropped`);
          break;
        case 'not':
          inPlace = true;
          if (v !== false && !(isObject(v) && Object.keys(v).length === 1 && has(v, 'description'))) {
            this.noteHere('"not" dropped');
            descNotes.push(boundedNote(`Must not be: ${brief(v, 120)}.`));
          }
          break;
        case 'if':
          inPlace = true;
          if (has(input, 'then') || has(input, 'else')) {
            this.noteHere('if/then/else dropped');
            const parts = [`If ${brief(v, 60)}`];
            if (has(input, 'then')) parts.push(`then ${brief(input.then, 60)}`);
            if (has(input, 'else')) parts.push(`else ${brief(input.else, 60)}`);
            descNotes.push(boundedNote(`Conditional: ${parts.join(', ')}.`));
          }
          break;
        case 'then':
        case 'else':
          break;
        case 'dependentSchemas':
          inPlace = true;
          if (isObject(v)) this.dependentSchemasNote(v, descNotes);
          break;
        case 'patternProperties':
          if (isObject(v)) patternProps = v;
          break;
        case 'unevaluatedProperties':
          unevaluatedProps = v;
          break;
        case 'unevaluatedItems':
          unevaluatedItems = v;
          break;
        case '$dynamicRef':
        case '$recursiveRef':
          inPlace = true;
          this.noteHere(`${key} not followed; loosened to {}`);
          break;
        case '$schema':
          if (depth === 0 && typeof v === 'string') local.$schema = v;
          break;
        default:
          if (this.copyKeyword(key, v, local, input, depth) === 'empty') empty = true;
      }
    }
    if (empty) {
      this.noteHere('empty enum: the subschema accepts nothing');
      return false;
    }
    if (input.nullable === true) this.openApiNullable(local);
    if (d.tuple === 'itemsArray' && has(local, 'additionalItems') && !Array.isArray(local.items)) delete local.additionalItems;
    inPlace ||= ref !== undefined;

    let unevaluatedAfter: { names: Set<string>; schema: Schema } | undefined;
    if (unevaluatedProps !== undefined && unevaluatedProps !== true) {
      if (has(input, 'additionalProperties')) {
        // every property is already evaluated at this level: no effect
      } else if (!inPlace && !patternProps) {
        // Without in-place applicators, unevaluatedProperties acts exactly like additionalProperties.
        local.additionalProperties = this.sub(unevaluatedProps, depth, 'unevaluatedProperties');
      } else {
        // With applicators: when they can only evaluate a known set of names, an instance the
        // original accepts has no other name unless it satisfies unevaluatedProperties.
        const names = patternProps ? undefined : this.evaluatedNames(input, 0, new Set(), true);
        if (names) unevaluatedAfter = { names, schema: this.sub(unevaluatedProps, depth, 'unevaluatedProperties') };
        else this.noteHere('unevaluatedProperties dropped');
      }
    }
    if (unevaluatedItems !== undefined) {
      if (!inPlace && d.tuple === 'prefixItems' && !has(input, 'items') && !has(input, 'contains')) {
        local.items = this.sub(unevaluatedItems, depth, 'unevaluatedItems');
      } else if (unevaluatedItems !== true) this.noteHere('unevaluatedItems dropped');
    }
    if (patternProps) this.foldPatternProperties(patternProps, local, descNotes, depth);

    let result: Schema = local;
    if (ref !== undefined) {
      const target = this.expandRef(ref, depth, descNotes);
      this.shared = true;
      result = this.alg.and(result, target);
    }
    if (allOf) {
      this.shared = true;
      const parts = allOf.map((b, i) => this.sub(b, depth, 'allOf', String(i)));
      result = this.alg.and(result, balancedFold(parts, true, (a, b) => this.alg.and(a, b)));
    }
    for (const [kw, branches] of [['anyOf', anyOf], ['oneOf', oneOf]] as const) {
      if (!branches) continue;
      this.shared = true;
      const compacted = branches.map((b, i) => this.sub(b, depth, kw, String(i)));
      this.alg.lossy = false;
      const u = balancedFold(compacted, false, (a, b) => this.alg.or(a, b));
      if (this.alg.lossy) {
        this.noteHere(`${kw} merged into one schema; alternatives listed in the description`);
        descNotes.push(alternativesNote(kw === 'oneOf' ? 'One of' : 'Any of', compacted));
      } else if (kw === 'oneOf' && overlapping(compacted)) {
        this.noteHere('oneOf merged like anyOf (exclusivity not expressible)');
      }
      result = this.alg.and(result, u);
    }

    if (unevaluatedAfter) {
      const props = result !== false && result !== true && isObject(result.properties) ? result.properties : {};
      if (result !== false && result !== true && !has(result, 'additionalProperties') && [...unevaluatedAfter.names].every((n) => has(props, n))) {
        result = ordered({ ...result, properties: props, additionalProperties: unevaluatedAfter.schema });
      } else if (result !== false) this.noteHere('unevaluatedProperties dropped');
    }

    if (descNotes.length > 0 && result !== false) {
      const note = descNotes.join(' ').slice(0, 2 * MAX_NOTE_LENGTH);
      const base: JsonObject = result === true ? {} : result;
      result = ordered({ ...base, description: withNote(base.description, note) });
    }
    return result;
  }

  /**
   * The property names the in-place applicators of a node can evaluate, or
   * undefined when that set is open (patternProperties, additionalProperties,
   * a non-false unevaluatedProperties, dynamic references). `not` evaluates nothing.
   */
  private evaluatedNames(node: JsonValue, depth: number, seen: Set<object>, top = false): Set<string> | undefined {
    const names = new Set<string>();
    if (!isObject(node) || seen.has(node)) return names;
    if (depth > MAX_SCHEMA_DEPTH || !this.spend()) return undefined;
    seen.add(node);
    if (has(node, 'patternProperties') || has(node, 'additionalProperties') || has(node, '$dynamicRef') || has(node, '$recursiveRef')) return undefined;
    if (!top && has(node, 'unevaluatedProperties') && node.unevaluatedProperties !== false) return undefined;
    if (isObject(node.properties)) for (const n of Object.keys(node.properties)) names.add(n);
    const subs: JsonValue[] = [];
    for (const kw of ['allOf', 'anyOf', 'oneOf']) if (Array.isArray(node[kw])) subs.push(...(node[kw] as JsonValue[]));
    for (const kw of ['if', 'then', 'else']) if (has(node, kw)) subs.push(node[kw]);
    if (isObject(node.dependentSchemas)) subs.push(...Object.values(node.dependentSchemas));
    if (typeof node.$ref === 'string') {
      const t = this.resolve(node.$ref);
      if (!t) return undefined;
      subs.push(t.node);
    }
    for (const sub of subs) {
      const more = this.evaluatedNames(sub, depth + 1, seen);
      if (!more) return undefined;
      for (const n of more) names.add(n);
    }
    return names;
  }

  /** Copy one compact keyword into `out`, compacting subschemas. Returns 'empty' for `enum: []`. */
  private copyKeyword(key: string, v: JsonValue, out: JsonObject, input: JsonObject, depth: number): 'empty' | void {
    const d = this.d;
    switch (key) {
      case 'type':
        if (typeof v === 'string' && TYPE_NAMES.has(v)) out.type = v;
        else if (Array.isArray(v) && v.length > 0 && v.every((t) => typeof t === 'string' && TYPE_NAMES.has(t)) && uniqueStrings(v as string[]).length === v.length) {
          out.type = [...v];
        } else this.invalid(key);
        return;
      case 'enum': {
        if (!Array.isArray(v)) return this.invalid(key);
        if (v.length === 0) return 'empty';
        const copy = this.copyData(v, 0);
        if (copy === undefined) this.noteHere('enum too large or deep; dropped');
        else out.enum = copy;
        return;
      }
      case 'const': {
        const copy = this.copyData(v, 0);
        if (copy === undefined) this.noteHere('const too large or deep; dropped');
        else out.const = copy;
        return;
      }
      case 'default':
      case 'examples': {
        if (key === 'examples' && !Array.isArray(v)) return;
        const copy = this.copyData(v, 0);
        if (copy !== undefined) out[key] = copy;
        return;
      }
      case 'title':
      case 'description':
      case 'format':
        if (typeof v === 'string') out[key] = v;
        else this.invalid(key);
        return;
      case 'pattern':
        if (typeof v === 'string' && isValidPattern(v)) out.pattern = v;
        else this.invalid(key);
        return;
      case 'deprecated':
      case 'readOnly':
      case 'writeOnly':
      case 'uniqueItems':
        if (typeof v === 'boolean') out[key] = v;
        else this.invalid(key);
        return;
      case 'minimum':
      case 'maximum':
        if (typeof v === 'number' && Number.isFinite(v)) out[key] = v;
        else this.invalid(key);
        return;
      case 'exclusiveMinimum':
      case 'exclusiveMaximum':
        if ((typeof v === 'number' && Number.isFinite(v)) || (d.booleanExclusive && typeof v === 'boolean')) out[key] = v;
        else this.invalid(key);
        return;
      case 'multipleOf':
        if (typeof v === 'number' && Number.isFinite(v) && v > 0) out.multipleOf = v;
        else this.invalid(key);
        return;
      case 'required':
        if (Array.isArray(v) && v.every((n) => typeof n === 'string')) out.required = uniqueStrings(v as string[]);
        else this.invalid(key);
        return;
      case 'properties': {
        if (!isObject(v)) return this.invalid(key);
        const props: JsonObject = {};
        const n = this.path.length;
        this.path.push('properties');
        try {
          for (const name of Object.keys(v)) {
            this.path[n + 1] = name;
            setKey(props, name, this.compact(v[name], depth + 1));
          }
        } finally {
          this.path.length = n;
        }
        out.properties = props;
        return;
      }
      case 'additionalProperties':
      case 'propertyNames':
      case 'contains':
      case 'additionalItems':
        out[key] = this.sub(v, depth, key);
        return;
      case 'items':
        if (Array.isArray(v)) {
          const tuple = v.map((s, i) => this.sub(s, depth, 'items', String(i)));
          if (d.tuple === 'itemsArray') out.items = tuple;
          else {
            // 2019-09 tuple form in a 2020-12 schema: the same meaning, spelled prefixItems/items
            out.prefixItems = tuple;
            if (has(input, 'additionalItems')) {
              out.items = this.sub(input.additionalItems, depth, 'additionalItems');
            }
          }
        } else out.items = this.sub(v, depth, 'items');
        return;
      case 'prefixItems':
        if (!Array.isArray(v)) return this.invalid(key);
        out.prefixItems = v.map((s, i) => this.sub(s, depth, 'prefixItems', String(i)));
        return;
      case 'dependentRequired':
      case 'dependencies': {
        if (!isObject(v)) return this.invalid(key);
        const deps: JsonObject = {};
        let kept = 0;
        for (const k of Object.keys(v)) {
          const list = v[k];
          if (Array.isArray(list) && list.every((n) => typeof n === 'string')) {
            setKey(deps, k, uniqueStrings(list as string[]));
            kept++;
          } else if (key === 'dependencies') {
            this.dependentSchemasNote({ [k]: list }, null);
          } else this.invalid(key);
        }
        if (kept > 0 || Object.keys(v).length === 0) out[key] = deps;
        return;
      }
      default:
        if (COUNT_KEYWORDS.has(key)) {
          if (typeof v === 'number' && Number.isInteger(v) && v >= 0) out[key] = v;
          else this.invalid(key);
        }
      // any other keyword (vendor extensions, OpenAPI's `nullable`/`example`, content*) has no
      // validation effect in JSON Schema and is dropped
    }
  }

  /**
   * OpenAPI's `nullable: true` is no JSON Schema keyword, but validators such
   * as ajv honour it and upstream converters leave it behind: read it as "null
   * is allowed too" (never stricter than ignoring it).
   */
  private openApiNullable(local: JsonObject): void {
    let changed = false;
    if (typeof local.type === 'string' && local.type !== 'null') {
      local.type = [local.type, 'null'];
      changed = true;
    } else if (Array.isArray(local.type) && !local.type.includes('null')) {
      local.type = [...local.type, 'null'];
      changed = true;
    }
    if (Array.isArray(local.enum) && !local.enum.includes(null)) {
      local.enum = [...local.enum, null];
      changed = true;
    }
    if (has(local, 'const') && local.const !== null) {
      local.enum = [local.const, null];
      delete local.const;
      changed = true;
    }
    if (changed) this.noteHere('OpenAPI "nullable: true" read as allowing null');
  }

  private invalid(key: string): void {
    this.noteHere(`invalid "${key}" dropped`);
  }

  private dependentSchemasNote(v: JsonObject, descNotes: string[] | null): void {
    for (const k of Object.keys(v)) {
      if (v[k] === true) continue;
      this.noteHere(`dependent schema for "${k}" dropped`);
      descNotes?.push(boundedNote(`If "${k}" is present: ${brief(v[k], 100)}.`));
    }
  }

  private foldPatternProperties(patterns: JsonObject, local: JsonObject, descNotes: string[], depth: number): void {
    const names = Object.keys(patterns);
    if (names.length === 0) return;
    const hints = names.slice(0, 4).map((p) => `/${p.length > 40 ? p.slice(0, 39) + '…' : p}/: ${brief(patterns[p], 60)}`);
    if (names.length > 4) hints.push('…');
    descNotes.push(boundedNote(`Keys matching ${hints.join('; ')}.`));
    if (!has(local, 'additionalProperties')) {
      this.noteHere('patternProperties dropped (other properties were already unrestricted)');
      return;
    }
    // Names that match no declared property must satisfy a pattern schema or additionalProperties.
    let add = local.additionalProperties as Schema;
    for (const p of names) {
      if (isTrivial(add)) break;
      const s = this.sub(patterns[p], depth, 'patternProperties', p);
      this.shared = true;
      add = this.alg.or(add, s);
    }
    if (isTrivial(add)) delete local.additionalProperties;
    else local.additionalProperties = add;
    this.noteHere('patternProperties folded into additionalProperties');
  }

  /** A deep copy of an enum/const/default/examples value, or undefined when too deep or over budget. */
  private copyData(v: JsonValue, depth: number): JsonValue | undefined {
    if (v === null || typeof v === 'string' || typeof v === 'boolean') return v;
    if (typeof v === 'number') return Number.isFinite(v) ? v : undefined;
    if (typeof v !== 'object' || depth >= MAX_DATA_DEPTH || !this.spend()) return undefined;
    if (Array.isArray(v)) {
      const out: JsonValue[] = new Array(v.length);
      for (let i = 0; i < v.length; i++) {
        const c = this.copyData(v[i], depth + 1);
        if (c === undefined) return undefined;
        out[i] = c;
      }
      return out;
    }
    const out: JsonObject = {};
    for (const k of Object.keys(v)) {
      const c = this.copyData(v[k], depth + 1);
      if (c === undefined) return undefined;
      setKey(out, k, c);
    }
    return out;
  }

  // ---- references ---------------------------------------------------------

  private expandRef(ref: string, depth: number, descNotes: string[]): Schema {
    const target = this.resolve(ref);
    const shown = ref.startsWith('#') ? (ref.length > 80 ? ref.slice(0, 79) + '…' : ref) : 'an external document';
    if (!target) {
      if (ref.startsWith('#')) this.noteHere(`unresolvable $ref ${shown}; loosened to {}`);
      else this.noteHere('external $ref not fetched; loosened to {}');
      return {};
    }
    if (isObject(target.node) && this.openCount(target.node) >= MAX_RECURSION_UNROLL) {
      this.noteHere(`recursive $ref ${shown} cut after ${MAX_RECURSION_UNROLL} levels; loosened to {}`);
      descNotes.push(`(Recursive structure; deeper levels not shown.)`);
      return {};
    }
    const prevBase = this.base;
    this.base = target.base;
    try {
      return this.sub(target.node, depth, '$ref');
    } finally {
      this.base = prevBase;
    }
  }

  private openCount(node: object): number {
    let c = 0;
    for (const o of this.open) if (o === node) c++;
    return c;
  }

  private resolve(ref: string): Resolved | undefined {
    let cache = this.resolved.get(this.base);
    if (!cache) this.resolved.set(this.base, (cache = new Map()));
    let r = cache.get(ref);
    if (r === undefined) {
      r = this.resolveUncached(ref) ?? null;
      cache.set(ref, r);
    }
    return r ?? undefined;
  }

  private resolveUncached(ref: string): Resolved | undefined {
    const hash = ref.indexOf('#');
    const uri = hash < 0 ? ref : ref.slice(0, hash);
    const frag = hash < 0 ? '' : ref.slice(hash + 1);
    let base = this.base;
    if (uri !== '') {
      const found = this.lookupId(uri);
      if (!found) return undefined;
      base = found;
    }
    if (frag === '') return { node: base, base };
    if (frag.startsWith('/')) {
      let node: JsonValue = base;
      for (const raw of frag.slice(1).split('/')) {
        let seg: string;
        try {
          seg = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
        } catch {
          return undefined;
        }
        if (Array.isArray(node)) {
          if (!/^(0|[1-9]\d*)$/.test(seg) || Number(seg) >= node.length) return undefined;
          node = node[Number(seg)];
        } else if (isObject(node) && has(node, seg)) node = node[seg];
        else return undefined;
      }
      return { node, base };
    }
    this.indexResources();
    const a = this.anchors!.get(base)?.get(frag);
    return a ? { node: a, base } : undefined;
  }

  private lookupId(uri: string): JsonObject | undefined {
    this.indexResources();
    const direct = this.ids!.get(uri);
    if (direct) return direct;
    const rootId = isObject(this.root) && typeof this.root.$id === 'string' ? this.root.$id : undefined;
    if (rootId) {
      try {
        return this.ids!.get(new URL(uri, rootId).href);
      } catch {
        return undefined;
      }
    }
    return undefined;
  }

  /** Collect `$id`s and anchors, once, when a reference needs them. */
  private indexResources(): void {
    if (this.ids) return;
    this.ids = new Map();
    this.anchors = new Map();
    const rootId = isObject(this.root) && typeof this.root.$id === 'string' ? this.root.$id : undefined;
    const visit = (node: JsonValue, resource: JsonValue, depth: number): void => {
      if (depth > 2 * MAX_SCHEMA_DEPTH || !this.spend()) return;
      if (Array.isArray(node)) {
        for (const x of node) visit(x, resource, depth + 1);
        return;
      }
      if (!isObject(node)) return;
      let res = resource;
      if (typeof node.$id === 'string' && !node.$id.startsWith('#')) {
        res = node;
        this.ids!.set(node.$id, node);
        if (rootId) {
          try {
            this.ids!.set(new URL(node.$id, rootId).href, node);
          } catch {
            /* not a URI reference */
          }
        }
      }
      for (const kw of ['$anchor', '$dynamicAnchor']) {
        const a = node[kw];
        if (typeof a === 'string') {
          let m = this.anchors!.get(res);
          if (!m) this.anchors!.set(res, (m = new Map()));
          if (!m.has(a)) m.set(a, node);
        }
      }
      if (typeof node.$id === 'string' && node.$id.startsWith('#')) {
        let m = this.anchors!.get(res);
        if (!m) this.anchors!.set(res, (m = new Map()));
        m.set(node.$id.slice(1), node);
      }
      for (const k of Object.keys(node)) {
        if (k === 'enum' || k === 'const' || k === 'default' || k === 'examples') continue;
        visit(node[k], res, depth + 1);
      }
    };
    visit(this.root, this.root, 0);
  }

  // ---- top level ----------------------------------------------------------

  /** Make the compacted root an object schema with `properties` (instances that are not objects are never tool arguments). */
  toTopLevel(s: Schema): JsonObject {
    if (s === true || (s !== false && Object.keys(s).length === 0)) return { type: 'object', properties: {} };
    if (s === false) {
      this.noteAt('', 'the input schema accepts no value; the compact schema accepts only {}');
      return {
        type: 'object',
        properties: {},
        additionalProperties: false,
        description: 'This tool accepts no arguments: its input schema rejects every value.',
      };
    }
    if (!(admittedKinds(s) & K_OBJ)) {
      this.noteAt('', 'the input schema accepts no object; the compact schema accepts only {}');
      const out: JsonObject = {};
      if (has(s, '$schema')) out.$schema = s.$schema;
      if (has(s, 'title')) out.title = s.title;
      out.type = 'object';
      out.properties = {};
      out.additionalProperties = false;
      const shape: JsonObject = {};
      for (const k of ['type', 'enum', 'const']) if (has(s, k)) shape[k] = s[k];
      out.description = withNote(s.description, `The original input schema accepts no JSON object (only ${brief(shape, 80)}).`);
      return out;
    }
    if (s.type === 'object' && isObject(s.properties) && !hasNonObjectValue(s)) return s;
    const out: JsonObject = {};
    const needsProperties = !isObject(s.properties);
    if (!has(s, 'type')) {
      if (has(s, '$schema')) out.$schema = s.$schema;
      out.type = 'object';
      if (needsProperties) out.properties = {};
    }
    for (const k of Object.keys(s)) {
      if (k === 'type') {
        out.type = 'object';
        if (needsProperties) out.properties = {};
      }
      else if (k === 'enum' && Array.isArray(s.enum)) out.enum = s.enum.filter((v) => valueKind(v) === K_OBJ);
      else if (!(k === '$schema' && has(out, '$schema'))) out[k] = s[k];
    }
    return out;
  }
}

/**
 * Fold a list pairwise as a balanced tree, keeping left-to-right order: with
 * many branches the merged maps grow by halves, not one branch at a time
 * (n log n instead of n² for wide unions).
 */
function balancedFold(items: Schema[], empty: Schema, op: (a: Schema, b: Schema) => Schema): Schema {
  if (items.length === 0) return empty;
  let level = items;
  while (level.length > 1) {
    const next: Schema[] = [];
    for (let i = 0; i < level.length; i += 2) next.push(i + 1 < level.length ? op(level[i], level[i + 1]) : level[i]);
    level = next;
  }
  return level[0];
}

/** A copy without duplicates (first occurrence kept). */
function uniqueStrings(xs: string[]): string[] {
  if (xs.length <= 16) {
    const out: string[] = [];
    for (const x of xs) if (!out.includes(x)) out.push(x);
    return out;
  }
  return [...new Set(xs)];
}

function hasNonObjectValue(s: JsonObject): boolean {
  return Array.isArray(s.enum) && s.enum.some((v) => valueKind(v) !== K_OBJ);
}

/** Whether two branches may accept a common instance (by their kinds and enumerations). */
function overlapping(branches: Schema[]): boolean {
  for (let i = 0; i < branches.length; i++) {
    for (let j = i + 1; j < branches.length; j++) {
      if ((admittedKinds(branches[i]) & admittedKinds(branches[j])) === 0) continue;
      const a = branches[i];
      const b = branches[j];
      if (typeof a === 'object' && typeof b === 'object' && has(a, 'const') && has(b, 'const')) {
        if (JSON.stringify(a.const) !== JSON.stringify(b.const)) continue;
      }
      return true;
    }
  }
  return false;
}
