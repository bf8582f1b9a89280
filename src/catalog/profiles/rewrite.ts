// A compact schema rewritten for a strict provider (OpenAI strict function
// calling, Gemini function declarations): one type per node, every object
// closed or opened as the provider wants, optional properties made nullable
// and required (OpenAI), free-key maps sent as key/value pairs. Sound by
// construction: each step keeps or loosens what the compact schema accepts
// (a loosening is noted), and what restructures the arguments is recorded
// in the Plan that translates them back (plan.ts).
import type { JsonObject, JsonValue } from '../../contract/descriptor.js';
import { escapePointerSegment, isPlainObject, setOwn } from '../../util/json.js';
import { K_ALL, K_ARR, K_BOOL, K_INT, K_NULL, K_NUM, K_OBJ, K_STR, typeMask, valueKind } from '../compact/schema-util.js';
import { type Plan, type PropPlan, SAME, isSame } from './plan.js';
import { GEMINI, OPENAI } from './rules.js';

export type StrictTarget = 'openai-strict' | 'gemini';

export interface Rewritten {
  schema: JsonObject;
  plan: Plan;
}

const GROUPS = [K_OBJ, K_ARR, K_STR, K_NUM, K_BOOL] as const;
const at = (path: string, key: string): string => `${path}/${escapePointerSegment(key)}`;
/** The name the free keys of an object with declared properties go under (made unique per object). */
export const EXTRA_NAME = 'additional_properties';
const MAX_NOTES = 100;
const JSON_DEF = 'json_value';
const JSON_REF = `#/$defs/${JSON_DEF}`;
const JSON_PLAN: Plan = { kind: 'json' };

/** Any JSON value in OpenAI's strict subset: scalars, arrays of values, objects as `{"entries": [{key, value}]}`. */
function jsonValueSchema(): JsonObject {
  const ref = { $ref: JSON_REF };
  const pair = { type: 'object', properties: { key: { type: 'string' }, value: ref }, required: ['key', 'value'], additionalProperties: false };
  return {
    description: 'Any JSON value; an object is sent as {"entries": [{"key", "value"}]}.',
    anyOf: [
      { type: 'string' }, { type: 'number' }, { type: 'boolean' }, { type: 'null' },
      { type: 'array', items: ref },
      { type: 'object', properties: { entries: { type: 'array', items: pair } }, required: ['entries'], additionalProperties: false },
    ],
  };
}

export class StrictRewriter {
  readonly loosened: string[] = [];
  /** Whether the schema refers to the JSON-value definition (OpenAI): top() adds it. */
  private usesJson = false;
  private readonly openai: boolean;

  constructor(readonly target: StrictTarget) {
    this.openai = target === 'openai-strict';
  }

  private note(path: string, what: string): void {
    if (this.loosened.length < MAX_NOTES) this.loosened.push(`${path || '/'}: ${what}`);
  }

  /** The top level: an object node (the arguments). */
  top(s: JsonObject): Rewritten {
    const r = this.object(s, '', true);
    if (this.usesJson) r.schema.$defs = { [JSON_DEF]: jsonValueSchema() };
    return r;
  }

  node(s: JsonValue, path: string): Rewritten {
    if (s === true || !isPlainObject(s)) return this.any({});
    let mask = typeMask(s.type);
    const values = 'const' in s ? [s.const as JsonValue] : Array.isArray(s.enum) ? s.enum : undefined;
    if (values !== undefined) mask &= values.reduce((m: number, v) => m | valueKind(v), 0);
    if (mask === K_ALL && values === undefined) return this.any(s);
    const groups = GROUPS.filter((g) => (mask & g) !== 0);
    const branches = groups.map((g) => this.branch(g, mask & g, s, values, path, groups.length > 1));
    const nullable = (mask & K_NULL) !== 0;
    if (branches.length === 0) {
      if (nullable && this.openai) return { schema: { ...this.annotations(s), type: 'null' }, plan: SAME };
      return { schema: this.annotations(s), plan: SAME };
    }
    if (branches.length === 1) {
      const b = branches[0];
      return { schema: nullable ? this.nullable(b.schema, path) : b.schema, plan: b.plan };
    }
    // Several types: one anyOf branch per type (null joins as a branch, or as each branch's `nullable` for Gemini).
    const anyOf = branches.map((b) => (nullable && !this.openai ? this.nullable(b.schema, path) : b.schema));
    if (nullable && this.openai) anyOf.push({ type: 'null' });
    const objectPlan = branches[groups.indexOf(K_OBJ)]?.plan;
    const arrayPlan = branches[groups.indexOf(K_ARR)]?.plan;
    const plan: Plan = (objectPlan && !isSame(objectPlan)) || (arrayPlan && !isSame(arrayPlan))
      ? { kind: 'byKind', ...(objectPlan ? { object: objectPlan } : {}), ...(arrayPlan ? { array: arrayPlan } : {}) }
      : SAME;
    return { schema: { ...this.annotations(s), anyOf }, plan };
  }

