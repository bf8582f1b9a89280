// An independent schema walker for the tests (it shares no code with the
// implementation): visits every subschema position and reports keywords.
type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

export const BANNED = ['$ref', 'oneOf', 'allOf', 'anyOf', 'not', 'patternProperties', 'dependentSchemas'];

/** Keywords a compact schema may use (the documented subset). */
export const ALLOWED = new Set([
  'type', 'enum', 'const', 'title', 'description', 'default', 'examples', 'deprecated', 'readOnly', 'writeOnly', 'format',
  'minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf', 'minLength', 'maxLength', 'pattern',
  'items', 'prefixItems', 'additionalItems', 'minItems', 'maxItems', 'uniqueItems', 'contains', 'minContains', 'maxContains',
  'properties', 'required', 'additionalProperties', 'propertyNames', 'minProperties', 'maxProperties',
  'dependentRequired', 'dependencies',
]);

const MAPS = new Set(['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas']);
const ONE = new Set([
  'additionalProperties', 'additionalItems', 'contains', 'propertyNames', 'not', 'if', 'then', 'else',
  'unevaluatedProperties', 'unevaluatedItems',
]);
const ARRAYS = new Set(['allOf', 'anyOf', 'oneOf', 'prefixItems']);

function isObj(v: unknown): v is { [k: string]: Json } {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Calls `visit(schemaObject, pointer, depth)` for every object in a schema position. */
export function walkSchema(s: unknown, visit: (node: { [k: string]: Json }, pointer: string, depth: number) => void, pointer = '', depth = 0): void {
  if (!isObj(s)) return;
  visit(s, pointer, depth);
  const esc = (k: string): string => k.replace(/~/g, '~0').replace(/\//g, '~1');
  for (const k of Object.keys(s)) {
    const v = s[k];
    const p = `${pointer}/${esc(k)}`;
    if (MAPS.has(k) && isObj(v)) for (const n of Object.keys(v)) walkSchema(v[n], visit, `${p}/${esc(n)}`, depth + 1);
    else if (ONE.has(k)) walkSchema(v, visit, p, depth + 1);
    else if (ARRAYS.has(k) && Array.isArray(v)) v.forEach((x, i) => walkSchema(x, visit, `${p}/${i}`, depth + 1));
    else if (k === 'items') {
      if (Array.isArray(v)) v.forEach((x, i) => walkSchema(x, visit, `${p}/${i}`, depth + 1));
      else walkSchema(v, visit, p, depth + 1);
    } else if (k === 'dependencies' && isObj(v)) {
      for (const n of Object.keys(v)) if (!Array.isArray(v[n])) walkSchema(v[n], visit, `${p}/${esc(n)}`, depth + 1);
    }
    // enum, const, default, examples and unknown keywords hold data, not schemas
  }
}

/** Pointers of banned keywords used as keywords anywhere in the schema. */
export function bannedKeywords(s: unknown): string[] {
  const found: string[] = [];
  walkSchema(s, (node, ptr) => {
    for (const k of Object.keys(node)) if (BANNED.includes(k)) found.push(`${ptr}/${k}`);
  });
  return found;
}

/** Pointers of keywords outside the compact subset (the root may also carry `$schema`). */
export function foreignKeywords(s: unknown): string[] {
  const found: string[] = [];
  walkSchema(s, (node, ptr) => {
    for (const k of Object.keys(node)) if (!ALLOWED.has(k) && !(k === '$schema' && ptr === '')) found.push(`${ptr}/${k}`);
  });
  return found;
}

/** Every object and array reachable from a value (for aliasing checks). */
export function allContainers(v: unknown, into = new Set<object>()): Set<object> {
  if (typeof v === 'object' && v !== null) {
    into.add(v);
    for (const x of Object.values(v)) allContainers(x, into);
  }
  return into;
}

export function deepFreeze<T>(v: T): T {
  if (typeof v === 'object' && v !== null && !Object.isFrozen(v)) {
    Object.freeze(v);
    for (const x of Object.values(v)) deepFreeze(x);
  }
  return v;
}
