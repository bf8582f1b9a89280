// OpenAPI Schema Objects (3.0 and 3.1) to self-contained JSON Schema 2020-12.
//
// Circular references: the document is dereferenced by swagger-parser with
// `circular: true`, so every internal $ref is replaced by the object it
// points to and a recursive type becomes a cycle of JS objects. (`circular:
// "ignore"` is not used: in swagger-parser 13 it re-crawls shared subtrees,
// which is exponential on documents whose schemas share references
// heavily.) findCycleTargets marks, once per document, the objects that close
// a cycle; the converter inlines everything else and turns each of those into
// an entry of the output schema's own `$defs` (named after its
// `components.schemas` key, else `schema`, with `_2`... on clashes), referenced
// as `#/$defs/<name>`. Every output schema therefore resolves within itself.
// External refs cannot occur with external resolution off; if one is met, it
// becomes `{}` (accept anything) with a warning.
//
// Rules (whitelist: anything not listed is dropped):
// - `nullable: true` → `type` gains "null" (and `enum` gains null); without a
//   `type` but with a `$ref`/composition, the schema becomes
//   `anyOf: [<schema>, {type: "null"}]`.
// - `example` → `examples: [example]` (when `examples` is absent).
// - boolean `exclusiveMinimum/Maximum` (3.0) → numeric form taking the value of
//   `minimum/maximum`; `false` is dropped.
// - dropped: `discriminator`, `xml`, `externalDocs`, `x-*`, `$schema`, `$id`,
//   `$anchor`, `$dynamic*`, nested `$defs`/`definitions` (their contents are
//   inlined where used), unknown keywords, malformed values (a `pattern` that
//   is not a valid `u` regex, negative lengths, unknown types).
// - request schemas: `readOnly` properties are removed from `required`;
//   response schemas: `writeOnly` properties likewise. The properties stay.
// - credential hygiene: `default`/`examples`/`const` are dropped on properties whose
//   name looks like a credential (password, secret, token, api key, ...) and
//   on `format: password` schemas, so no upstream sample secret is copied.
// - in 3.0 documents the siblings of a remaining `$ref` are ignored (as 3.0 specifies).
// - size: at most MAX_SCHEMA_NODES schema nodes per tool schema (see below).
import type { JsonObject, JsonValue } from '../../contract/descriptor.js';
import { mentionsCredential } from '../../contract/credential-names.js';
import { isPlainObject, setOwn, unescapePointerSegment } from '../../util/json.js';
import { copyAssertions, schemaTypes, validRegex } from './schema-keywords.js';

export type OasVersion = '3.0' | '3.1';
export type SchemaMode = 'request' | 'response';

export interface ConvertContext {
  /** The dereferenced document; remaining local `$ref`s are JSON pointers into it. */
  root: unknown;
  version: OasVersion;
  mode: SchemaMode;
  /** Output `$defs`, shared by every schema converted into one tool schema. */
  defs: Record<string, JsonObject | boolean>;
  /** pointer → def name */
  defNames: Map<string, string>;
  warnings: string[];
  /** Schema nodes still allowed for this root schema (see MAX_SCHEMA_NODES). */
  budget: number;
  /** For warnings: which operation and which schema. */
  label: string;
  /** Objects of the dereferenced document that close a cycle (findCycleTargets). */
  cycleTargets: ReadonlySet<object>;
  /** Names for def entries: `components.schemas` object → its key. */
  objectNames: ReadonlyMap<object, string>;
  /** Per output schema: cycle target → its `$defs` name. */
  defIds: Map<object, string>;
}

export interface DocumentGraph {
  cycleTargets: ReadonlySet<object>;
  objectNames: ReadonlyMap<object, string>;
}

/**
 * The objects that close a cycle in the (dereferenced, possibly cyclic)
 * document: targets of DFS back edges. Every cycle contains one, so stopping
 * at them makes conversion finite. Iterative, each object visited once.
 */
export function findCycleTargets(root: unknown): Set<object> {
  const GRAY = 1;
  const BLACK = 2;
  const state = new Map<object, number>();
  const targets = new Set<object>();
  const stack: { node: object; children: unknown[]; i: number }[] = [];
  const push = (n: object) => {
    state.set(n, GRAY);
    stack.push({ node: n, children: Array.isArray(n) ? n : Object.values(n), i: 0 });
  };
  if (typeof root === 'object' && root !== null) push(root);
  while (stack.length > 0) {
    const top = stack[stack.length - 1];
    if (top.i >= top.children.length) {
      state.set(top.node, BLACK);
      stack.pop();
      continue;
    }
    const child = top.children[top.i++];
    if (typeof child !== 'object' || child === null) continue;
    const st = state.get(child);
    if (st === undefined) push(child);
    else if (st === GRAY) targets.add(child);
  }
  return targets;
}

