// Small helpers for JSON-shaped data, the one home of each: the plain-object
// test, own-property assignment that is safe for untrusted key names, and
// JSON-pointer segment escaping (RFC 6901). Used by the compact view, the
// connector's schema conversion, credential redaction and config locations.
import type { JsonObject, JsonValue } from '../contract/descriptor.js';

/** An object that is neither null nor an array (what JSON calls an object). */
export function isPlainObject(v: JsonValue | undefined): v is JsonObject;
export function isPlainObject(v: unknown): v is Record<string, unknown>;
export function isPlainObject(v: unknown): boolean {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * Set an own property, also for the name `__proto__` (which plain assignment
 * would treat as the prototype): keys from upstream data are untrusted.
 * Plain assignment otherwise, which is the fast path of a hot loop.
 */
export function setOwn(o: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(o, key, { value, writable: true, enumerable: true, configurable: true });
  else o[key] = value;
}

/** One JSON-pointer reference token, escaped (`~` as `~0`, `/` as `~1`). */
export function escapePointerSegment(s: string): string {
  return s.replace(/~/g, '~0').replace(/\//g, '~1');
}

/** One JSON-pointer reference token, unescaped (`~1` first, so `~01` stays `~1`). */
export function unescapePointerSegment(s: string): string {
  return s.replace(/~1/g, '/').replace(/~0/g, '~');
}
