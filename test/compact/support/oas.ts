// The request schemas of @readme/oas-examples (3.0 and 3.1) as tool input
// schemas: each document dereferenced with swagger-parser (circular refs left
// as `$ref`), and for each operation an object schema of its parameters plus
// the JSON request body under `body`. OAS 3.0 Schema Objects are converted to
// JSON Schema 2020-12 first by `oas30ToJsonSchema` (local helper).
import { readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import SwaggerParser from '@apidevtools/swagger-parser';

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
type Obj = { [k: string]: Json };

function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

const SCHEMA_MAPS = ['properties', 'patternProperties'];
const SCHEMA_ARRAYS = ['allOf', 'anyOf', 'oneOf'];
const SCHEMA_ONE = ['items', 'additionalProperties', 'not'];
const DATA = ['enum', 'default', 'example', 'examples', 'const'];

/**
 * OAS 3.0 Schema Object to JSON Schema 2020-12 (returns a converted copy):
 * `nullable: true` adds "null" to `type` (and null to `enum`), or wraps a
 * type-less composition as `anyOf: [schema, {type: "null"}]`; boolean
 * `exclusiveMinimum`/`exclusiveMaximum` become the numeric form.
 */
export function oas30ToJsonSchema(s: Json): Json {
  if (!isObj(s)) return s;
  const out: Obj = {};
  for (const k of Object.keys(s)) {
    const v = s[k];
    if (k === 'nullable' || ((k === 'exclusiveMinimum' || k === 'exclusiveMaximum') && typeof v === 'boolean')) continue;
    if (DATA.includes(k)) out[k] = structuredClone(v);
    else if (SCHEMA_MAPS.includes(k) && isObj(v)) {
      const m: Obj = {};
      for (const n of Object.keys(v)) Object.defineProperty(m, n, { value: oas30ToJsonSchema(v[n]), enumerable: true, writable: true, configurable: true });
      out[k] = m;
    } else if (SCHEMA_ARRAYS.includes(k) && Array.isArray(v)) out[k] = v.map(oas30ToJsonSchema);
    else if (SCHEMA_ONE.includes(k) && isObj(v)) out[k] = oas30ToJsonSchema(v);
    else out[k] = structuredClone(v);
  }
  for (const [b, n] of [['exclusiveMinimum', 'minimum'], ['exclusiveMaximum', 'maximum']] as const) {
    if (s[b] === true && typeof s[n] === 'number') {
      out[b] = s[n];
      delete out[n];
    }
  }
  if (s.nullable === true) {
    if (typeof out.type === 'string') {
      out.type = [out.type, 'null'];
      if (Array.isArray(out.enum) && !out.enum.includes(null)) out.enum = [...out.enum, null];
    } else if (out.type === undefined && (out.allOf || out.anyOf || out.oneOf || out.$ref)) {
      return { anyOf: [out, { type: 'null' }] };
    }
  }
  return out;
}

export interface OasCase {
  id: string;
  version: '3.0' | '3.1';
  schema: Obj;
}

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

function operationSchema(doc: Obj, pathItem: Obj, op: Obj, convert: (s: Json) => Json): Obj {
  const params = new Map<string, Obj>();
  for (const p of [...((pathItem.parameters as Json[]) ?? []), ...((op.parameters as Json[]) ?? [])]) {
    if (isObj(p) && typeof p.name === 'string') params.set(`${String(p.in)}:${p.name}`, p);
  }
  const properties: Obj = {};
  const required: string[] = [];
  for (const [key, p] of params) {
    let schema: Json = p.schema ?? {};
    if (p.schema === undefined && isObj(p.content)) {
      const first = Object.values(p.content)[0];
      if (isObj(first) && first.schema !== undefined) schema = first.schema;
    }
    const name = Object.hasOwn(properties, p.name as string) ? key : (p.name as string);
    Object.defineProperty(properties, name, { value: convert(schema), enumerable: true, writable: true, configurable: true });
    if (p.required === true) required.push(name);
  }
  const body = op.requestBody;
  if (isObj(body) && isObj(body.content)) {
    const mt = Object.keys(body.content).find((m) => /json/i.test(m));
    const media = mt ? body.content[mt] : undefined;
    if (isObj(media) && media.schema !== undefined) {
      properties.body = convert(media.schema);
      if (body.required === true) required.push('body');
    }
  }
  const out: Obj = { type: 'object', properties };
  if (required.length > 0) out.required = required;
  // circular references stay as `$ref` into the document: carry their targets along
  if (JSON.stringify(out).includes('"$ref"') && isObj(doc.components) && isObj(doc.components.schemas)) {
    const schemas: Obj = {};
    for (const n of Object.keys(doc.components.schemas)) schemas[n] = convert(doc.components.schemas[n]);
    out.components = { schemas };
  }
  return out;
}

function examplesDir(): string {
  const require = createRequire(import.meta.url);
  return dirname(require.resolve('@readme/oas-examples/package.json'));
}

export async function loadOasCorpus(): Promise<{ cases: OasCase[]; skipped: string[] }> {
  const cases: OasCase[] = [];
  const skipped: string[] = [];
  for (const version of ['3.0', '3.1'] as const) {
    const dir = join(examplesDir(), version, 'json');
    for (const file of readdirSync(dir).filter((f) => f.endsWith('.json')).sort()) {
      let doc: Obj;
      try {
        const parsed = await SwaggerParser.dereference(join(dir, file), {
          resolve: { external: false },
          dereference: { circular: 'ignore' },
        } as never);
        // a plain tree: dereferencing shares objects between places
        doc = JSON.parse(JSON.stringify(parsed)) as Obj;
      } catch {
        skipped.push(`${version}/${file}`);
        continue;
      }
      const convert = version === '3.0' ? oas30ToJsonSchema : (s: Json) => structuredClone(s);
      const paths = isObj(doc.paths) ? doc.paths : {};
      for (const path of Object.keys(paths)) {
        const item = paths[path];
        if (!isObj(item)) continue;
        for (const m of METHODS) {
          const op = item[m];
          if (!isObj(op)) continue;
          cases.push({ id: `${version}/${file} ${m.toUpperCase()} ${path}`, version, schema: operationSchema(doc, item, op, convert) });
        }
      }
    }
  }
  return { cases, skipped };
}
