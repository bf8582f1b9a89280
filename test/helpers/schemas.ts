// Validators for the contract's shapes: the project's own v2 schemas
// (src/contract/tool-descriptor-schema.ts) and the published openwop schemas
// vendored under test/vendor (see its README). Nothing here reads outside the
// repository, so a clone tests itself.
import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { compactToolDescriptorV2Schema, toolDescriptorV2Schema } from '../../src/contract/tool-descriptor-schema.js';

const vendorDir = new URL('../vendor/', import.meta.url);
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (a: Ajv2020) => Ajv2020;
const ajv = addFormats(new Ajv2020({ strict: false, allErrors: true }));

type Validator = ((data: unknown) => boolean) & { readonly errors?: unknown };

function vendored(path: string): Record<string, any> {
  return JSON.parse(readFileSync(new URL(path, vendorDir), 'utf8'));
}

/** A plain boolean validator (ajv's type guards would narrow test values to the schema's shape). */
function validator(schema: object): Validator {
  const v = ajv.compile(schema);
  const f = (data: unknown): boolean => v(data) === true;
  Object.defineProperty(f, 'errors', { get: () => v.errors });
  return f as Validator;
}

export const validateV2 = validator(toolDescriptorV2Schema);
export const validateCompactV2 = validator(compactToolDescriptorV2Schema);
export const validateV1 = validator(vendored('openwop-v1/tool-descriptor.v1.schema.json'));
export const validateCompactV1 = validator(vendored('openwop-v1/compact-tool-descriptor.v1.schema.json'));

/** The published v2 schemas, as vendored. */
export const validatePublishedV2 = validator(vendored('openwop-v2/tool-descriptor.schema.json'));
export const validatePublishedCompactV2 = validator(vendored('openwop-v2/compact-tool-descriptor.schema.json'));
export const validateCapabilitiesV2 = validator(vendored('openwop-v2/capabilities.schema.json'));
const envelopeSchema = vendored('openwop-v2/error-envelope.schema.json');
export const validateErrorEnvelopeV2 = validator(envelopeSchema);
/** The registry's status for each registered code (`x-openwop-http-status`). */
export const REGISTERED_ERROR_STATUS: Readonly<Record<string, number>> = envelopeSchema['x-openwop-http-status'];

/** The published compact schema's `inputSchema` subschema alone, to check a compact input schema by itself. */
export const validatePublishedCompactInputSchema = validator({
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  ...vendored('openwop-v2/compact-tool-descriptor.schema.json').properties.inputSchema,
});

export function errorsOf(v: { errors?: unknown }): string {
  return JSON.stringify(v.errors ?? null);
}

/**
 * Checks one non-2xx answer against the v2 error envelope: the body validates,
 * a registered code comes with its registered status, and the response
 * carries `OpenWOP-Version: 2.0`. Returns a problem description, or undefined.
 */
export function envelopeProblem(status: number, headers: { get(name: string): string | null }, text: string): string | undefined {
  if (headers.get('openwop-version') !== '2.0') return `no OpenWOP-Version: 2.0 header (status ${status}, body ${text.slice(0, 200)})`;
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return `body is not JSON: ${JSON.stringify(text.slice(0, 200))}`;
  }
  if (!validateErrorEnvelopeV2(body)) return `body ${text.slice(0, 200)} is not a v2 error envelope: ${errorsOf(validateErrorEnvelopeV2)}`;
  const code = (body as { error: string }).error;
  const registered = REGISTERED_ERROR_STATUS[code];
  if (registered !== undefined && registered !== status) return `code ${code} is registered with status ${registered}, answered ${status}`;
  if (registered === undefined && !code.startsWith('toolhost.')) return `code ${code} is neither registered nor a toolhost.* vendor code`;
  return undefined;
}