export function analyzeDocument(api: Record<string, unknown>): DocumentGraph {
  const objectNames = new Map<object, string>();
  const components = isPlainObject(api.components) ? api.components : {};
  if (isPlainObject(components.schemas)) {
    for (const [name, schema] of Object.entries(components.schemas)) {
      if (typeof schema === 'object' && schema !== null && !objectNames.has(schema)) objectNames.set(schema, name);
    }
  }
  return { cycleTargets: findCycleTargets(api), objectNames };
}

/**
 * Inlining (by swagger-parser) turns a document's shared schemas into a tree;
 * a document whose schemas reference each other many times over could
 * expand exponentially. Past this many nodes in one tool schema the deeper
 * parts become `{}` (accept anything: looser, never stricter), with a warning.
 */
export const MAX_SCHEMA_NODES = 20_000;

export function newConvertContext(
  root: unknown,
  version: OasVersion,
  mode: SchemaMode,
  warnings: string[],
  label = 'schema',
  graph: DocumentGraph = { cycleTargets: new Set(), objectNames: new Map() },
): ConvertContext {
  return {
    root,
    version,
    mode,
    defs: {},
    defNames: new Map(),
    warnings,
    budget: MAX_SCHEMA_NODES,
    label,
    cycleTargets: graph.cycleTargets,
    objectNames: graph.objectNames,
    defIds: new Map(),
  };
}

const SCHEMA_MAP_KEYWORDS = ['properties', 'patternProperties', 'dependentSchemas'] as const;
const SCHEMA_KEYWORDS = [
  'additionalProperties',
  'not',
  'if',
  'then',
  'else',
  'contains',
  'propertyNames',
  'unevaluatedItems',
  'unevaluatedProperties',
  'contentSchema',
] as const;
const SCHEMA_ARRAY_KEYWORDS = ['allOf', 'anyOf', 'oneOf', 'prefixItems'] as const;
const VALUE_KEYWORDS = ['enum', 'const', 'default'] as const;

/**
 * Upstream data (enum/const/default/examples) as JSON: a deep copy that drops
 * functions, cycles and non-finite numbers and writes dates as ISO strings.
 * Not the compact view's copy of a JSON tree (compact/size.ts): this one
 * takes any JavaScript value the YAML parser may have produced.
 */
export function toJsonData(v: unknown, seen: Set<unknown> = new Set()): JsonValue | undefined {
  if (v === null || typeof v === 'string' || typeof v === 'boolean') return v;
  if (typeof v === 'number') return Number.isFinite(v) ? v : undefined;
  if (v instanceof Date) return v.toISOString();
  if (typeof v !== 'object') return undefined;
  if (seen.has(v)) return undefined;
  seen.add(v);
  try {
    if (Array.isArray(v)) {
      const out: JsonValue[] = [];
      for (const item of v) {
        const c = toJsonData(item, seen);
        out.push(c === undefined ? null : c);
      }
      return out;
    }
    const out: Record<string, JsonValue> = {};
    for (const [k, item] of Object.entries(v)) {
      const c = toJsonData(item, seen);
      if (c !== undefined) setOwn(out, k, c);
    }
    return out;
  } finally {
    seen.delete(v);
  }
}

/** Resolves a local `#/a/b` pointer against the document, or undefined. */
export function resolvePointer(root: unknown, ref: string): unknown {
  if (!ref.startsWith('#')) return undefined;
  let frag = ref.slice(1);
  try {
    frag = decodeURIComponent(frag);
  } catch {
    return undefined;
  }
  if (frag === '') return root;
  if (!frag.startsWith('/')) return undefined;
  let node: unknown = root;
  for (const raw of frag.slice(1).split('/')) {
    const token = unescapePointerSegment(raw);
    if (Array.isArray(node)) {
      if (!/^(0|[1-9][0-9]*)$/.test(token)) return undefined;
      node = node[Number(token)];
    } else if (isPlainObject(node)) {
      if (!Object.prototype.hasOwnProperty.call(node, token)) return undefined;
      node = node[token];
    } else {
      return undefined;
    }
  }
  return node;
}

