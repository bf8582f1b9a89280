// The closed top level of a compact input schema (docs/contract.md
// "CompactToolDescriptor"; the published v2 compact-tool-descriptor schema
// allows only `type: "object"` and `properties` at the top of `inputSchema`).
//
// A final step after compactInputSchema, kept apart from it so the rewrite
// stays as tight as the keyword ban allows and this step's own loosening is
// visible on its own. Sound: dropping top-level keywords only loosens, and
// the tool's arguments are checked against the original schema anyway.
// What the model needs is kept:
// - top-level `required`: each required property's description ends with
//   "(required)" (a required name with no `properties` entry gets one);
//   `required` inside nested objects stays where it is;
// - the top-level `description` (notes the rewrite made for lost
//   alternatives and conditions) is handed back for the tool's description;
// - `$schema` goes, so a schema written in an older dialect is re-spelled
//   in 2020-12 (tuples, draft-04 exclusive bounds, `dependencies`), the
//   dialect a schema without `$schema` is read in.
import { Buffer } from 'node:buffer';
import type { JsonObject, JsonValue } from '../../contract/descriptor.js';
import { isPlainObject, setOwn } from '../../util/json.js';
import { boundedNote } from './brief.js';
import { MAX_COMPACT_SCHEMA_BYTES } from './limits.js';
import { type Dialect, detectDialect, getBound, getDepsRequired, getTuple, has, type Schema, setBound, setTuple } from './schema-util.js';
import { enforceSizeLimit } from './size.js';

/** Appended to the description of each property the original top level requires. */
export const REQUIRED_MARK = '(required)';

export interface ClosedTopLevel {
  schema: { type: 'object'; properties: JsonObject };
  /** The top-level `required` names, in order (the MCP front door's compact profile keeps them). */
  required: string[];
  /** The top-level description, whitespace collapsed and bounded: the caller moves it into the tool's description. */
  description?: string;
  /** `<pointer>: <what>` for each top-level keyword moved or dropped (empty when the top level was already closed). */
  moved: string[];
}

const DIALECT_2020 = detectDialect({});

/** Closes the top level of a compact schema (the output of compactInputSchema / compactSchemaValue). */
export function closeTopLevel(compact: JsonObject): ClosedTopLevel {
  const moved: string[] = [];
  const dialect = detectDialect(compact);
  const respell = dialect.id !== '2020-12' ? respeller(dialect) : (s: Schema) => s;
  const properties: JsonObject = {};
  if (isPlainObject(compact.properties)) for (const name of Object.keys(compact.properties)) setOwn(properties, name, respell(compact.properties[name] as Schema));

  const required = Array.isArray(compact.required) ? [...new Set(compact.required.filter((n): n is string => typeof n === 'string'))] : [];
  if (required.length > 0) {
    // A required name without a `properties` entry is governed by `additionalProperties`: that schema is what it must satisfy.
    const other = isPlainObject(compact.additionalProperties) ? respell(compact.additionalProperties) : {};
    for (const name of required) setOwn(properties, name, markRequired(Object.hasOwn(properties, name) ? (properties[name] as Schema) : other));
    moved.push(`/required: moved into the properties' descriptions (each ends with "${REQUIRED_MARK}")`);
  }
  let description: string | undefined;
  for (const key of Object.keys(compact)) {
    if (key === 'type' || key === 'properties' || key === 'required') continue;
    if (key === 'description' && typeof compact.description === 'string' && compact.description.trim() !== '') {
      description = boundedNote(compact.description.trim());
      moved.push('/description: moved to the tool description');
    } else if (key === '$schema' && dialect.id !== '2020-12') {
      moved.push(`/$schema: dropped; the schema is re-spelled from ${dialect.id} to 2020-12`);
    } else {
      moved.push(`/${key}: dropped (only type and properties may appear at the top)`);
    }
  }
  let schema: ClosedTopLevel['schema'] = { type: 'object', properties };
  // The marks add a few bytes per property: hold the size bound again, then close what it may have added.
  if (Buffer.byteLength(JSON.stringify(schema)) > MAX_COMPACT_SCHEMA_BYTES) {
    const sized = enforceSizeLimit(schema, true, (m) => moved.push(`/: ${m}`));
    if (typeof sized.description === 'string') description = boundedNote(sized.description);
    schema = { type: 'object', properties: isPlainObject(sized.properties) ? sized.properties : {} };
  }
  return description === undefined ? { schema, required, moved } : { schema, required, description, moved };
}

function markRequired(s: Schema): Schema {
  if (s === false) return false; // a required property that may not appear: nothing to tell the model
  const base: JsonObject = s === true ? {} : { ...s };
  const text = typeof base.description === 'string' ? base.description.trim() : '';
  base.description = text === '' ? REQUIRED_MARK : `${text} ${REQUIRED_MARK}`;
  return base;
}

/** A copying walk that writes a compacted schema of an older dialect in 2020-12 spelling. */
function respeller(from: Dialect): (s: Schema) => Schema {
  const done = new Map<object, Schema>();
  const walk = (s: Schema): Schema => {
    if (typeof s === 'boolean') return s;
    const known = done.get(s);
    if (known !== undefined) return known;
    const out: JsonObject = {};
    for (const key of Object.keys(s)) {
      const v = s[key];
      switch (key) {
        case 'properties':
          if (isPlainObject(v)) {
            const props: JsonObject = {};
            for (const name of Object.keys(v)) setOwn(props, name, walk(v[name] as Schema));
            out.properties = props;
          }
          break;
        case 'additionalProperties':
        case 'propertyNames':
        case 'contains':
          out[key] = walk(v as Schema);
          break;
        case 'items':
        case 'additionalItems': {
          // Both keywords are read together, at the first of them.
          if (has(out, 'prefixItems') || has(out, 'items')) break;
          const t = getTuple(s, from);
          setTuple(out, { prefix: t.prefix?.map(walk), rest: t.rest === undefined ? undefined : walk(t.rest) }, DIALECT_2020);
          break;
        }
        case 'minimum':
        case 'maximum':
        case 'exclusiveMinimum':
        case 'exclusiveMaximum': {
          // A bound is read from its pair of keywords together, at the first of them.
          const dir = key === 'minimum' || key === 'exclusiveMinimum' ? 'min' : 'max';
          if (has(out, dir === 'min' ? 'minimum' : 'maximum') || has(out, dir === 'min' ? 'exclusiveMinimum' : 'exclusiveMaximum')) break;
          setBound(out, getBound(s, dir, from), dir, DIALECT_2020);
          break;
        }
        case 'dependencies': {
          const deps = getDepsRequired(s, from);
          if (deps !== undefined) out.dependentRequired = deps as unknown as JsonValue;
          break;
        }
        default:
          setOwn(out, key, v);
      }
    }
    done.set(s, out);
    return out;
  };
  return walk;
}
