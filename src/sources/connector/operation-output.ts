// The output side of one OpenAPI operation (the descriptor's outputSchema): the first
// 2xx response in code order (200, 201, ..., then `2XX`) that has a JSON
// media type gives the Accept header; its schema becomes the tool's
// outputSchema when it is an object schema (`type: "object"`, or untyped with
// `properties`, which then gets `type: "object"`). Non-object results
// (arrays, strings) get no outputSchema.
import { isPlainObject } from '../../util/json.js';
import type { JsonObject } from '../../contract/descriptor.js';
import { convertSchema, newConvertContext, withDefs, type ConvertContext, type DocumentGraph, type OasVersion } from './schema-convert.js';

const JSON_MEDIA = /^application\/(?:[\w.+-]+\+)?json(?:\s*;.*)?$/i;

export function isJsonMedia(mt: string): boolean {
  return JSON_MEDIA.test(mt.trim());
}

export function outputFor(
  op: Record<string, unknown>,
  api: Record<string, unknown>,
  version: OasVersion,
  warnings: string[],
  label: string,
  graph: DocumentGraph,
): { outputSchema?: JsonObject; responseMediaType?: string } {
  if (!isPlainObject(op.responses)) return {};
  const codes = Object.keys(op.responses)
    .filter((c) => /^2\d\d$/.test(c))
    .sort();
  if (Object.keys(op.responses).some((c) => c.toUpperCase() === '2XX')) {
    codes.push(Object.keys(op.responses).find((c) => c.toUpperCase() === '2XX') as string);
  }
  for (const code of codes) {
    const resp = op.responses[code];
    if (!isPlainObject(resp) || !isPlainObject(resp.content)) continue;
    const mt = Object.keys(resp.content).find((t) => t.toLowerCase() === 'application/json') ?? Object.keys(resp.content).find(isJsonMedia);
    if (mt === undefined) continue;
    const media = resp.content[mt];
    const source = isPlainObject(media) ? media.schema : undefined;
    if (source === undefined) return { responseMediaType: mt };
    const ctx = newConvertContext(api, version, 'response', warnings, label, graph);
    const converted = convertSchema(source, ctx);
    const objectSchema = asObjectSchema(converted, ctx);
    return { responseMediaType: mt, ...(objectSchema ? { outputSchema: withDefs(objectSchema, ctx) } : {}) };
  }
  return {};
}

/** The schema as a top-level object schema, or undefined when it does not describe an object. */
function asObjectSchema(schema: JsonObject | boolean, ctx: ConvertContext): JsonObject | undefined {
  if (typeof schema === 'boolean') return undefined;
  let s = schema;
  // A top-level `$ref` (a circular type): lift the definition to the top; refs inside still resolve via $defs.
  const seen = new Set<string>();
  while (typeof s.$ref === 'string' && s.$ref.startsWith('#/$defs/') && !seen.has(s.$ref)) {
    seen.add(s.$ref);
    const def = ctx.defs[s.$ref.slice('#/$defs/'.length)];
    if (typeof def !== 'object') return undefined;
    const { $ref: _ref, ...rest } = s;
    s = { ...def, ...rest };
  }
  if (s.type === 'object') return s;
  if (s.type === undefined && isPlainObject(s.properties) && s.$ref === undefined) return { type: 'object', ...s };
  return undefined;
}
