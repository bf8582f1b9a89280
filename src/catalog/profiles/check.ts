// One checker per profile: does a served input schema satisfy the
// provider's published rules (rules.ts)? Independent of the rewriters, so
// a rewrite that misses a rule is caught, and a tool whose schema breaks a
// rule is marked as not fitting rather than served as if it did.
import { escapePointerSegment, isPlainObject } from '../../util/json.js';
import { GEMINI, OPENAI, type ProfileId } from './rules.js';

/** A rule a served schema breaks, at a JSON pointer into it. */
export interface Breach {
  path: string;
  rule: string;
}

type Node = Record<string, unknown>;
const at = (path: string, key: string): string => `${path}/${escapePointerSegment(key)}`;

export function checkProfileSchema(profile: ProfileId, schema: unknown): Breach[] {
  if (profile === 'openai-strict') return checkOpenAi(schema);
  if (profile === 'gemini') return checkGemini(schema);
  return checkAnthropic(schema);
}

function checkAnthropic(schema: unknown): Breach[] {
  return isPlainObject(schema) && schema.type === 'object' ? [] : [{ path: '', rule: 'input_schema must be a JSON Schema of type "object"' }];
}

interface Tally {
  properties: number;
  stringLength: number;
  enumValues: number;
}

function checkOpenAi(schema: unknown): Breach[] {
  const out: Breach[] = [];
  if (!isPlainObject(schema) || schema.type !== 'object') out.push({ path: '', rule: 'the root schema must be an object (type "object")' });
  if (isPlainObject(schema) && 'anyOf' in schema) out.push({ path: '', rule: 'the root schema must not be anyOf' });
  const tally: Tally = { properties: 0, stringLength: 0, enumValues: 0 };
  let deepest = 0;
  const defs = isPlainObject(schema) && isPlainObject(schema.$defs) ? schema.$defs : {};
  const visit = (s: unknown, path: string, depth: number): void => {
    if (!isPlainObject(s)) return void out.push({ path, rule: 'every schema must be an object (no boolean schemas)' });
    if ('$ref' in s) {
      const name = typeof s.$ref === 'string' && s.$ref.startsWith('#/$defs/') ? s.$ref.slice('#/$defs/'.length) : undefined;
      if (name === undefined || !Object.hasOwn(defs, name)) out.push({ path: at(path, '$ref'), rule: 'a $ref must name a definition in the root $defs' });
      if (Object.keys(s).length > 1) out.push({ path, rule: 'a $ref stands alone' });
      return;
    }
    for (const k of Object.keys(s)) if (!OPENAI.keywords.has(k) && !(k === '$defs' && path === '')) out.push({ path: at(path, k), rule: `keyword "${k}" is not supported` });
    const types = typeList(s.type);
    if (types === undefined && !('anyOf' in s) && !('enum' in s) && !('const' in s)) out.push({ path, rule: 'every schema needs a type (or anyOf, enum, const)' });
    if (types !== undefined) {
      const bad = types.filter((t) => !OPENAI.types.has(t));
      if (bad.length > 0 || (types.length > 1 && !(types.length === 2 && types.includes('null')))) out.push({ path: at(path, 'type'), rule: 'type must be one supported type, or one and "null"' });
    }
    if (typeof s.format === 'string' && !OPENAI.formats.has(s.format)) out.push({ path: at(path, 'format'), rule: `format "${s.format}" is not supported` });
    for (const key of ['enum', 'const'] as const) {
      if (!(key in s)) continue;
      const values = key === 'enum' ? (Array.isArray(s.enum) ? s.enum : []) : [s.const];
      if (values.some((v) => typeof v === 'object' && v !== null)) out.push({ path: at(path, key), rule: `${key} values must be strings, numbers, booleans or null` });
      const strings = values.filter((v): v is string => typeof v === 'string');
      const length = strings.reduce((n, v) => n + v.length, 0);
      tally.stringLength += length;
      if (key === 'enum') {
        tally.enumValues += values.length;
        if (strings.length > OPENAI.largeEnum.values && length > OPENAI.largeEnum.maxLength) {
          out.push({ path: at(path, 'enum'), rule: `a string enum of more than ${OPENAI.largeEnum.values} values may total at most ${OPENAI.largeEnum.maxLength} characters` });
        }
      }
    }
    const isObject = types?.includes('object') ?? false;
    const objectDepth = isObject ? depth + 1 : depth;
    deepest = Math.max(deepest, objectDepth);
    if (isObject) checkOpenAiObject(s, path, out);
    if (isPlainObject(s.properties)) {
      for (const [name, sub] of Object.entries(s.properties)) {
        tally.properties++;
        tally.stringLength += name.length;
        visit(sub, at(at(path, 'properties'), name), objectDepth);
      }
    }
    if (types?.includes('array') && !('items' in s)) out.push({ path, rule: 'an array schema needs items' });
    if ('items' in s) visit(s.items, at(path, 'items'), objectDepth);
    if (Array.isArray(s.anyOf)) s.anyOf.forEach((b, i) => visit(b, at(at(path, 'anyOf'), String(i)), objectDepth));
  };
  visit(schema, '', 0);
  for (const [name, def] of Object.entries(defs)) {
    tally.stringLength += name.length;
    visit(def, at('/$defs', name), 0);
  }
  if (tally.properties > OPENAI.maxProperties) out.push({ path: '', rule: `at most ${OPENAI.maxProperties} object properties in total (has ${tally.properties})` });
  if (deepest > OPENAI.maxObjectDepth) out.push({ path: '', rule: `at most ${OPENAI.maxObjectDepth} levels of object nesting (has ${deepest})` });
  if (tally.stringLength > OPENAI.maxStringLength) out.push({ path: '', rule: `property names, enum and const values may total at most ${OPENAI.maxStringLength} characters (has ${tally.stringLength})` });
  if (tally.enumValues > OPENAI.maxEnumValues) out.push({ path: '', rule: `at most ${OPENAI.maxEnumValues} enum values in total (has ${tally.enumValues})` });
  return out;
}

