// Patterns from upstream schemas run in time linear in the text they test.
// A schema `pattern` comes from an untrusted upstream (an MCP server, an
// OpenAPI document), and an ECMAScript backtracking engine takes exponential
// time on patterns such as `^(a|a)+$`: one call would hold the event loop
// of every tenant for seconds. Every pattern the host evaluates therefore
// runs on RE2 (re2js, pure JavaScript, no native build), whose automaton
// matches in linear time. RE2 has no backreferences or lookaround: a schema
// pattern it cannot compile is not enforced, and which ones is reported per
// tool (catalog build warnings, docs/mcp.md "Patterns").
//
// Not enforcing a pattern must only loosen a schema (accept more), never
// tighten it. Dropping a pattern loosens the subschema it sits in, which
// loosens the whole schema only when every keyword on the way to it is
// monotone: under `not`, `if`, `oneOf` or `contains` (with `maxContains`) a
// looser subschema can reject more. `withLinearPatterns` drops such patterns
// where that is sound and otherwise says the schema cannot be enforced at all
// (its callers then check only the object shape, as for a schema ajv cannot
// compile).
import { RE2JS } from 're2js';
import type { JsonObject, JsonValue } from '../contract/descriptor.js';
import { escapePointerSegment, isPlainObject, setOwn } from './json.js';

export interface LinearRegExp {
  test(text: string): boolean;
}

const MAX_CACHED = 5_000;
const compiled = new Map<string, RE2JS | null>();

/** The pattern on RE2, or null when it is not a valid ECMAScript pattern (with `u`) or RE2 cannot run it. */
function compile(pattern: string): RE2JS | null {
  let re = compiled.get(pattern);
  if (re === undefined) {
    try {
      // Validity is ECMAScript's (what the schema's authors wrote for); only parsing, never matching, here.
      new RegExp(pattern, 'u');
      re = RE2JS.compile(RE2JS.translateRegExp(pattern));
    } catch {
      re = null;
    }
    if (compiled.size >= MAX_CACHED) compiled.clear();
    compiled.set(pattern, re);
  }
  return re;
}

/** Whether the host can evaluate this schema pattern (valid ECMAScript, and RE2 compiles it). */
export function isLinearPattern(pattern: string): boolean {
  return compile(pattern) !== null;
}

/**
 * False only when no `pattern` of the schema whose JSON.stringify text is
 * `json` is one the linear-time engine cannot run, decided on the text: in
 * such text every string is between unescaped quotes and every quote inside
 * a string is escaped, so each `"pattern":"…"` is a member named `pattern`
 * holding that string, and every `pattern` keyword with a string value is
 * one of them. A member named `pattern` outside a schema (in a `default`)
 * is checked too, and can only send the schema the exact way. Schemas with
 * `patternProperties` always go the exact way.
 */
export function mayHoldUnrunnablePattern(json: string): boolean {
  if (json.includes('"patternProperties":')) return true;
  for (const m of json.matchAll(PATTERN_MEMBER)) {
    if (!isLinearPattern(JSON.parse(`"${m[1]}"`) as string)) return true;
  }
  return false;
}
const PATTERN_MEMBER = /"pattern":"((?:[^"\\]|\\.)*)"/g;

/**
 * ajv's `code.regExp` engine: every `pattern` and `patternProperties` key of
 * a compiled schema is matched by RE2. Throws for a pattern RE2 cannot run
 * (ajv then refuses the schema); withLinearPatterns removes those first.
 */
export const linearRegExpEngine = Object.assign(
  (pattern: string, flags: string): LinearRegExp => {
    const re = compile(pattern);
    if (re === null) throw new Error(`pattern cannot run in linear time: ${pattern.slice(0, 60)}`);
    return { test: (text: string) => re.test(text), toString: () => `/${pattern}/${flags}` } as LinearRegExp;
  },
  { code: 'linearRegExp' },
);

/** Keywords whose value is one subschema. */
const ONE = new Set(['items', 'additionalItems', 'additionalProperties', 'unevaluatedProperties', 'unevaluatedItems', 'propertyNames', 'contains', 'not', 'if', 'then', 'else']);
/** Keywords whose value is a list of subschemas. */
const LIST = new Set(['allOf', 'anyOf', 'oneOf', 'prefixItems', 'items']);
/** Keywords whose value maps names to subschemas. */
const MAP = new Set(['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas', 'dependencies']);
/** Where a looser subschema can make the schema reject more. */
const NON_MONOTONE = new Set(['not', 'if', 'oneOf', 'contains']);