function uniqueDefName(raw: string, ctx: ConvertContext): string {
  let base = raw.replace(/[^A-Za-z0-9_.-]+/g, '_').slice(0, 64);
  if (base === '' || base === '_') base = 'schema';
  let name = base;
  for (let n = 2; Object.prototype.hasOwnProperty.call(ctx.defs, name); n++) name = `${base}_${n}`;
  return name;
}

function defNameFor(ref: string, ctx: ConvertContext): string {
  const existing = ctx.defNames.get(ref);
  if (existing) return existing;
  const tokens = ref.replace(/^#\/?/, '').split('/');
  const name = uniqueDefName(unescapePointerSegment(tokens[tokens.length - 1] ?? ''), ctx);
  ctx.defNames.set(ref, name);
  return name;
}

/** A cycle-closing object: converted once into `$defs`, referenced everywhere. */
function objectToDef(node: Record<string, unknown>, ctx: ConvertContext): JsonObject {
  const known = ctx.defIds.get(node);
  if (known) return { $ref: `#/$defs/${known}` };
  const name = uniqueDefName(ctx.objectNames.get(node) ?? 'schema', ctx);
  ctx.defIds.set(node, name);
  ctx.defs[name] = true; // placeholder while converting
  ctx.defs[name] = convertNode(node, ctx);
  return { $ref: `#/$defs/${name}` };
}

/** Follows a chain of pure `$ref`s, returning the first non-ref target (or undefined on a cycle/miss). */
function resolveRefChain(root: unknown, ref: string): unknown {
  const seen = new Set<string>();
  let current = ref;
  for (;;) {
    if (seen.has(current)) return undefined;
    seen.add(current);
    const target = resolvePointer(root, current);
    if (isPlainObject(target) && typeof target.$ref === 'string' && Object.keys(target).length === 1) {
      current = target.$ref;
      continue;
    }
    return target;
  }
}

function refToDef(ref: string, ctx: ConvertContext): JsonObject {
  if (!ref.startsWith('#')) {
    ctx.warnings.push(`external $ref ${JSON.stringify(ref.slice(0, 120))} left unresolved (accepts any value)`);
    return {};
  }
  const known = ctx.defNames.get(ref);
  if (known) return { $ref: `#/$defs/${known}` };
  const target = resolveRefChain(ctx.root, ref);
  if (target === undefined) {
    ctx.warnings.push(`$ref ${JSON.stringify(ref.slice(0, 120))} does not resolve (accepts any value)`);
    return {};
  }
  const name = defNameFor(ref, ctx);
  ctx.defs[name] = true; // placeholder while converting, for cycles
  ctx.defs[name] = convertSchema(target, ctx);
  return { $ref: `#/$defs/${name}` };
}

function isRefTo(node: unknown): string | undefined {
  return isPlainObject(node) && typeof node.$ref === 'string' ? node.$ref : undefined;
}

/** Whether a property's source schema carries readOnly/writeOnly (following a remaining $ref). */
function hasFlag(node: unknown, flag: 'readOnly' | 'writeOnly', root: unknown): boolean {
  if (!isPlainObject(node)) return false;
  if (node[flag] === true) return true;
  const ref = isRefTo(node);
  if (ref) {
    const target = resolveRefChain(root, ref);
    return isPlainObject(target) && target[flag] === true;
  }
  return false;
}

/**
 * Converts one OpenAPI schema to JSON Schema 2020-12. `propertyName`, when
 * the schema is the value of a property (or parameter), drives the
 * credential hygiene rule.
 */
export function convertSchema(node: unknown, ctx: ConvertContext, propertyName?: string): JsonObject | boolean {
  if (typeof node === 'boolean') return node;
  if (!isPlainObject(node)) return {};
  if (ctx.cycleTargets.has(node)) return objectToDef(node, ctx);
  return convertNode(node, ctx, propertyName);
}

function convertNode(node: Record<string, unknown>, ctx: ConvertContext, propertyName?: string): JsonObject | boolean {
  if (--ctx.budget < 0) {
    if (ctx.budget === -1) ctx.warnings.push(`${ctx.label}: more than ${MAX_SCHEMA_NODES} schema nodes; the deeper parts accept any value`);
    return {};
  }
  const ref = isRefTo(node);
  if (ref !== undefined && ctx.version === '3.0') return refToDef(ref, ctx);

  const out: JsonObject = {};
  if (ref !== undefined) Object.assign(out, refToDef(ref, ctx));
  const types = schemaTypes(node);
  copyAssertions(node, out, ctx.warnings);
  convertSubschemas(node, out, ctx);
  copyValues(node, out);

  // credential hygiene: no upstream sample values for secret-looking fields
  if ((propertyName !== undefined && mentionsCredential(propertyName)) || node.format === 'password') {
    delete out.default;
    delete out.examples;
    delete out.const;
  }
  requiredForMode(node, out, ctx);

  // nullable (OpenAPI 3.0; tolerated in 3.1 documents too)
  if (node.nullable === true) {
    if (types && !types.includes('null')) types.push('null');
    if (Array.isArray(out.enum) && !out.enum.includes(null)) out.enum = [...out.enum, null];
    if (!types && (out.$ref !== undefined || out.allOf !== undefined || out.anyOf !== undefined || out.oneOf !== undefined)) {
      const inner = out;
      return { anyOf: [inner, { type: 'null' }] };
    }
  }
  if (types) out.type = types.length === 1 ? types[0] : types;
  return reorder(out);
}

/** The subschema keywords, each subschema converted in turn; draft-4 tuple `items` becomes `prefixItems`. */
function convertSubschemas(node: Record<string, unknown>, out: JsonObject, ctx: ConvertContext): void {
  for (const k of SCHEMA_MAP_KEYWORDS) {
    const m = node[k];
    if (!isPlainObject(m)) continue;
    const converted: JsonObject = {};
    for (const [name, sub] of Object.entries(m)) {
      if (k === 'patternProperties' && !validRegex(name)) continue;
      setOwn(converted, name, convertSchema(sub, ctx, k === 'properties' ? name : undefined));
    }
    out[k] = converted;
  }
  for (const k of SCHEMA_KEYWORDS) {
    if (node[k] !== undefined && (typeof node[k] === 'boolean' || isPlainObject(node[k]))) out[k] = convertSchema(node[k], ctx);
  }
  for (const k of SCHEMA_ARRAY_KEYWORDS) {
    const arr = node[k];
    if (Array.isArray(arr) && arr.length > 0) out[k] = arr.map((s) => convertSchema(s, ctx));
  }
  if (Array.isArray(node.items)) {
    // draft-4 tuple form: 2020-12 spells it prefixItems
    if (node.items.length > 0 && out.prefixItems === undefined) out.prefixItems = node.items.map((s) => convertSchema(s, ctx));
  } else if (node.items !== undefined && (typeof node.items === 'boolean' || isPlainObject(node.items))) {
    out.items = convertSchema(node.items, ctx);
  }
}

/** The data keywords (`enum`, `const`, `default`, `examples`) as JSON; OpenAPI's `example` becomes `examples: [example]`. */
function copyValues(node: Record<string, unknown>, out: JsonObject): void {
  for (const k of VALUE_KEYWORDS) {
    if (node[k] === undefined) continue;
    const v = toJsonData(node[k]);
    if (v === undefined) continue;
    if (k === 'enum') {
      if (Array.isArray(v) && v.length > 0) out.enum = v;
    } else {
      out[k] = v;
    }
  }
  if (Array.isArray(node.examples)) {
    const v = toJsonData(node.examples);
    if (Array.isArray(v) && v.length > 0) out.examples = v;
  } else if (node.example !== undefined) {
    const v = toJsonData(node.example);
    if (v !== undefined) out.examples = [v];
  }
}

/** readOnly properties are not required in a request; writeOnly ones not in a response. */
function requiredForMode(node: Record<string, unknown>, out: JsonObject, ctx: ConvertContext): void {
  if (!Array.isArray(out.required) || !isPlainObject(node.properties)) return;
  const flag = ctx.mode === 'request' ? 'readOnly' : 'writeOnly';
  const props = node.properties;
  const req = (out.required as string[]).filter((name) => !hasFlag(props[name], flag, ctx.root));
  if (req.length > 0) out.required = req;
  else delete out.required;
}

const FIRST_KEYS = ['$ref', 'type', 'title', 'description'];
/** Puts the common keys first, so schemas read naturally; key order is deterministic either way. */
function reorder(o: JsonObject): JsonObject {
  const out: JsonObject = {};
  for (const k of FIRST_KEYS) if (o[k] !== undefined) out[k] = o[k];
  for (const [k, v] of Object.entries(o)) if (!FIRST_KEYS.includes(k)) setOwn(out, k, v);
  return out;
}

/** Attaches the collected `$defs` (if any) to a root schema. */
export function withDefs(schema: JsonObject, ctx: ConvertContext): JsonObject {
  if (Object.keys(ctx.defs).length === 0) return schema;
  return { ...schema, $defs: ctx.defs as JsonObject };
}
