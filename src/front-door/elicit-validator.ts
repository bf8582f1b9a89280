// The JSON Schema validator every session's SDK Server checks a client's
// elicitation answers with (docs/mcp.md "Approval"; the SDK's
// `jsonSchemaValidator` option). Left to itself the SDK builds one Ajv per
// Server, most of what an idle session would hold (docs/benchmarks.md "Idle MCP
// sessions"); here one Ajv, configured as the SDK's default, serves them all.
// Ajv caches what it compiles by schema object, forever: a schema that is a
// new object per request (an upstream's, relayed) would grow it without end,
// so compiled validators are kept here by the schema's text instead, a
// bounded number, and Ajv forgets each schema once compiled.
import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import type { JsonSchemaType, JsonSchemaValidator, jsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/types.js';

/** Compiled schemas kept (least recently used forgotten first). */
export const MAX_CACHED_SCHEMAS = 64;

const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (a: Ajv) => Ajv;

export class SharedSchemaValidator implements jsonSchemaValidator {
  private readonly ajv: Ajv;
  private readonly sdk: AjvJsonSchemaValidator;
  private readonly cache = new Map<string, JsonSchemaValidator<unknown>>();

  constructor(private readonly maxCached = MAX_CACHED_SCHEMAS) {
    // The options of the SDK's own default instance (validation/ajv-provider), so answers are judged as it would.
    this.ajv = addFormats(new Ajv({ strict: false, validateFormats: true, validateSchema: false, allErrors: true }));
    this.sdk = new AjvJsonSchemaValidator(this.ajv);
  }

  /** How many compiled schemas are held (test/front-door/elicit-validator.test.ts). */
  get size(): number {
    return this.cache.size;
  }

  getValidator<T>(schema: JsonSchemaType): JsonSchemaValidator<T> {
    const key = JSON.stringify(schema);
    let validator = this.cache.get(key);
    if (validator !== undefined) {
      this.cache.delete(key);
    } else {
      try {
        validator = this.sdk.getValidator<unknown>(schema);
      } finally {
        // Also frees a schema's $id, so another schema may use it.
        this.ajv.removeSchema(schema as object);
      }
      if (this.cache.size >= this.maxCached) this.cache.delete(this.cache.keys().next().value!);
    }
    this.cache.set(key, validator);
    return validator as JsonSchemaValidator<T>;
  }
}

/** The one validator of the process's sessions. */
export const SESSION_SCHEMA_VALIDATOR = new SharedSchemaValidator();