export interface LinearSchema {
  /** The schema with the patterns RE2 cannot run removed, or undefined when that would not be sound (enforce nothing then). */
  schema: JsonObject | undefined;
  /** JSON pointers of the patterns not enforced (`/properties/s/pattern`, `/patternProperties`). */
  unenforced: string[];
}

type Visit = (node: JsonObject, pointer: string, monotone: boolean) => void;

/** Calls `visit` on every subschema, with whether the way to it is monotone. */
function walkSchemas(node: JsonValue, pointer: string, monotone: boolean, defsMonotone: boolean, visit: Visit): void {
  if (!isPlainObject(node)) return;
  visit(node, pointer, monotone);
  for (const [k, v] of Object.entries(node)) {
    const p = `${pointer}/${escapePointerSegment(k)}`;
    const m = monotone && !NON_MONOTONE.has(k) && (defsMonotone || (k !== '$defs' && k !== 'definitions'));
    if (ONE.has(k) && isPlainObject(v)) walkSchemas(v, p, m, defsMonotone, visit);
    else if (LIST.has(k) && Array.isArray(v)) v.forEach((s, i) => walkSchemas(s, `${p}/${i}`, m, defsMonotone, visit));
    else if (MAP.has(k) && isPlainObject(v)) for (const [name, s] of Object.entries(v)) walkSchemas(s, `${p}/${escapePointerSegment(name)}`, m, defsMonotone, visit);
  }
}

function badPatterns(node: JsonObject): { pattern: boolean; patternProperties: boolean } {
  const pattern = typeof node.pattern === 'string' && !isLinearPattern(node.pattern);
  const pp = node.patternProperties;
  const patternProperties = isPlainObject(pp) && Object.keys(pp).some((k) => !isLinearPattern(k));
  return { pattern, patternProperties };
}

/**
 * The schema as the host enforces it: see the module comment. Cheap when
 * every pattern compiles (one walk, the schema itself returned).
 */
export function withLinearPatterns(schema: JsonObject): LinearSchema {
  const found: Array<{ node: JsonObject; pointer: string; which: ReturnType<typeof badPatterns> }> = [];
  let nonMonotoneAnywhere = false;
  walkSchemas(schema, '', true, true, (node, pointer, monotone) => {
    if (!monotone) nonMonotoneAnywhere = true;
    const which = badPatterns(node);
    if (which.pattern || which.patternProperties) found.push({ node, pointer, which });
  });
  if (found.length === 0) return { schema, unenforced: [] };
  const unenforced = found.flatMap(({ pointer, which }) => [...(which.pattern ? [`${pointer}/pattern`] : []), ...(which.patternProperties ? [`${pointer}/patternProperties`] : [])]);
  // A definition may be reached by `$ref` from under `not`/`if`/`oneOf`/`contains`: monotone only when none exists.
  const defsMonotone = !nonMonotoneAnywhere;
  const targets = new Set(found.map((f) => f.node));
  let sound = true;
  walkSchemas(schema, '', true, defsMonotone, (node, _pointer, monotone) => {
    if (!monotone && targets.has(node)) sound = false;
  });
  if (!sound) return { schema: undefined, unenforced };
  return { schema: loosenedCopy(schema, targets) as JsonObject, unenforced };
}

/** A copy of the schema where each node in `targets` loses its unrunnable `pattern` (and `patternProperties` with what it shields). */
function loosenedCopy(node: JsonValue, targets: ReadonlySet<JsonObject>): JsonValue {
  if (Array.isArray(node)) return node.map((v) => loosenedCopy(v, targets));
  if (!isPlainObject(node)) return node;
  const out: JsonObject = {};
  const which = targets.has(node) ? badPatterns(node) : undefined;
  for (const [k, v] of Object.entries(node)) {
    if (which?.pattern && k === 'pattern') continue;
    // Without the pattern schemas, names they matched would meet additionalProperties: drop it too, which only loosens.
    if (which?.patternProperties && (k === 'patternProperties' || k === 'additionalProperties' || k === 'unevaluatedProperties')) continue;
    setOwn(out, k, k === 'enum' || k === 'const' || k === 'default' || k === 'examples' ? v : loosenedCopy(v, targets));
  }
  return out;
}
