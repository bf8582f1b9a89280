// `unevaluatedProperties` and `unevaluatedItems` (docs/compact-view.md,
// "`unevaluatedProperties` / `unevaluatedItems`"). Where no applicator can
// evaluate more than the node's own keywords, they act like
// `additionalProperties`/`items` and are rewritten so. Where applicators may
// evaluate a known set of names, `unevaluatedProperties` closes the merged
// node to those names; otherwise it is dropped with a note.
import type { JsonObject, JsonValue } from '../../contract/descriptor.js';
import { isPlainObject } from '../../util/json.js';
import type { KeywordHost } from './copy-keyword.js';
import { MAX_SCHEMA_DEPTH } from './limits.js';
import type { NodeKeywords } from './node-keywords.js';
import type { Resolved } from './references.js';
import { has, ordered, type Schema } from './schema-util.js';

/** The walk, as copying sees it, and reference resolution from where it is. */
export interface UnevaluatedHost extends KeywordHost {
  resolve(ref: string): Resolved | undefined;
}

/** `unevaluatedProperties` to apply after the merge: the names the applicators may evaluate, and the schema for the rest. */
export interface UnevaluatedAfter {
  names: Set<string>;
  schema: Schema;
}

/**
 * `unevaluatedProperties`/`unevaluatedItems`: rewritten in place when no
 * applicator can evaluate more than the node itself; otherwise returned to
 * apply after the merge when the evaluated names are a known set.
 */
export function unevaluatedInPlace(host: UnevaluatedHost, input: JsonObject, found: NodeKeywords, depth: number): UnevaluatedAfter | undefined {
  const { local, unevaluatedProperties, unevaluatedItems, inPlace, patternProperties } = found;
  let after: UnevaluatedAfter | undefined;
  if (unevaluatedProperties !== undefined && unevaluatedProperties !== true) {
    if (has(input, 'additionalProperties')) {
      // every property is already evaluated at this level: no effect
    } else if (!inPlace && !patternProperties) {
      // Without in-place applicators, unevaluatedProperties acts exactly like additionalProperties.
      local.additionalProperties = host.sub(unevaluatedProperties, depth, 'unevaluatedProperties');
    } else {
      // With applicators: when they can only evaluate a known set of names, an instance the
      // original accepts has no other name unless it satisfies unevaluatedProperties.
      const names = patternProperties ? undefined : evaluatedNames(host, input, 0, new Set(), true);
      if (names) after = { names, schema: host.sub(unevaluatedProperties, depth, 'unevaluatedProperties') };
      else host.note('unevaluatedProperties dropped');
    }
  }
  if (unevaluatedItems !== undefined) {
    if (!inPlace && host.d.tuple === 'prefixItems' && !has(input, 'items') && !has(input, 'contains')) {
      local.items = host.sub(unevaluatedItems, depth, 'unevaluatedItems');
    } else if (unevaluatedItems !== true) host.note('unevaluatedItems dropped');
  }
  return after;
}

/** Close the merged node to the evaluated names, when every one of them ended up among its properties. */
export function applyUnevaluatedAfter(host: UnevaluatedHost, result: Schema, after: UnevaluatedAfter): Schema {
  const props = result !== false && result !== true && isPlainObject(result.properties) ? result.properties : {};
  if (result !== false && result !== true && !has(result, 'additionalProperties') && [...after.names].every((n) => has(props, n))) {
    return ordered({ ...result, properties: props, additionalProperties: after.schema });
  }
  if (result !== false) host.note('unevaluatedProperties dropped');
  return result;
}

/**
 * The property names the in-place applicators of a node can evaluate, or
 * undefined when that set is open (patternProperties, additionalProperties,
 * a non-false unevaluatedProperties, dynamic references). `not` evaluates nothing.
 */
function evaluatedNames(host: UnevaluatedHost, node: JsonValue, depth: number, seen: Set<object>, top = false): Set<string> | undefined {
  const names = new Set<string>();
  if (!isPlainObject(node) || seen.has(node)) return names;
  if (depth > MAX_SCHEMA_DEPTH || !host.spend()) return undefined;
  seen.add(node);
  if (has(node, 'patternProperties') || has(node, 'additionalProperties') || has(node, '$dynamicRef') || has(node, '$recursiveRef')) return undefined;
  if (!top && has(node, 'unevaluatedProperties') && node.unevaluatedProperties !== false) return undefined;
  if (isPlainObject(node.properties)) for (const n of Object.keys(node.properties)) names.add(n);
  const subs: JsonValue[] = [];
  for (const kw of ['allOf', 'anyOf', 'oneOf']) if (Array.isArray(node[kw])) subs.push(...(node[kw] as JsonValue[]));
  for (const kw of ['if', 'then', 'else']) if (has(node, kw)) subs.push(node[kw]);
  if (isPlainObject(node.dependentSchemas)) subs.push(...Object.values(node.dependentSchemas));
  if (typeof node.$ref === 'string') {
    const t = host.resolve(node.$ref);
    if (!t) return undefined;
    subs.push(t.node);
  }
  for (const sub of subs) {
    const more = evaluatedNames(host, sub, depth + 1, seen);
    if (!more) return undefined;
    for (const n of more) names.add(n);
  }
  return names;
}
