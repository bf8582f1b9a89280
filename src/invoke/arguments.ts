// Argument validation against a tool's standard input schema:
// validators compiled once per descriptor (schema-validator.ts: linear-time
// patterns, bounded work), so a call costs no compile, and errors that name the failing path and the rule, so a model can correct
// its call. The compiler and the error wording are shared with the output
// schema check (output-schema.ts).
import type { ValidateFunction } from 'ajv/dist/2020.js';
import type { ToolEntry } from '../catalog/snapshot.js';
import type { ToolDescriptor } from '../contract/descriptor.js';
import { compileSchema, instanceTooLarge } from './schema-validator.js';

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
  if (!v) return undefined;
  const tooLarge = instanceTooLarge(args);
  if (tooLarge !== undefined) return `/ ${tooLarge}`;
  if (v(args)) return undefined;
  return firstProblem(v, 'arguments do not match the input schema');
}
