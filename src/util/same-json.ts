// Deep equality of JSON data with key order included: equal means "serializes
// to the same bytes". Used wherever a re-read must prove a tool unchanged
// (the MCP source's re-read, the catalog's rebuild) without serializing it.
// Not compact/schema-util's deepEqual, which ignores key order: that one
// compares JSON values, this one the bytes they serialize to. A value held
// as text (json-text.ts) is compared as its text when both sides hold one.
import { sameJsonText } from './json-text.js';

/** Deep equality of JSON data, key order included (it decides the bytes served). */
export function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!sameJson(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  if (ka.length !== kb.length) return false;
  for (let i = 0; i < ka.length; i++) {
    const k = ka[i];
    if (k !== kb[i]) return false;
    const sameText = sameJsonText(a, b, k);
    if (sameText !== undefined) {
      if (!sameText) return false;
    } else if (!sameJson((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k])) return false;
  }
  return true;
}
