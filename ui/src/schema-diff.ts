// What the compact view loosened (docs/compact-view.md): the compact
// descriptor does not carry the compactor's notes, so the page compares the
// two schemas itself. A keyword the standard schema has at some place and the
// compact one lacks (or holds differently) is a loosening a model reading the
// compact view does not see; the tool page highlights it.

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

export interface Loosening {
  /** JSON pointer of the schema object holding the keyword ('' is the root). */
  pointer: string;
  keyword: string;
  kind: 'removed' | 'changed';
}

const isObject = (v: unknown): v is Record<string, Json> => typeof v === 'object' && v !== null && !Array.isArray(v);
const escapeSegment = (s: string): string => s.replace(/~/g, '~0').replace(/\//g, '~1');

/** Keywords whose values are schemas, or maps or lists of them: compared deeper rather than as values. */
const SCHEMA_MAPS = new Set(['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas']);
const SCHEMA_LISTS = new Set(['allOf', 'anyOf', 'oneOf', 'prefixItems']);
const SCHEMA_VALUES = new Set(['items', 'additionalProperties', 'not', 'if', 'then', 'else', 'contains', 'propertyNames', 'unevaluatedProperties', 'unevaluatedItems']);

function sameJson(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

export function loosenings(standard: unknown, compact: unknown): Loosening[] {
  const found: Loosening[] = [];
  const walk = (s: unknown, c: unknown, pointer: string): void => {
    if (!isObject(s)) return;
    const other = isObject(c) ? c : {};
    for (const [keyword, value] of Object.entries(s)) {
      const here = `${pointer}/${escapeSegment(keyword)}`;
      if (!(keyword in other)) {
        found.push({ pointer, keyword, kind: 'removed' });
      } else if (SCHEMA_MAPS.has(keyword) && isObject(value)) {
        const theirs = isObject(other[keyword]) ? (other[keyword] as Record<string, Json>) : {};
        for (const [name, sub] of Object.entries(value)) {
          if (!(name in theirs)) found.push({ pointer: here, keyword: name, kind: 'removed' });
          else walk(sub, theirs[name], `${here}/${escapeSegment(name)}`);
        }
      } else if (SCHEMA_LISTS.has(keyword) && Array.isArray(value)) {
        const theirs = Array.isArray(other[keyword]) ? (other[keyword] as Json[]) : [];
        if (theirs.length !== value.length) found.push({ pointer, keyword, kind: 'changed' });
        else value.forEach((sub, i) => walk(sub, theirs[i], `${here}/${i}`));
      } else if (SCHEMA_VALUES.has(keyword) && isObject(value)) {
        walk(value, other[keyword], here);
      } else if (!sameJson(value, other[keyword])) {
        found.push({ pointer, keyword, kind: 'changed' });
      }
    }
  };
  walk(standard, compact, '');
  return found;
}
