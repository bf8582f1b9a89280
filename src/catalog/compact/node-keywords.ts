// One pass over a schema node's keywords (docs/compact-view.md, "Rewrites"):
// keywords in the compact subset are copied at once; the applicators that
// must be merged or folded afterwards (`$ref`, `allOf`/`anyOf`/`oneOf`,
// `patternProperties`, `unevaluated*`) are collected in a NodeKeywords record
// for the walk; `not`, `if`/`then`/`else` and `dependentSchemas` become notes.
import type { JsonObject, JsonValue } from '../../contract/descriptor.js';
import { isPlainObject } from '../../util/json.js';
import { boundedNote, brief } from './brief.js';
import { copyKeyword, type KeywordHost, noteDependentSchemas } from './copy-keyword.js';
import { has } from './schema-util.js';

/** What the pass found in one node. */
export interface NodeKeywords {
  /** The compact keywords copied from the node. */
  local: JsonObject;
  /** Descriptions of what was dropped, for the node's description. */
  descNotes: string[];
  ref: string | undefined;
  allOf: JsonValue[] | undefined;
  anyOf: JsonValue[] | undefined;
  oneOf: JsonValue[] | undefined;
  patternProperties: JsonObject | undefined;
  unevaluatedProperties: JsonValue | undefined;
  unevaluatedItems: JsonValue | undefined;
  /** An in-place applicator is present, so `unevaluated*` see more than the node's own keywords. */
  inPlace: boolean;
  /** `enum: []`: the node accepts nothing. */
  empty: boolean;
}

/** Keywords kept next to a `$ref` in drafts that ignore its other siblings. */
const ANNOTATION_KEYWORDS = new Set(['title', 'description', 'default', 'examples', 'deprecated', 'readOnly', 'writeOnly']);
/** Keywords that only identify or annotate locations; dropped (their targets are inlined). */
const LOCATION_KEYWORDS = new Set([
  '$defs', 'definitions', '$id', 'id', '$anchor', '$dynamicAnchor', '$recursiveAnchor', '$vocabulary', '$comment',
]);

export function scanKeywords(host: KeywordHost, input: JsonObject, depth: number): NodeKeywords {
  const d = host.d;
  const found: NodeKeywords = {
    local: {},
    descNotes: [],
    ref: undefined,
    allOf: undefined,
    anyOf: undefined,
    oneOf: undefined,
    patternProperties: undefined,
    unevaluatedProperties: undefined,
    unevaluatedItems: undefined,
    inPlace: false,
    empty: false,
  };
  const ignoreSiblings = has(input, '$ref') && !d.refSiblings;
  for (const key of Object.keys(input)) {
    if (d.unknown.has(key) || LOCATION_KEYWORDS.has(key)) continue;
    if (ignoreSiblings && key !== '$ref' && !ANNOTATION_KEYWORDS.has(key) && !(key === '$schema' && depth === 0)) continue;
    scanKeyword(host, found, input, key, depth);
  }
  return found;
}

/** One keyword of the node: collected for the walk, turned into a note, or copied into `found.local`. */
function scanKeyword(host: KeywordHost, found: NodeKeywords, input: JsonObject, key: string, depth: number): void {
  const v = input[key];
  switch (key) {
    case '$ref':
      if (typeof v === 'string') {
        found.ref = v;
        found.inPlace = true;
      } else host.note('invalid $ref dropped');
      break;
    case 'allOf':
    case 'anyOf':
    case 'oneOf':
      if (Array.isArray(v) && v.length > 0) {
        found[key] = v;
        found.inPlace = true;
      } else host.note(`invalid ${key} dropped`);
      break;
    case 'not':
      found.inPlace = true;
      noteNot(host, v, found.descNotes);
      break;
    case 'if':
      found.inPlace = true;
      noteConditional(host, input, found.descNotes);
      break;
    case 'then':
    case 'else':
      break;
    case 'dependentSchemas':
      found.inPlace = true;
      if (isPlainObject(v)) noteDependentSchemas(host, v, found.descNotes);
      break;
    case 'patternProperties':
      if (isPlainObject(v)) found.patternProperties = v;
      break;
    case 'unevaluatedProperties':
    case 'unevaluatedItems':
      found[key] = v;
      break;
    case '$dynamicRef':
    case '$recursiveRef':
      found.inPlace = true;
      host.note(`${key} not followed; loosened to {}`);
      break;
    case '$schema':
      if (depth === 0 && typeof v === 'string') found.local.$schema = v;
      break;
    default:
      if (copyKeyword(host, key, v, found.local, input, depth) === 'empty') found.empty = true;
  }
}

/** `not` is dropped (only loosens); a `not` that excludes nothing (false, or a description alone) needs no note. */
function noteNot(host: KeywordHost, v: JsonValue, descNotes: string[]): void {
  if (v === false || (isPlainObject(v) && Object.keys(v).length === 1 && has(v, 'description'))) return;
  host.note('"not" dropped');
  descNotes.push(boundedNote(`Must not be: ${brief(v, 120)}.`));
}

/** `if`/`then`/`else` is dropped and described; an `if` alone constrains nothing. */
function noteConditional(host: KeywordHost, input: JsonObject, descNotes: string[]): void {
  if (!has(input, 'then') && !has(input, 'else')) return;
  host.note('if/then/else dropped');
  const parts = [`If ${brief(input.if, 60)}`];
  if (has(input, 'then')) parts.push(`then ${brief(input.then, 60)}`);
  if (has(input, 'else')) parts.push(`else ${brief(input.else, 60)}`);
  descNotes.push(boundedNote(`Conditional: ${parts.join(', ')}.`));
}
