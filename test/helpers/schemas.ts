// Validators for the contract's shapes: the project's v2 schemas and the
// public v1 schemas shipped in ../shared/spec/upstream-schemas.
import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { compactToolDescriptorV2Schema, toolDescriptorV2Schema } from '../../src/contract/tool-descriptor-schema.js';

const specDir = new URL('../../../shared/spec/upstream-schemas/', import.meta.url);
const ajv = new Ajv2020({ strict: false, allErrors: true });

type Validator = ((data: unknown) => boolean) & { readonly errors?: unknown };

/** A plain boolean validator (ajv's type guards would narrow test values to the schema's shape). */
function validator(schema: object): Validator {
  const v = ajv.compile(schema);
  const f = (data: unknown): boolean => v(data) === true;
  Object.defineProperty(f, 'errors', { get: () => v.errors });
  return f as Validator;
}

export const validateV2 = validator(toolDescriptorV2Schema);
export const validateCompactV2 = validator(compactToolDescriptorV2Schema);
export const validateV1 = validator(JSON.parse(readFileSync(new URL('tool-descriptor.v1.schema.json', specDir), 'utf8')));
export const validateCompactV1 = validator(JSON.parse(readFileSync(new URL('compact-tool-descriptor.v1.schema.json', specDir), 'utf8')));

export function errorsOf(v: { errors?: unknown }): string {
  return JSON.stringify(v.errors ?? null);
}
