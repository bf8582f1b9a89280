// The compact view of a tool's input schema (docs/compact-view.md).
//
// `compactInputSchema` rewrites a JSON Schema into a structural subset that
// LLM providers accept: top-level `type: "object"` with `properties`, and no
// `$ref`, `allOf`, `anyOf`, `oneOf`, `not`, `patternProperties` or
// `dependentSchemas` at any depth. It rewrites instead of dropping: every
// instance the original accepts, the compact schema accepts too, and it stays
// as tight as the subset allows. Pure: the input is never mutated and the
// output shares no object with it.
//
// This module is the walk: per node, one pass over the keywords
// (node-keywords.ts, copying through copy-keyword.ts), then the collected
// applicators merged in (algebra.ts), references inlined (references.ts).
import type { JsonObject, JsonValue } from '../../contract/descriptor.js';
import { isPlainObject, setOwn } from '../../util/json.js';
import { Algebra, type AlgebraHost, admittedKinds } from './algebra.js';
import { alternativesNote, boundedNote, brief, withNote } from './brief.js';
import { openApiNullable } from './copy-keyword.js';
import { MAX_NOTE_LENGTH, MAX_RECURSION_UNROLL, MAX_SCHEMA_DEPTH, MAX_WORK } from './limits.js';
import { type NodeKeywords, scanKeywords } from './node-keywords.js';
import { LoosenedNotes } from './notes.js';
import { type Resolved, SchemaReferences } from './references.js';
import { type Dialect, type Schema, detectDialect, has, isTrivial, ordered } from './schema-util.js';
import { enforceSizeLimit } from './size.js';
import { toTopLevel } from './top-level.js';
import { applyUnevaluatedAfter, type UnevaluatedHost, unevaluatedInPlace } from './unevaluated.js';

export interface CompactSchemaResult {
  schema: JsonObject;
  /** Human-readable notes on what was loosened; empty when nothing was. */
  loosened: string[];
}

export function compactInputSchema(schema: JsonObject): CompactSchemaResult {
  return compactSchemaValue(schema);
}

/** Same as `compactInputSchema`, for any JSON value (boolean schemas included). */
export function compactSchemaValue(schema: JsonValue): CompactSchemaResult {
  const c = new Compactor(schema);
  const compacted = c.compact(schema, 0);
  const top = toTopLevel(compacted, c.notes);
  const sized = enforceSizeLimit(top, c.shared, (m) => c.notes.at('', m));
  return { schema: sized, loosened: c.notes.list() };
}

class Compactor implements AlgebraHost, UnevaluatedHost {
  readonly d: Dialect;
  readonly alg: Algebra;
  readonly notes = new LoosenedNotes();
  /** True once a merge or union may have placed one object at two places in the output. */
  shared = false;
  private work = 0;
  private budgetNoted = false;
  private readonly path: string[] = [];
  /** The input objects being compacted, outermost first (the current path, through inlined refs). */
  private readonly open: object[] = [];
  private readonly refs: SchemaReferences;

  constructor(root: JsonValue) {
    this.d = detectDialect(root);
    this.alg = new Algebra(this.d, this);
    this.refs = new SchemaReferences(root, this);
  }

  // ---- bookkeeping --------------------------------------------------------

  spend(n = 1): boolean {
    this.work += n;
    if (this.work <= MAX_WORK) return true;
    if (!this.budgetNoted) {
      this.budgetNoted = true;
      this.note(`work budget (${MAX_WORK}) exhausted; the rest of the schema was loosened to {}`);
    }
    return false;
  }

  /** Record a loosening at the current path. */
  note(message: string): void {
    this.notes.atPath(this.path, message);
  }

  /** Compact a subschema one level down, with its location for notes. */
  sub(v: JsonValue, depth: number, seg1: string, seg2?: string): Schema {
    const n = this.path.length;
    this.path.push(seg1);
    if (seg2 !== undefined) this.path.push(seg2);
    try {
      return this.compact(v, depth + 1);
    } finally {
      this.path.length = n;
    }
  }

