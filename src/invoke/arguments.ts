// Argument validation against a tool's standard input schema:
// validators compiled once per snapshot entry, so a call costs no compile,
// and errors that name the failing path and the rule, so a model can correct
// its call. The compiler and the error wording are shared with the output
// schema check (output-schema.ts).
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import type { ToolEntry } from '../catalog/snapshot.js';
import type { JsonObject } from '../contract/descriptor.js';

const ajv = new Ajv2020({ strict: false, allErrors: false, allowUnionTypes: true, validateFormats: true });
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (a: Ajv2020) => Ajv2020;
addFormats(ajv);

/** A validator for `schema`, or null when there is none or ajv cannot compile it (dangling $ref...): such a schema cannot be enforced. */
export function compileSchema(schema: JsonObject | undefined): ValidateFunction | null {
  if (!schema) return null;
  try {
    return ajv.compile({ ...schema, $id: undefined });
  } catch {
    return null;
  }
}

/** The first failure `v` found, as one line: the path, the rule and the offending name. */
export function firstProblem(v: ValidateFunction, fallback: string): string {
  const e = v.errors?.[0];
  if (!e) return fallback;
  const extra = e.keyword === 'additionalProperties' ? ` (${String((e.params as { additionalProperty: string }).additionalProperty)})` : e.keyword === 'required' ? ` (${String((e.params as { missingProperty: string }).missingProperty)})` : '';
  return `${e.instancePath || '/'} ${e.message ?? 'is invalid'}${extra}`;
}

// Keyed by the entry, so a validator lives exactly as long as the snapshot entry that holds the schema.
const validators = new WeakMap<ToolEntry, ValidateFunction | null>();

function validatorFor(entry: ToolEntry): ValidateFunction | null {
  let v = validators.get(entry);
  if (v === undefined) {
    // Only the object shape is checked when the schema cannot be compiled.
    v = compileSchema(entry.tool.descriptor.inputSchema);
    validators.set(entry, v);
  }
  return v;
}

/** Undefined when the arguments are acceptable, else one line naming the failing path. */
export function argumentProblem(entry: ToolEntry, args: unknown): string | undefined {
  if (args === null || typeof args !== 'object' || Array.isArray(args)) return 'arguments must be an object';
  const v = validatorFor(entry);
  if (!v || v(args)) return undefined;
  return firstProblem(v, 'arguments do not match the input schema');
}
