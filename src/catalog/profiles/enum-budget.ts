// OpenAI's enum budget (at most 1000 enum values in a schema, a string enum
// of more than 250 values at most 15,000 characters): a schema over it has
// its largest enums dropped, one at a time, until it fits. Dropping an enum
// only loosens; each drop is noted.
import type { JsonObject, JsonValue } from '../../contract/descriptor.js';
import { isPlainObject } from '../../util/json.js';
import { OPENAI } from './rules.js';

type Found = { node: JsonObject; path: string; values: number; length: number };

function enumsOf(schema: JsonObject): Found[] {
  const found: Found[] = [];
  const stack: Array<[JsonValue | undefined, string]> = [[schema, '']];
  while (stack.length > 0) {
    const [s, path] = stack.pop()!;
    if (!isPlainObject(s)) continue;
    if (Array.isArray(s.enum)) {
      const length = s.enum.reduce((n: number, v) => n + (typeof v === 'string' ? v.length : 0), 0);
      found.push({ node: s, path, values: s.enum.length, length });
    }
    for (const key of ['properties', '$defs'] as const) {
      const m = s[key];
      if (isPlainObject(m)) for (const [name, sub] of Object.entries(m)) stack.push([sub, `${path}/${key}/${name}`]);
    }
    if (s.items !== undefined) stack.push([s.items, `${path}/items`]);
    if (Array.isArray(s.anyOf)) s.anyOf.forEach((b, i) => stack.push([b, `${path}/anyOf/${i}`]));
  }
  return found;
}

const tooLong = (f: Found): boolean => f.values > OPENAI.largeEnum.values && f.length > OPENAI.largeEnum.maxLength;

/** Drops enums (largest first) until the schema is within OpenAI's enum budget; mutates `schema`. */
export function fitEnumBudget(schema: JsonObject, note: (path: string, what: string) => void): void {
  const found = enumsOf(schema).sort((a, b) => b.values - a.values);
  let total = found.reduce((n, f) => n + f.values, 0);
  for (const f of found) {
    if (total <= OPENAI.maxEnumValues && !tooLong(f)) continue;
    delete f.node.enum;
    if (Array.isArray(f.node.type) && f.node.type.length === 0) delete f.node.type;
    total -= f.values;
    note(f.path, `enum of ${f.values} values dropped (OpenAI's enum budget)`);
  }
}
