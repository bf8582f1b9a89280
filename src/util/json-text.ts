// JSON values held as their text, parsed on use. An upstream's schemas are
// the bulk of a large catalog (28 MB for 10,000 GitHub-sized tools), and
// held as parsed objects they cost the heap several times their text: an
// object per schema node and a V8 hidden class per distinct set of keys,
// which every full garbage collection marks again (docs/benchmarks.md,
// "Schemas held as text"). A string is one object the collector does not
// look into.
//
// `setJsonText(o, key, text)` makes `o[key]` an enumerable property whose
// value is `JSON.parse(text)`, made anew on each read: `JSON.stringify(o)`
// and `Object.keys(o)` see it as an ordinary field, and nothing keeps the
// parsed value beyond the reader that asked for it. Readers that use the value
// more than once read it once into a local. `jsonTextOf(o, key)` gives the
// text back, so that what only needs the text (serializing, comparing,
// scanning for credentials) never parses.
import type { JsonObject } from '../contract/descriptor.js';

const TEXTS = Symbol('toolhost.jsonTexts');

type WithTexts = { [TEXTS]?: Record<string, string> };

/** Defines `target[key]` as the JSON value of `text` (parsed on each read), in the key order of assignment. */
export function setJsonText(target: object, key: string, text: string): void {
  const holder = target as WithTexts;
  let texts = holder[TEXTS];
  if (texts === undefined) {
    texts = {};
    Object.defineProperty(target, TEXTS, { value: texts, enumerable: false });
  }
  texts[key] = text;
  Object.defineProperty(target, key, {
    enumerable: true,
    configurable: true,
    get: () => JSON.parse(text) as JsonObject,
  });
}

/** The text `target[key]` is held as, when it is held as text. */
export function jsonTextOf(target: object, key: string): string | undefined {
  return (target as WithTexts)[TEXTS]?.[key];
}

/** Whether `target[key]` is present, without parsing a value held as text. */
export function hasValue(target: object, key: string): boolean {
  return jsonTextOf(target, key) !== undefined || (target as Record<string, unknown>)[key] !== undefined;
}

/** `source[key]` onto `target`: as the same text when held as text, else as the same value. */
export function copyValue(source: object, target: object, key: string): void {
  const text = jsonTextOf(source, key);
  if (text !== undefined) setJsonText(target, key, text);
  else (target as Record<string, unknown>)[key] = (source as Record<string, unknown>)[key];
}