  /**
   * Any JSON value. OpenAI: the recursive JSON-value schema (objects as
   * `{"entries": [pairs]}`), translated back by the plan. Gemini has no way
   * to say it: an untyped schema, which its checker reports.
   */
  private any(s: JsonObject): Rewritten {
    if (!this.openai) return { schema: this.annotations(s), plan: SAME };
    this.usesJson = true;
    return { schema: { $ref: JSON_REF }, plan: JSON_PLAN };
  }

  private annotations(s: JsonObject): JsonObject {
    const out: JsonObject = {};
    if (typeof s.description === 'string') out.description = s.description;
    if (!this.openai && typeof s.title === 'string') out.title = s.title;
    return out;
  }

  private branch(group: number, mask: number, s: JsonObject, values: JsonValue[] | undefined, path: string, inUnion: boolean): Rewritten {
    if (group === K_OBJ) {
      if (values !== undefined) this.note(path, 'object values of enum/const not kept');
      return this.object(s, path, false, inUnion);
    }
    if (group === K_ARR) {
      if (values !== undefined) this.note(path, 'array values of enum/const not kept');
      return this.array(s, path);
    }
    const out = this.annotations(s);
    out.type = group === K_STR ? 'string' : group === K_BOOL ? 'boolean' : (mask & K_NUM) === K_INT ? 'integer' : 'number';
    const own = values?.filter((v) => (valueKind(v) & group) !== 0);
    if (own !== undefined) {
      if (this.openai || group === K_STR) out.enum = own;
      else this.note(path, 'enum of non-strings dropped (Gemini enums hold strings)');
    }
    if (group === K_STR) this.stringKeywords(s, out, path);
    if (group === K_NUM) this.numberKeywords(s, out, path);
    return { schema: out, plan: SAME };
  }

  private format(s: JsonObject, type: string, out: JsonObject, path: string): void {
    if (typeof s.format !== 'string') return;
    const ok = this.openai ? type === 'string' && OPENAI.formats.has(s.format) : GEMINI.formats[type]?.has(s.format) === true;
    if (ok) out.format = s.format;
    else this.note(at(path, 'format'), `format "${s.format}" dropped (not supported by the provider)`);
  }

  private stringKeywords(s: JsonObject, out: JsonObject, path: string): void {
    if (typeof s.pattern === 'string') out.pattern = s.pattern;
    this.format(s, 'string', out, path);
    for (const k of ['minLength', 'maxLength']) {
      if (!(k in s)) continue;
      if (this.openai) this.note(at(path, k), 'dropped (not supported in strict mode)');
      else out[k] = s[k];
    }
  }

  private numberKeywords(s: JsonObject, out: JsonObject, path: string): void {
    this.format(s, out.type as string, out, path);
    for (const k of ['minimum', 'maximum']) if (typeof s[k] === 'number') out[k] = s[k];
    for (const k of ['exclusiveMinimum', 'exclusiveMaximum', 'multipleOf']) {
      if (typeof s[k] !== 'number') continue;
      if (this.openai) out[k] = s[k];
      else if (k === 'multipleOf') this.note(at(path, k), 'dropped (not in the Gemini Schema)');
      else {
        const inclusive = k === 'exclusiveMinimum' ? 'minimum' : 'maximum';
        const bound = s[k] as number;
        const kept = out[inclusive] as number | undefined;
        if (kept === undefined || (inclusive === 'minimum' ? bound >= kept : bound <= kept)) out[inclusive] = bound;
        this.note(at(path, k), `made inclusive (${inclusive})`);
      }
    }
  }

  private array(s: JsonObject, path: string): Rewritten {
    const out: JsonObject = { ...this.annotations(s), type: 'array' };
    let items: JsonValue = s.items === undefined ? true : (s.items as JsonValue);
    if (s.prefixItems !== undefined) {
      this.note(at(path, 'prefixItems'), 'tuple positions not expressible: items left open');
      items = true;
    }
    const r = items === false ? { schema: {}, plan: SAME } : this.node(items, at(path, 'items'));
    if (items === false) out.maxItems = 0;
    out.items = r.schema;
    for (const k of ['minItems', 'maxItems']) if (typeof s[k] === 'number' && !(k in out)) out[k] = s[k];
    for (const k of ['uniqueItems', 'contains', 'minContains', 'maxContains']) if (k in s) this.note(at(path, k), 'dropped (not supported by the provider)');
    return { schema: out, plan: isSame(r.plan) ? SAME : { kind: 'array', items: r.plan } };
  }

  private pairs(value: JsonValue, path: string): Rewritten {
    const v = this.node(value, path);
    const pair: JsonObject = { type: 'object', properties: { key: { type: 'string' }, value: v.schema }, required: ['key', 'value'] };
    if (this.openai) pair.additionalProperties = false;
    return { schema: { type: 'array', description: 'Entries of a map, as key/value pairs.', items: pair }, plan: { kind: 'map', plan: v.plan } };
  }