  subProperties(props: JsonObject, depth: number): JsonObject {
    const out: JsonObject = {};
    const n = this.path.length;
    this.path.push('properties');
    try {
      for (const name of Object.keys(props)) {
        this.path[n + 1] = name;
        setOwn(out, name, this.compact(props[name], depth + 1));
      }
    } finally {
      this.path.length = n;
    }
    return out;
  }

  // ---- the walk -----------------------------------------------------------

  compact(input: JsonValue, depth: number): Schema {
    if (input === true || input === false) return input;
    if (!isPlainObject(input)) {
      this.note('not a schema; replaced by {}');
      return {};
    }
    if (depth > MAX_SCHEMA_DEPTH) {
      // `{}` there is what an earlier pass left: nothing more is lost
      for (const _ in input) {
        this.note(`nested deeper than ${MAX_SCHEMA_DEPTH} levels; replaced by {}`);
        break;
      }
      return {};
    }
    if (!this.spend()) return {};
    const n = this.open.length;
    this.open.push(input);
    const prevBase = this.refs.base;
    if (depth > 0 && typeof input.$id === 'string' && !input.$id.startsWith('#')) this.refs.base = input;
    try {
      return this.compactObject(input, depth);
    } finally {
      this.refs.base = prevBase;
      this.open.length = n;
    }
  }

  private compactObject(input: JsonObject, depth: number): Schema {
    const found = scanKeywords(this, input, depth);
    if (found.empty) {
      this.note('empty enum: the subschema accepts nothing');
      return false;
    }
    const { local, descNotes } = found;
    if (input.nullable === true) openApiNullable(this, local);
    if (this.d.tuple === 'itemsArray' && has(local, 'additionalItems') && !Array.isArray(local.items)) delete local.additionalItems;
    const unevaluatedAfter =
      found.unevaluatedProperties !== undefined || found.unevaluatedItems !== undefined ? unevaluatedInPlace(this, input, found, depth) : undefined;
    if (found.patternProperties) this.foldPatternProperties(found.patternProperties, local, descNotes, depth);
    // Most nodes have no applicator: their own keywords are the result.
    let result: Schema = found.inPlace ? this.mergeApplicators(local, found, depth) : local;
    if (unevaluatedAfter) result = applyUnevaluatedAfter(this, result, unevaluatedAfter);
    if (descNotes.length > 0 && result !== false) {
      const note = descNotes.join(' ').slice(0, 2 * MAX_NOTE_LENGTH);
      const base: JsonObject = result === true ? {} : result;
      result = ordered({ ...base, description: withNote(base.description, note) });
    }
    return result;
  }

  /** The node's own keywords merged with its `$ref` target, `allOf` parts and the union of each of `anyOf`/`oneOf`. */
  private mergeApplicators(local: JsonObject, found: NodeKeywords, depth: number): Schema {
    const { ref, allOf, anyOf, oneOf, descNotes } = found;
    let result: Schema = local;
    if (ref !== undefined) {
      const target = this.expandRef(ref, depth, descNotes);
      this.shared = true;
      result = this.alg.and(result, target);
    }
    if (allOf) {
      this.shared = true;
      const parts = allOf.map((b, i) => this.sub(b, depth, 'allOf', String(i)));
      result = this.alg.and(result, balancedFold(parts, true, (a, b) => this.alg.and(a, b)));
    }
    for (const [kw, branches] of [['anyOf', anyOf], ['oneOf', oneOf]] as const) {
      if (!branches) continue;
      this.shared = true;
      const compacted = branches.map((b, i) => this.sub(b, depth, kw, String(i)));
      this.alg.lossy = false;
      const u = balancedFold(compacted, false, (a, b) => this.alg.or(a, b));
      if (this.alg.lossy) {
        this.note(`${kw} merged into one schema; alternatives listed in the description`);
        descNotes.push(alternativesNote(kw === 'oneOf' ? 'One of' : 'Any of', compacted));
      } else if (kw === 'oneOf' && overlapping(compacted)) {
        this.note('oneOf merged like anyOf (exclusivity not expressible)');
      }
      result = this.alg.and(result, u);
    }
    return result;
  }

