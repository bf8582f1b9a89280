// Validators for the tests: ajv with the class matching a schema's dialect
// (draft-07 for the MCP servers' schemas, 2020-12 otherwise), formats on.
import { Ajv } from 'ajv';
import { Ajv2019 } from 'ajv/dist/2019.js';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';

type AnyAjv = Ajv | Ajv2019 | Ajv2020;
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (a: AnyAjv) => AnyAjv;
const opts = { strict: false, logger: false as const, allowUnionTypes: true, validateSchema: true, inlineRefs: false };

let instances: Record<string, AnyAjv> | undefined;
let compiled = 0;

function ajvFor(schema: unknown): AnyAjv {
  if (!instances || compiled > 400) {
    // fresh instances now and then: ajv caches every compiled schema
    instances = {
      '07': addFormats(new Ajv(opts)),
      '2019': addFormats(new Ajv2019(opts)),
      '2020': addFormats(new Ajv2020(opts)),
    };
    compiled = 0;
  }
  compiled++;
  const uri = typeof schema === 'object' && schema !== null && typeof (schema as { $schema?: unknown }).$schema === 'string'
    ? (schema as { $schema: string }).$schema : '';
  if (/draft-0[67]/.test(uri)) return instances['07'];
  if (uri.includes('2019-09')) return instances['2019'];
  return instances['2020'];
}

export type Check = (instance: unknown) => boolean;

/** A boolean validator; throws when ajv cannot compile the schema (or cannot finish validating). */
export function compile(schema: unknown): Check {
  const v = ajvFor(schema).compile(schema as object);
  return (x) => v(x) === true;
}

/**
 * For original schemas: a `$ref` cycle that consumes no input (`{"allOf":[{"$ref":"#"}]}`)
 * makes ajv overflow the stack; such an instance has no verdict and is skipped (undefined).
 */
export function compileLenient(schema: unknown): (instance: unknown) => boolean | undefined {
  const v = ajvFor(schema).compile(schema as object);
  return (x) => {
    try {
      return v(x) === true;
    } catch (e) {
      if (e instanceof RangeError) return undefined;
      throw e;
    }
  };
}
