// Keeps credential material out of descriptors (docs/contract.md "The descriptor": a descriptor must not
// carry credential material"). Upstream data is untrusted: a schema `default`
// may hold a real token. Two checks, anywhere at any depth: a secret-named key
// with a string value, and a string shaped like a credential. Inside schema
// data keywords (default, examples, const, enum) the whole keyword is dropped,
// which only loosens the schema; elsewhere the string is replaced. The shapes
// are util/scrub.ts's, the host's one list.
import { isCredentialName } from '../contract/credential-names.js';
import type { JsonObject, JsonValue } from '../contract/descriptor.js';
import { escapePointerSegment } from '../util/json.js';
import { looksLikeSecret, REDACTED, replaceCredentialShapes } from '../util/scrub.js';

const SCHEMA_DATA_KEYWORDS = new Set(['default', 'examples', 'const', 'enum', 'example']);

/** A key whose string value is a credential by its name alone (the whole name, so "keyword" is no secret key). */
export function isSecretKey(key: string): boolean {
  return isCredentialName(key);
}

/** True when any string in the value is secret-shaped or sits under a secret-named key. */
function containsSecret(value: JsonValue, key?: string): boolean {
  if (typeof value === 'string') return (key !== undefined && isSecretKey(key)) || looksLikeSecret(value);
  if (Array.isArray(value)) return value.some((v) => containsSecret(v));
  if (value && typeof value === 'object') return Object.entries(value).some(([k, v]) => containsSecret(v, k));
  return false;
}

export interface RedactResult<T> {
  value: T;
  /** JSON pointers of what was removed or replaced; empty when the value was clean. */
  redacted: string[];
}

function redactValue(value: JsonValue, pointer: string, key: string | undefined, found: string[]): JsonValue {
  if (typeof value === 'string') {
    if (key !== undefined && isSecretKey(key)) {
      found.push(pointer);
      return REDACTED;
    }
    if (!looksLikeSecret(value)) return value;
    found.push(pointer);
    // Free text keeps its words; only the credential-shaped runs go.
    return replaceCredentialShapes(value);
  }
  if (Array.isArray(value)) return value.map((v, i) => redactValue(v, `${pointer}/${i}`, undefined, found));
  if (value && typeof value === 'object') {
    const out: JsonObject = {};
    for (const [k, v] of Object.entries(value)) {
      const p = `${pointer}/${escapePointerSegment(k)}`;
      if (SCHEMA_DATA_KEYWORDS.has(k) && containsSecret(v)) {
        found.push(p);
        continue;
      }
      out[k] = redactValue(v, p, k, found);
    }
    return out;
  }
  return value;
}

/**
 * Returns a copy with credential material removed, and where it was. The input
 * is not mutated. Cheap when clean: callers cache by content.
 */
export function redactCredentials<T extends JsonValue>(value: T): RedactResult<T> {
  const redacted: string[] = [];
  const out = redactValue(value, '', undefined, redacted) as T;
  return { value: redacted.length === 0 ? value : out, redacted };
}
