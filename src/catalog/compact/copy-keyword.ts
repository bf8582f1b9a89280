// Copying the keywords that are already in the compact subset
// (docs/compact-view.md, "Already in the subset: unchanged" and "OpenAPI
// leftovers"): each value is checked for its keyword's shape, subschemas are
// compacted through the host, data values (enum, const, default, examples)
// are deep-copied within the data bounds. A malformed value is dropped with a
// note: dropping a keyword only loosens.
import type { JsonObject, JsonValue } from '../../contract/descriptor.js';
import { isPlainObject, setOwn } from '../../util/json.js';
import { boundedNote, brief } from './brief.js';
import { MAX_DATA_DEPTH } from './limits.js';
import { type Dialect, type Schema, has, isValidPattern, TYPE_NAMES } from './schema-util.js';

/** What copying needs from the walk: the dialect, the budget, notes at the current path, compaction one level down. */
export interface KeywordHost {
  readonly d: Dialect;
  spend(): boolean;
  /** Record a loosening at the current path. */
  note(message: string): void;
  /** Compact a subschema one level down, at the path segments given. */
  sub(v: JsonValue, depth: number, seg1: string, seg2?: string): Schema;
  /** Compact each member of a `properties` map one level down. */
  subProperties(props: JsonObject, depth: number): JsonObject;
}

const COUNT_KEYWORDS = new Set([
  'minLength', 'maxLength', 'minItems', 'maxItems', 'minProperties', 'maxProperties', 'minContains', 'maxContains',
]);

/** Copy one compact keyword into `out`, compacting subschemas. Returns 'empty' for `enum: []`. */
export function copyKeyword(host: KeywordHost, key: string, v: JsonValue, out: JsonObject, input: JsonObject, depth: number): 'empty' | void {
  switch (key) {
    case 'enum':
    case 'const':
    case 'default':
    case 'examples':
      return copyDataKeyword(host, key, v, out);
    case 'properties':
    case 'additionalProperties':
    case 'propertyNames':
    case 'contains':
    case 'additionalItems':
    case 'items':
    case 'prefixItems':
      return copySubschemaKeyword(host, key, v, out, input, depth);
    default:
      return copyValueKeyword(host, key, v, out);
  }
}

/** A keyword whose value is instance data, deep-copied within the data bounds. */
function copyDataKeyword(host: KeywordHost, key: 'enum' | 'const' | 'default' | 'examples', v: JsonValue, out: JsonObject): 'empty' | void {
  if (key === 'enum') {
    if (!Array.isArray(v)) return invalid(host, key);
    if (v.length === 0) return 'empty';
  }
  if (key === 'examples' && !Array.isArray(v)) return;
  const copy = copyData(host, v, 0);
  if (copy !== undefined) out[key] = copy;
  else if (key === 'enum' || key === 'const') host.note(`${key} too large or deep; dropped`);
}

/** A keyword whose value is one or more subschemas, each compacted one level down. */
function copySubschemaKeyword(host: KeywordHost, key: string, v: JsonValue, out: JsonObject, input: JsonObject, depth: number): void {
  switch (key) {
    case 'properties':
      if (!isPlainObject(v)) return invalid(host, key);
      out.properties = host.subProperties(v, depth);
      return;
    case 'items':
      copyItems(host, v, out, input, depth);
      return;
    case 'prefixItems':
      if (!Array.isArray(v)) return invalid(host, key);
      out.prefixItems = v.map((s, i) => host.sub(s, depth, 'prefixItems', String(i)));
      return;
    default:
      out[key] = host.sub(v, depth, key);
  }
}

