// Argument validation against a tool's standard input schema:
// validators compiled once per descriptor, so a call costs no compile,
// and errors that name the failing path and the rule, so a model can correct
// its call. The compiler and the error wording are shared with the output
// schema check (output-schema.ts).
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import type { ToolEntry } from '../catalog/snapshot.js';
import type { JsonObject, ToolDescriptor } from '../contract/descriptor.js';

const ajv = new Ajv2020({ strict: false, allErrors: false, allowUnionTypes: true, validateFormats: true });
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (a: Ajv2020) => Ajv2020;
addFormats(ajv);

/** A validator for `schema`, or null when there is none or ajv cannot compile it (dangling $ref...): such a schema cannot be enforced. */
function compileSchema(schema: JsonObject | undefined): ValidateFunction | null {
  if (!schema) return null;
  const copy = { ...schema, $id: undefined };
  try {
    return ajv.compile(copy);
  } catch {
    return null;
  } finally {
    // ajv keeps every compiled schema in a Map of its own; the callers' WeakMaps are the only caches wanted.
    ajv.removeSchema(copy);
  }
}

/** The first failure `v` found, as one line: the path, the rule and the offending name. */
export function firstProblem(v: ValidateFunction, fallback: string): string {
  const e = v.errors?.[0];
  if (!e) return fallback;
  const extra = e.keyword === 'additionalProperties' ? ` (${String((e.params as { additionalProperty: string }).additionalProperty)})` : e.keyword === 'required' ? ` (${String((e.params as { missingProperty: string }).missingProperty)})` : '';
  return `${e.instancePath || '/'} ${e.message ?? 'is invalid'}${extra}`;
}

// Keyed by the descriptor: a refresh hands an unchanged tool's descriptor to
// the next snapshot as the same object, so its validators survive rebuilds,
// and are collected with the last snapshot that holds it.
const validators = { inputSchema: new WeakMap<ToolDescriptor, ValidateFunction | null>(), outputSchema: new WeakMap<ToolDescriptor, ValidateFunction | null>() };

/** The validator of one of the descriptor's schemas, compiled on first use; null when it has none or it cannot be compiled. */
export function validatorOf(descriptor: ToolDescriptor, which: 'inputSchema' | 'outputSchema'): ValidateFunction | null {
  const cache = validators[which];
  let v = cache.get(descriptor);
  if (v === undefined) {
    v = compileSchema(descriptor[which]);
    cache.set(descriptor, v);
  }
  return v;
}

/** Undefined when the arguments are acceptable, else one line naming the failing path. */
export function argumentProblem(entry: ToolEntry, args: unknown): string | undefined {
  if (args === null || typeof args !== 'object' || Array.isArray(args)) return 'arguments must be an object';
  // Only the object shape is checked when the schema cannot be compiled.
  const v = validatorOf(entry.tool.descriptor, 'inputSchema');
  if (!v || v(args)) return undefined;
  return firstProblem(v, 'arguments do not match the input schema');
}