function checkOpenAiObject(s: Node, path: string, out: Breach[]): void {
  if (s.additionalProperties !== false) out.push({ path, rule: 'every object needs additionalProperties: false' });
  const names = isPlainObject(s.properties) ? Object.keys(s.properties) : [];
  const required = new Set(Array.isArray(s.required) ? s.required : []);
  const missing = names.filter((n) => !required.has(n));
  if (missing.length > 0) out.push({ path, rule: `every property must be required (not: ${missing.slice(0, 5).join(', ')})` });
}

function checkGemini(schema: unknown): Breach[] {
  const out: Breach[] = [];
  if (!isPlainObject(schema) || typeName(schema.type) !== 'object') out.push({ path: '', rule: 'parameters must be a schema of type OBJECT' });
  if (isPlainObject(schema) && isPlainObject(schema.properties)) {
    for (const name of Object.keys(schema.properties)) {
      if (!GEMINI.parameterName.test(name)) out.push({ path: at('/properties', name), rule: 'parameter names start with a letter or underscore and hold only a-z, A-Z, 0-9 and underscores, at most 64' });
    }
  }
  const visit = (s: unknown, path: string, nested: boolean): void => {
    if (!isPlainObject(s)) return void out.push({ path, rule: 'every schema must be a Schema object' });
    for (const k of Object.keys(s)) if (!GEMINI.keywords.has(k)) out.push({ path: at(path, k), rule: `field "${k}" is not part of the Schema object` });
    const type = typeName(s.type);
    if (Array.isArray(s.anyOf)) {
      if (path === '') out.push({ path: at(path, 'anyOf'), rule: 'parameters must be a schema of type OBJECT' });
      s.anyOf.forEach((b, i) => visit(b, at(at(path, 'anyOf'), String(i)), nested));
    } else if (type === undefined || !GEMINI.types.has(type)) out.push({ path: at(path, 'type'), rule: 'every schema needs exactly one type (STRING, NUMBER, INTEGER, BOOLEAN, ARRAY, OBJECT)' });
    if ('nullable' in s && typeof s.nullable !== 'boolean') out.push({ path: at(path, 'nullable'), rule: 'nullable must be a boolean' });
    if ('enum' in s && (type !== 'string' || !Array.isArray(s.enum) || !s.enum.every((v) => typeof v === 'string'))) out.push({ path: at(path, 'enum'), rule: 'enum holds strings, on a STRING schema' });
    if (typeof s.format === 'string' && !(GEMINI.formats[type ?? '']?.has(s.format) ?? false)) out.push({ path: at(path, 'format'), rule: `format "${s.format}" is not supported for ${type ?? 'this type'}` });
    if (type === 'array' && !('items' in s)) out.push({ path, rule: 'an ARRAY schema needs items' });
    if (type === 'object' && nested && !(isPlainObject(s.properties) && Object.keys(s.properties).length > 0)) out.push({ path, rule: 'properties should be non-empty for OBJECT type' });
    if (Array.isArray(s.required) && s.required.some((n) => typeof n !== 'string' || !(isPlainObject(s.properties) && Object.hasOwn(s.properties, n)))) {
      out.push({ path: at(path, 'required'), rule: 'required names a property that is not declared' });
    }
    if (isPlainObject(s.properties)) for (const [name, sub] of Object.entries(s.properties)) visit(sub, at(at(path, 'properties'), name), true);
    if ('items' in s) visit(s.items, at(path, 'items'), true);
  };
  visit(schema, '', false);
  return out;
}

function typeList(t: unknown): string[] | undefined {
  if (typeof t === 'string') return [t];
  if (Array.isArray(t) && t.every((x) => typeof x === 'string')) return t as string[];
  return undefined;
}

/** Gemini spells types in upper case in its reference and accepts the OpenAPI lower case. */
function typeName(t: unknown): string | undefined {
  return typeof t === 'string' ? t.toLowerCase() : undefined;
}