  private foldPatternProperties(patterns: JsonObject, local: JsonObject, descNotes: string[], depth: number): void {
    const names = Object.keys(patterns);
    if (names.length === 0) return;
    const hints = names.slice(0, 4).map((p) => `/${p.length > 40 ? p.slice(0, 39) + '…' : p}/: ${brief(patterns[p], 60)}`);
    if (names.length > 4) hints.push('…');
    descNotes.push(boundedNote(`Keys matching ${hints.join('; ')}.`));
    if (!has(local, 'additionalProperties')) {
      this.note('patternProperties dropped (other properties were already unrestricted)');
      return;
    }
    // Names that match no declared property must satisfy a pattern schema or additionalProperties.
    let add = local.additionalProperties as Schema;
    for (const p of names) {
      if (isTrivial(add)) break;
      const s = this.sub(patterns[p], depth, 'patternProperties', p);
      this.shared = true;
      add = this.alg.or(add, s);
    }
    if (isTrivial(add)) delete local.additionalProperties;
    else local.additionalProperties = add;
    this.note('patternProperties folded into additionalProperties');
  }

  // ---- references ---------------------------------------------------------

  resolve(ref: string): Resolved | undefined {
    return this.refs.resolve(ref);
  }

  private expandRef(ref: string, depth: number, descNotes: string[]): Schema {
    const target = this.refs.resolve(ref);
    const shown = ref.startsWith('#') ? (ref.length > 80 ? ref.slice(0, 79) + '…' : ref) : 'an external document';
    if (!target) {
      if (ref.startsWith('#')) this.note(`unresolvable $ref ${shown}; loosened to {}`);
      else this.note('external $ref not fetched; loosened to {}');
      return {};
    }
    if (isPlainObject(target.node) && this.openCount(target.node) >= MAX_RECURSION_UNROLL) {
      this.note(`recursive $ref ${shown} cut after ${MAX_RECURSION_UNROLL} levels; loosened to {}`);
      descNotes.push(`(Recursive structure; deeper levels not shown.)`);
      return {};
    }
    const prevBase = this.refs.base;
    this.refs.base = target.base;
    try {
      return this.sub(target.node, depth, '$ref');
    } finally {
      this.refs.base = prevBase;
    }
  }

  private openCount(node: object): number {
    let c = 0;
    for (const o of this.open) if (o === node) c++;
    return c;
  }
}

/**
 * Fold a list pairwise as a balanced tree, keeping left-to-right order: with
 * many branches the merged maps grow by halves, not one branch at a time
 * (n log n instead of n² for wide unions).
 */
function balancedFold(items: Schema[], empty: Schema, op: (a: Schema, b: Schema) => Schema): Schema {
  if (items.length === 0) return empty;
  let level = items;
  while (level.length > 1) {
    const next: Schema[] = [];
    for (let i = 0; i < level.length; i += 2) next.push(i + 1 < level.length ? op(level[i], level[i + 1]) : level[i]);
    level = next;
  }
  return level[0];
}

/** Whether two branches may accept a common instance (by their kinds and enumerations). */
function overlapping(branches: Schema[]): boolean {
  for (let i = 0; i < branches.length; i++) {
    for (let j = i + 1; j < branches.length; j++) {
      if ((admittedKinds(branches[i]) & admittedKinds(branches[j])) === 0) continue;
      const a = branches[i];
      const b = branches[j];
      if (typeof a === 'object' && typeof b === 'object' && has(a, 'const') && has(b, 'const')) {
        if (JSON.stringify(a.const) !== JSON.stringify(b.const)) continue;
      }
      return true;
    }
  }
  return false;
}
