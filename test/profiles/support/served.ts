// Validators for served profile schemas. OpenAI's are JSON Schema as they
// stand; Gemini's are OpenAPI 3.0 Schema objects, whose `nullable: true`
// means "null as well" and whose `format: "enum"` is a hint: they are read
// in those terms (converted to JSON Schema) before ajv checks an instance.
import { isPlainObject } from '../../../src/util/json.js';
import type { ProfileId } from '../../../src/catalog/profiles/rules.js';
import { compile, type Check } from '../../compact/support/validators.js';

type Obj = Record<string, unknown>;

export function geminiAsJsonSchema(s: unknown): unknown {
  if (!isPlainObject(s)) return s;
  const out: Obj = {};
  for (const [k, v] of Object.entries(s)) {
    if (k === 'nullable' || (k === 'format' && v === 'enum')) continue;
    if (k === 'properties' && isPlainObject(v)) out.properties = Object.fromEntries(Object.entries(v).map(([n, x]) => [n, geminiAsJsonSchema(x)]));
    else if (k === 'items') out.items = geminiAsJsonSchema(v);
    else if (k === 'anyOf' && Array.isArray(v)) out.anyOf = v.map(geminiAsJsonSchema);
    else if (k === 'type' && typeof v === 'string') out.type = v.toLowerCase();
    else out[k] = v;
  }
  if (s.nullable === true && typeof out.type === 'string') out.type = [out.type, 'null'];
  return out;
}

export function servedValidator(profile: ProfileId, schema: unknown): Check {
  return compile(profile === 'gemini' ? geminiAsJsonSchema(schema) : schema);
}
