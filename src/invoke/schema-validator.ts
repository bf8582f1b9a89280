// The one JSON Schema validator of tool calls (arguments and structured
// results), built so that one call's validation costs time linear in what
// it checks, whatever an untrusted upstream put in the schema:
// - patterns run on RE2 (util/linear-regex.ts); one RE2 cannot run is not
//   enforced, soundly (withLinearPatterns);
// - `enum` is a hash lookup, not a comparison with every listed value (ajv
//   compares with each, and writes a list of 40,000 strings as one
//   expression of 40,000 comparisons);
// - `uniqueItems` is a hash set, not ajv's comparison of every pair;
// - the instance is bounded before it is checked (MAX_VALIDATED_VALUES,
//   MAX_VALIDATED_DEPTH): more is refused with a reason, never validated.
// The schema's own size is bounded where it enters (MCP `maxSchemaBytes`
// and `maxSchemaDepth`, the connector's schema node budget).
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import type { JsonObject } from '../contract/descriptor.js';
import { linearRegExpEngine, withLinearPatterns } from '../util/linear-regex.js';

/** Most JSON values (every object, array, string, number...) in one validated instance. */
export const MAX_VALIDATED_VALUES = 200_000;
/** Deepest nesting of one validated instance (the instance itself is depth 1). */
export const MAX_VALIDATED_DEPTH = 64;

const ajv = new Ajv2020({ strict: false, allErrors: false, allowUnionTypes: true, validateFormats: true, code: { regExp: linearRegExpEngine } });
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (a: Ajv2020) => Ajv2020;
addFormats(ajv);

/** A key equal for values JSON Schema calls equal (object key order aside, 1 and 1.0 alike). */
function valueKey(v: unknown): string {
  if (v === null || typeof v !== 'object') return `${typeof v}:${String(v)}`;
  return `json:${canonical(v)}`;
}

function canonical(v: unknown): string {
  if (v === null || typeof v !== 'object') return JSON.stringify(v) ?? 'null';
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  const keys = Object.keys(v).sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonical((v as Record<string, unknown>)[k])}`).join(',')}}`;
}

ajv.removeKeyword('enum');
ajv.addKeyword({
  keyword: 'enum',
  schemaType: 'array',
  error: { message: 'must be equal to one of the allowed values' },
  compile(values: unknown[]) {
    const allowed = new Set(values.map(valueKey));
    return (data: unknown) => allowed.has(valueKey(data));
  },
});

ajv.removeKeyword('uniqueItems');
ajv.addKeyword({
  keyword: 'uniqueItems',
  schemaType: 'boolean',
  type: 'array',
  error: { message: 'must NOT have duplicate items' },
  compile(unique: boolean) {
    if (!unique) return () => true;
    return (data: unknown) => {
      const items = data as unknown[];
      return new Set(items.map(valueKey)).size === items.length;
    };
  },
});

/** Undefined when the value is within the bounds above, else what is over. */
export function instanceTooLarge(value: unknown): string | undefined {
  let count = 0;
  const stack: Array<[unknown, number]> = [[value, 1]];
  while (stack.length > 0) {
    const [v, depth] = stack.pop()!;
    if (++count > MAX_VALIDATED_VALUES) return `holds more than ${MAX_VALIDATED_VALUES} values, more than the host validates`;
    if (depth > MAX_VALIDATED_DEPTH) return `nests deeper than ${MAX_VALIDATED_DEPTH} levels, more than the host validates`;
    if (v === null || typeof v !== 'object') continue;
    for (const c of Array.isArray(v) ? v : Object.values(v)) stack.push([c, depth + 1]);
  }
  return undefined;
}

/**
 * A validator for `schema`, or null when there is none, ajv cannot compile
 * it (dangling $ref...) or its patterns cannot be enforced soundly: such a
 * schema cannot be enforced.
 */
export function compileSchema(schema: JsonObject | undefined): ValidateFunction | null {
  if (!schema) return null;
  const linear = withLinearPatterns(schema).schema;
  if (linear === undefined) return null;
  const copy = { ...linear, $id: undefined };
  try {
    return ajv.compile(copy);
  } catch {
    return null;
  } finally {
    // ajv keeps every compiled schema in a Map of its own; the callers' WeakMaps are the only caches wanted.
    ajv.removeSchema(copy);
  }
}