  /** `inUnion`: one branch of several kinds, so a map stays an object (its pairs under "entries") and arrays stay arrays. */
  private object(s: JsonObject, path: string, top: boolean, inUnion = false): Rewritten {
    const declared: Record<string, JsonValue> = isPlainObject(s.properties) ? { ...s.properties } : {};
    const ap: JsonValue = s.additionalProperties === undefined ? true : (s.additionalProperties as JsonValue);
    const required = new Set(Array.isArray(s.required) ? s.required.filter((n): n is string => typeof n === 'string') : []);
    for (const name of required) if (!Object.hasOwn(declared, name) && ap !== false) setOwn(declared, name, ap);
    for (const k of ['propertyNames', 'minProperties', 'maxProperties', 'dependentRequired']) if (k in s) this.note(at(path, k), 'dropped (not supported by the provider)');
    const names = Object.keys(declared).filter((n) => declared[n] !== false);
    if (names.length === 0 && ap !== false && !top && !inUnion) {
      const r = this.pairs(ap, at(path, 'additionalProperties'));
      return { schema: { ...this.annotations(s), ...r.schema }, plan: r.plan };
    }
    const properties: JsonObject = {};
    const props: Record<string, PropPlan> = {};
    const servedRequired: string[] = [];
    let changed = false;
    for (const name of names) {
      const r = this.node(declared[name], at(at(path, 'properties'), name));
      const served = top && !this.openai ? this.parameterName(name, properties, path) : name;
      let mode: PropPlan['mode'] = 'plain';
      let schema = r.schema;
      if (required.has(name)) servedRequired.push(served);
      else if (this.openai) {
        if (acceptsNull(schema)) {
          mode = 'wrapped';
          schema = { type: ['object', 'null'], description: 'Null leaves it unset; {"value": …} sets it (null included).', properties: { value: schema }, required: ['value'], additionalProperties: false };
        } else {
          mode = 'absent';
          schema = this.nullable(schema, path);
        }
        servedRequired.push(served);
      }
      setOwn(properties, served, schema);
      props[served] = { name, plan: r.plan, mode };
      if (mode !== 'plain' || served !== name || !isSame(r.plan)) changed = true;
    }
    const out: JsonObject = { ...this.annotations(s), type: 'object', properties };
    let extra: { served: string; plan: Plan; always: boolean } | undefined;
    if (ap !== false && !this.openai) this.note(path, 'free keys: allowed (no additionalProperties in the Gemini Schema) but not described');
    else if (ap !== false) {
      let served = names.length === 0 && inUnion ? 'entries' : EXTRA_NAME;
      while (Object.hasOwn(properties, served)) served += '_';
      const r = this.pairs(ap, at(path, 'additionalProperties'));
      setOwn(properties, served, { ...r.schema, description: 'Further properties (free keys), as key/value pairs.' });
      if (this.openai) servedRequired.push(served);
      extra = { served, plan: (r.plan as Extract<Plan, { kind: 'map' }>).plan, always: this.openai };
      changed = true;
    } else if (!this.openai) this.note(path, 'additionalProperties: false dropped (not in the Gemini Schema)');
    if (servedRequired.length > 0 || this.openai) out.required = servedRequired;
    if (this.openai) out.additionalProperties = false;
    return { schema: out, plan: changed ? { kind: 'object', props, ...(extra ? { extra } : {}) } : SAME };
  }

  /** A Gemini parameter name for `name`: itself when valid, else a valid one not taken yet. */
  private parameterName(name: string, taken: JsonObject, path: string): string {
    if (GEMINI.parameterName.test(name) && !Object.hasOwn(taken, name)) return name;
    let base = name.replace(/[^A-Za-z0-9_]/g, '_');
    if (!/^[A-Za-z_]/.test(base)) base = `_${base}`;
    base = base.slice(0, 60);
    let served = base;
    for (let i = 2; Object.hasOwn(taken, served) || served === name && !GEMINI.parameterName.test(served); i++) served = `${base}_${i}`;
    this.note(at(at(path, 'properties'), name), `renamed to "${served}" (Gemini parameter names); translated back on a call`);
    return served;
  }

  private nullable(schema: JsonObject, path: string): JsonObject {
    if (acceptsNull(schema)) return schema;
    if (!this.openai) {
      const out: JsonObject = { ...schema, nullable: true };
      if ('enum' in out) {
        delete out.enum;
        this.note(path, 'enum dropped: Gemini enums cannot hold null');
      }
      return out;
    }
    if (Array.isArray(schema.anyOf)) return { ...schema, anyOf: [...schema.anyOf, { type: 'null' }] };
    const out: JsonObject = { ...schema, type: [schema.type as string, 'null'] };
    if (Array.isArray(out.enum)) out.enum = [...out.enum, null];
    return out;
  }
}

/** Whether a served schema accepts null (an untyped one accepts anything). */
export function acceptsNull(s: JsonObject): boolean {
  if (s.nullable === true) return true;
  if (Array.isArray(s.anyOf)) return s.anyOf.some((b) => isPlainObject(b) && acceptsNull(b));
  if (s.type === undefined) return !('enum' in s) || (Array.isArray(s.enum) && s.enum.includes(null));
  return s.type === 'null' || (Array.isArray(s.type) && s.type.includes('null'));
}
