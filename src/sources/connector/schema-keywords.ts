// The keywords of an OpenAPI Schema Object that hold no subschema and no
// data: type names, strings, flags, counts, bounds, `pattern`, `required`,
// `dependentRequired`. Each is copied when its value has the keyword's shape
// and dropped otherwise (the rules are listed in schema-convert.ts); 3.0's
// boolean `exclusiveMinimum`/`exclusiveMaximum` take their bound's value.
// Kept apart from schema-convert.ts, which walks the subschemas.
import type { JsonObject } from '../../contract/descriptor.js';
import { isPlainObject, setOwn } from '../../util/json.js';

const JSON_TYPES = new Set(['null', 'boolean', 'object', 'array', 'number', 'string', 'integer']);
const STRING_KEYWORDS = ['title', 'description', 'format', 'contentEncoding', 'contentMediaType', '$comment'] as const;
const BOOLEAN_KEYWORDS = ['uniqueItems', 'deprecated', 'readOnly', 'writeOnly'] as const;
const NON_NEGATIVE_INT_KEYWORDS = [
  'maxLength',
  'minLength',
  'maxItems',
  'minItems',
  'maxContains',
  'minContains',
  'maxProperties',
  'minProperties',
] as const;
const NUMBER_KEYWORDS = ['maximum', 'minimum'] as const;

export function validRegex(p: string): boolean {
  try {
    new RegExp(p, 'u');
    return true;
  } catch {
    return false;
  }
}

/** The node's known JSON types without repeats, or undefined when it names none. */
export function schemaTypes(node: Record<string, unknown>): string[] | undefined {
  let types: string[] | undefined;
  if (typeof node.type === 'string') types = [node.type];
  else if (Array.isArray(node.type)) types = node.type.filter((t): t is string => typeof t === 'string');
  if (types) {
    types = [...new Set(types.filter((t) => JSON_TYPES.has(t)))];
    if (types.length === 0) types = undefined;
  }
  return types;
}

/** Copies the well-formed assertion and annotation keywords into `out` (`type` aside); an invalid `pattern` is dropped with a warning. */
export function copyAssertions(node: Record<string, unknown>, out: JsonObject, warnings: string[]): void {
  for (const k of STRING_KEYWORDS) if (typeof node[k] === 'string') out[k] = node[k] as string;
  for (const k of BOOLEAN_KEYWORDS) if (typeof node[k] === 'boolean') out[k] = node[k] as boolean;
  for (const k of NON_NEGATIVE_INT_KEYWORDS) {
    const v = node[k];
    if (typeof v === 'number' && Number.isInteger(v) && v >= 0) out[k] = v;
  }
  for (const k of NUMBER_KEYWORDS) {
    const v = node[k];
    if (typeof v === 'number' && Number.isFinite(v)) out[k] = v;
  }
  if (typeof node.multipleOf === 'number' && Number.isFinite(node.multipleOf) && node.multipleOf > 0) out.multipleOf = node.multipleOf;
  if (typeof node.pattern === 'string') {
    if (validRegex(node.pattern)) out.pattern = node.pattern;
    else warnings.push(`pattern ${JSON.stringify(node.pattern.slice(0, 60))} is not a valid regular expression; dropped`);
  }
  for (const k of ['exclusiveMinimum', 'exclusiveMaximum'] as const) {
    const v = node[k];
    const bound = k === 'exclusiveMinimum' ? 'minimum' : 'maximum';
    if (typeof v === 'number' && Number.isFinite(v)) out[k] = v;
    else if (v === true && typeof out[bound] === 'number') {
      out[k] = out[bound] as number;
      delete out[bound];
    }
  }
  if (Array.isArray(node.required)) {
    const req = [...new Set(node.required.filter((r): r is string => typeof r === 'string'))];
    if (req.length > 0) out.required = req;
  }
  if (isPlainObject(node.dependentRequired)) {
    const dr: JsonObject = {};
    for (const [k, v] of Object.entries(node.dependentRequired)) {
      if (Array.isArray(v)) setOwn(dr, k, [...new Set(v.filter((s): s is string => typeof s === 'string'))]);
    }
    out.dependentRequired = dr;
  }
}
