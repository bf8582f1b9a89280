// Argument validation against a tool's standard input schema:
// validators compiled once per snapshot entry, so a call costs no compile,
// and errors that name the failing path, so a model can correct its call.
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import type { ToolEntry } from '../catalog/snapshot.js';

const ajv = new Ajv2020({ strict: false, allErrors: false, allowUnionTypes: true, validateFormats: true });
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (a: Ajv2020) => Ajv2020;
addFormats(ajv);

// Keyed by the entry, so a validator lives exactly as long as the snapshot entry that holds the schema.
const validators = new WeakMap<ToolEntry, ValidateFunction | null>();

function validatorFor(entry: ToolEntry): ValidateFunction | null {
  let v = validators.get(entry);
  if (v === undefined) {
    const schema = entry.tool.descriptor.inputSchema;
    try {
      v = schema ? ajv.compile({ ...schema, $id: undefined }) : null;
    } catch {
      // A schema ajv cannot compile (dangling $ref...) cannot be enforced: only the object shape is checked.
      v = null;
    }
    validators.set(entry, v);
  }
  return v;
}

/** Undefined when the arguments are acceptable, else one line naming the failing path. */
export function argumentProblem(entry: ToolEntry, args: unknown): string | undefined {
  if (args === null || typeof args !== 'object' || Array.isArray(args)) return 'arguments must be an object';
  const v = validatorFor(entry);
  if (!v || v(args)) return undefined;
  const e = v.errors?.[0];
  if (!e) return 'arguments do not match the input schema';
  const extra = e.keyword === 'additionalProperties' ? ` (${String((e.params as { additionalProperty: string }).additionalProperty)})` : e.keyword === 'required' ? ` (${String((e.params as { missingProperty: string }).missingProperty)})` : '';
  return `${e.instancePath || '/'} ${e.message ?? 'is invalid'}${extra}`;
}
