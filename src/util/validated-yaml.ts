// Reads a YAML or JSON file and validates it against a JSON Schema, reporting
// every problem at once as `file:line:col: /json/pointer: what is wrong`,
// so one edit fixes them all. Used for the config file, pack manifests, workflows and the
// keys file, whose schemas are TypeBox definitions (schema-builders.ts).
import { readFileSync } from 'node:fs';
import { Ajv2020, type ErrorObject } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { isMap, isNode, isPair, isScalar, LineCounter, parseDocument, type Document } from 'yaml';
import { unescapePointerSegment } from './json.js';

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(problems.join('\n'));
    this.name = 'ConfigError';
  }
}

// `verbose` gives each error its parent schema, which names the keys an object may have (for "did you mean").
const ajv = new Ajv2020({ allErrors: true, strict: false, allowUnionTypes: true, verbose: true });
// ajv-formats is CommonJS; its default export arrives wrapped under ESM.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (a: Ajv2020) => Ajv2020;
addFormats(ajv);

export interface LocatedDocument {
  file: string;
  value: unknown;
  /** `file:line:col` of the node at a JSON pointer (or of its nearest existing parent). */
  locate(pointer: string): string;
}

function pointerSegments(pointer: string): string[] {
  if (pointer === '' || pointer === '/') return [];
  return pointer.slice(1).split('/').map(unescapePointerSegment);
}

function makeLocator(file: string, doc: Document, lc: LineCounter): (pointer: string) => string {
  return (pointer) => {
    let node: unknown = doc.contents;
    let offset = (doc.contents as { range?: [number, number, number] } | null)?.range?.[0] ?? 0;
    for (const seg of pointerSegments(pointer)) {
      if (isMap(node)) {
        const pair = node.items.find((p) => isPair(p) && isScalar(p.key) && String(p.key.value) === seg);
        if (!pair) break;
        offset = (pair.key as { range?: [number, number, number] }).range?.[0] ?? offset;
        node = pair.value;
      } else if (isNode(node) && 'items' in node && Array.isArray((node as { items: unknown[] }).items)) {
        const item = (node as { items: unknown[] }).items[Number(seg)];
        if (!isNode(item)) break;
        offset = item.range?.[0] ?? offset;
        node = item;
      } else break;
    }
    const { line, col } = lc.linePos(offset);
    return `${file}:${line}:${col}`;
  };
}

/** Parses YAML/JSON text; syntax errors become ConfigError lines. */
export function parseLocated(file: string, text: string): LocatedDocument {
  const lc = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lc, uniqueKeys: true });
  if (doc.errors.length > 0) {
    throw new ConfigError(
      doc.errors.map((e) => {
        const pos = e.linePos?.[0];
        return `${file}:${pos?.line ?? 1}:${pos?.col ?? 1}: invalid YAML: ${e.message.split('\n')[0].replace(/ at line \d+, column \d+:?$/, '')}`;
      }),
    );
  }
  return { file, value: doc.toJS({ maxAliasCount: 100 }), locate: makeLocator(file, doc, lc) };
}

export function readLocated(file: string): LocatedDocument {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new ConfigError([`${file}: cannot read file: ${(err as NodeJS.ErrnoException).code ?? String(err)}`]);
  }
  return parseLocated(file, text);
}

/** Edit distance (insertions, deletions, substitutions, adjacent swaps) between two short strings. */
function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) d[0][j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[a.length][b.length];
}

/** The known key an unknown one was most likely meant to be, when one is close enough to say so. */
export function closestKey(unknown: string, known: readonly string[]): string | undefined {
  const lower = unknown.toLowerCase();
  const sameButCase = known.find((k) => k.toLowerCase() === lower);
  if (sameButCase !== undefined) return sameButCase;
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const k of known) {
    const distance = editDistance(lower, k.toLowerCase());
    if (distance < bestDistance) [best, bestDistance] = [k, distance];
  }
  // Two edits for words of five letters or more, one below that: close enough to be a typo, not another word.
  return best !== undefined && bestDistance <= (unknown.length >= 5 ? 2 : 1) ? best : undefined;
}

function describeAjvError(e: ErrorObject): { pointer: string; message: string } {
  const p = e.params as Record<string, unknown>;
  switch (e.keyword) {
    case 'additionalProperties': {
      const key = String(p.additionalProperty);
      const properties = (e.parentSchema as { properties?: Record<string, unknown> } | undefined)?.properties;
      const suggestion = properties ? closestKey(key, Object.keys(properties)) : undefined;
      return { pointer: `${e.instancePath}/${key}`, message: `unknown key "${key}"${suggestion !== undefined ? `; did you mean "${suggestion}"?` : ''}` };
    }
    case 'required':
      return { pointer: e.instancePath, message: `missing required key "${String(p.missingProperty)}"` };
    case 'enum':
      return { pointer: e.instancePath, message: `must be one of ${(p.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}` };
    case 'pattern':
      // The value is never echoed: a key pasted where its hash belongs must not reach a log.
      if (/\/keyHash$/.test(e.instancePath)) {
        return { pointer: e.instancePath, message: 'is not a key hash (sha256:<64 hex digits>); if this is the API key itself, run `toolhost hash-key` and put its output here, then replace the key: it has been stored in plain text' };
      }
      return { pointer: e.instancePath, message: `does not match the expected form ${String(p.pattern)}` };
    case 'not': {
      // A key that excludes another says so in its schema's description.
      const description = (e.parentSchema as { description?: unknown } | undefined)?.description;
      return { pointer: e.instancePath, message: typeof description === 'string' ? description : 'is not allowed here' };
    }
    default:
      return { pointer: e.instancePath, message: e.message ?? e.keyword };
  }
}

const compiled = new WeakMap<object, ReturnType<typeof ajv.compile>>();

/** Validates a located document; throws ConfigError listing every problem with its place. */
export function validateLocated<T>(doc: LocatedDocument, schema: object): T {
  let validate = compiled.get(schema);
  if (!validate) {
    // As plain JSON data: TypeBox marks its schemas with symbol keys (Kind,
    // OptionalKind); ajv compiles exactly what toolhost.schema.json holds.
    validate = ajv.compile(JSON.parse(JSON.stringify(schema)) as object);
    compiled.set(schema, validate);
  }
  if (!validate(doc.value)) {
    const seen = new Set<string>();
    const lines: string[] = [];
    // oneOf/anyOf failures repeat their branches' errors; keep the most specific lines.
    for (const e of validate.errors ?? []) {
      if (e.keyword === 'oneOf' || e.keyword === 'anyOf' || e.keyword === 'if') continue;
      const { pointer, message } = describeAjvError(e);
      const line = `${doc.locate(pointer)}: ${pointer || '/'}: ${message}`;
      if (!seen.has(line)) {
        seen.add(line);
        lines.push(line);
      }
    }
    throw new ConfigError(lines.length > 0 ? lines : [`${doc.file}: invalid`]);
  }
  return doc.value as T;
}

/** A place inside a document, for later semantic errors. */
export function placeOf(doc: LocatedDocument, pointer: string): string {
  return `${doc.locate(pointer)}: ${pointer || '/'}`;
}