/** A keyword whose value is a plain value (type names, a string, a number, a flag, a name list), kept when it has its keyword's shape. */
function copyValueKeyword(host: KeywordHost, key: string, v: JsonValue, out: JsonObject): void {
  switch (key) {
    case 'type':
      if (typeof v === 'string' && TYPE_NAMES.has(v)) out.type = v;
      else if (Array.isArray(v) && v.length > 0 && v.every((t) => typeof t === 'string' && TYPE_NAMES.has(t)) && uniqueStrings(v as string[]).length === v.length) {
        out.type = [...v];
      } else invalid(host, key);
      return;
    case 'title':
    case 'description':
    case 'format':
      if (typeof v === 'string') out[key] = v;
      else invalid(host, key);
      return;
    case 'pattern':
      if (typeof v === 'string' && isValidPattern(v)) out.pattern = v;
      else invalid(host, key);
      return;
    case 'deprecated':
    case 'readOnly':
    case 'writeOnly':
    case 'uniqueItems':
      if (typeof v === 'boolean') out[key] = v;
      else invalid(host, key);
      return;
    case 'minimum':
    case 'maximum':
      if (typeof v === 'number' && Number.isFinite(v)) out[key] = v;
      else invalid(host, key);
      return;
    case 'exclusiveMinimum':
    case 'exclusiveMaximum':
      if ((typeof v === 'number' && Number.isFinite(v)) || (host.d.booleanExclusive && typeof v === 'boolean')) out[key] = v;
      else invalid(host, key);
      return;
    case 'multipleOf':
      if (typeof v === 'number' && Number.isFinite(v) && v > 0) out.multipleOf = v;
      else invalid(host, key);
      return;
    case 'required':
      if (Array.isArray(v) && v.every((n) => typeof n === 'string')) out.required = uniqueStrings(v as string[]);
      else invalid(host, key);
      return;
    case 'dependentRequired':
    case 'dependencies':
      copyRequiredDependencies(host, key, v, out);
      return;
    default:
      if (COUNT_KEYWORDS.has(key)) {
        if (typeof v === 'number' && Number.isInteger(v) && v >= 0) out[key] = v;
        else invalid(host, key);
      }
    // any other keyword (vendor extensions, OpenAPI's `nullable`/`example`, content*) has no
    // validation effect in JSON Schema and is dropped
  }
}

function copyItems(host: KeywordHost, v: JsonValue, out: JsonObject, input: JsonObject, depth: number): void {
  if (!Array.isArray(v)) {
    out.items = host.sub(v, depth, 'items');
    return;
  }
  const tuple = v.map((s, i) => host.sub(s, depth, 'items', String(i)));
  if (host.d.tuple === 'itemsArray') {
    out.items = tuple;
    return;
  }
  // 2019-09 tuple form in a 2020-12 schema: the same meaning, spelled prefixItems/items
  out.prefixItems = tuple;
  if (has(input, 'additionalItems')) out.items = host.sub(input.additionalItems, depth, 'additionalItems');
}

/** `dependentRequired`, or the name-list entries of `dependencies` (its schema entries are noted and dropped). */
function copyRequiredDependencies(host: KeywordHost, key: string, v: JsonValue, out: JsonObject): void {
  if (!isPlainObject(v)) return invalid(host, key);
  const deps: JsonObject = {};
  let kept = 0;
  for (const k of Object.keys(v)) {
    const list = v[k];
    if (Array.isArray(list) && list.every((n) => typeof n === 'string')) {
      setOwn(deps, k, uniqueStrings(list as string[]));
      kept++;
    } else if (key === 'dependencies') {
      noteDependentSchemas(host, { [k]: list }, null);
    } else invalid(host, key);
  }
  if (kept > 0 || Object.keys(v).length === 0) out[key] = deps;
}

/** Note each non-trivial dependent schema as dropped, and describe it in `descNotes` when given. */
export function noteDependentSchemas(host: KeywordHost, v: JsonObject, descNotes: string[] | null): void {
  for (const k of Object.keys(v)) {
    if (v[k] === true) continue;
    host.note(`dependent schema for "${k}" dropped`);
    descNotes?.push(boundedNote(`If "${k}" is present: ${brief(v[k], 100)}.`));
  }
}

/**
 * OpenAPI's `nullable: true` is no JSON Schema keyword, but validators such
 * as ajv honour it and upstream converters leave it behind: read it as "null
 * is allowed too" (never stricter than ignoring it).
 */
export function openApiNullable(host: KeywordHost, local: JsonObject): void {
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
  if (changed) host.note('OpenAPI "nullable: true" read as allowing null');
}

function invalid(host: KeywordHost, key: string): void {
  host.note(`invalid "${key}" dropped`);
}

/** A deep copy of an enum/const/default/examples value, or undefined when too deep or over budget. */
function copyData(host: KeywordHost, v: JsonValue, depth: number): JsonValue | undefined {
  if (v === null || typeof v === 'string' || typeof v === 'boolean') return v;
  if (typeof v === 'number') return Number.isFinite(v) ? v : undefined;
  if (typeof v !== 'object' || depth >= MAX_DATA_DEPTH || !host.spend()) return undefined;
  if (Array.isArray(v)) {
    const out: JsonValue[] = new Array(v.length);
    for (let i = 0; i < v.length; i++) {
      const c = copyData(host, v[i], depth + 1);
      if (c === undefined) return undefined;
      out[i] = c;
    }
    return out;
  }
  const out: JsonObject = {};
  for (const k of Object.keys(v)) {
    const c = copyData(host, v[k], depth + 1);
    if (c === undefined) return undefined;
    setOwn(out, k, c);
  }
  return out;
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
