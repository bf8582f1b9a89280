// The top level of a compact schema (docs/compact-view.md, "Top level"): a
// tool's arguments are a JSON object, so the compacted root becomes an object
// schema with `properties`. Instances that are not objects are never tool
// arguments: dropping them is no loosening and is not noted.
import type { JsonObject } from '../../contract/descriptor.js';
import { isPlainObject } from '../../util/json.js';
import { admittedKinds } from './algebra.js';
import { brief, withNote } from './brief.js';
import type { LoosenedNotes } from './notes.js';
import { has, K_OBJ, type Schema, valueKind } from './schema-util.js';

export function toTopLevel(s: Schema, notes: LoosenedNotes): JsonObject {
  if (s === true || (s !== false && Object.keys(s).length === 0)) return { type: 'object', properties: {} };
  if (s === false) {
    notes.at('', 'the input schema accepts no value; the compact schema accepts only {}');
    return {
      type: 'object',
      properties: {},
      additionalProperties: false,
      description: 'This tool accepts no arguments: its input schema rejects every value.',
    };
  }
  if (!(admittedKinds(s) & K_OBJ)) {
    notes.at('', 'the input schema accepts no object; the compact schema accepts only {}');
    const out: JsonObject = {};
    if (has(s, '$schema')) out.$schema = s.$schema;
    if (has(s, 'title')) out.title = s.title;
    out.type = 'object';
    out.properties = {};
    out.additionalProperties = false;
    const shape: JsonObject = {};
    for (const k of ['type', 'enum', 'const']) if (has(s, k)) shape[k] = s[k];
    out.description = withNote(s.description, `The original input schema accepts no JSON object (only ${brief(shape, 80)}).`);
    return out;
  }
  if (s.type === 'object' && isPlainObject(s.properties) && !hasNonObjectValue(s)) return s;
  const out: JsonObject = {};
  const needsProperties = !isPlainObject(s.properties);
  if (!has(s, 'type')) {
    if (has(s, '$schema')) out.$schema = s.$schema;
    out.type = 'object';
    if (needsProperties) out.properties = {};
  }
  for (const k of Object.keys(s)) {
    if (k === 'type') {
      out.type = 'object';
      if (needsProperties) out.properties = {};
    }
    else if (k === 'enum' && Array.isArray(s.enum)) out.enum = s.enum.filter((v) => valueKind(v) === K_OBJ);
    else if (!(k === '$schema' && has(out, '$schema'))) out[k] = s[k];
  }
  return out;
}

function hasNonObjectValue(s: JsonObject): boolean {
  return Array.isArray(s.enum) && s.enum.some((v) => valueKind(v) !== K_OBJ);
}
