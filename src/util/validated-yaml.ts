// Reads a YAML or JSON file and validates it against a JSON Schema, reporting
// every problem at once as `file:line:col: /json/pointer: what is wrong`
// (issue 2 item 2). Used for the config file, pack manifests and workflows.
import { readFileSync } from 'node:fs';
import { Ajv2020, type ErrorObject } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { isMap, isNode, isPair, isScalar, LineCounter, parseDocument, type Document } from 'yaml';

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(problems.join('\n'));
    this.name = 'ConfigError';
  }
}

const ajv = new Ajv2020({ allErrors: true, strict: false, allowUnionTypes: true });
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
  return pointer.slice(1).split('/').map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
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

function describeAjvError(e: ErrorObject): { pointer: string; message: string } {
  const p = e.params as Record<string, unknown>;
  switch (e.keyword) {
    case 'additionalProperties':
      return { pointer: `${e.instancePath}/${String(p.additionalProperty)}`, message: `unknown key "${String(p.additionalProperty)}"` };
    case 'required':
      return { pointer: e.instancePath, message: `missing required key "${String(p.missingProperty)}"` };
    case 'enum':
      return { pointer: e.instancePath, message: `must be one of ${(p.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}` };
    case 'pattern':
      return { pointer: e.instancePath, message: `does not match the expected form ${String(p.pattern)}` };
    default:
      return { pointer: e.instancePath, message: e.message ?? e.keyword };
  }
}

const compiled = new WeakMap<object, ReturnType<typeof ajv.compile>>();

/** Validates a located document; throws ConfigError listing every problem with its place. */
export function validateLocated<T>(doc: LocatedDocument, schema: object): T {
  let validate = compiled.get(schema);
  if (!validate) {
    validate = ajv.compile(schema);
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
