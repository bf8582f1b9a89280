// Where a `$ref` of the compact view points (docs/compact-view.md, "`$ref`:
// inlined"): JSON pointers, `$id`-relative URIs naming a resource inside the
// schema, and `$anchor`s. Only the schema itself is searched; nothing is
// fetched. Resolution is relative to the resource the walk is in, so the
// walker moves `base` as it enters `$id` resources and inlined targets.
import type { JsonObject, JsonValue } from '../../contract/descriptor.js';
import { isPlainObject, unescapePointerSegment } from '../../util/json.js';
import { MAX_SCHEMA_DEPTH } from './limits.js';
import { has } from './schema-util.js';

/** A reference target and the resource its own references resolve against. */
export interface Resolved {
  node: JsonValue;
  base: JsonValue;
}

/** The work budget the index walk draws on (shared with the rest of the compaction). */
export interface WorkBudget {
  spend(): boolean;
}

const ARRAY_INDEX = /^(0|[1-9]\d*)$/;

export class SchemaReferences {
  /** Root of the schema resource `#` fragments resolve against. */
  base: JsonValue;
  private ids: Map<string, JsonObject> | undefined;
  private anchors: Map<JsonValue, Map<string, JsonObject>> | undefined;
  /** Per resource and reference; null remembers "unresolvable". */
  private readonly resolved = new Map<JsonValue, Map<string, Resolved | null>>();
  private readonly rootId: string | undefined;

  constructor(
    private readonly root: JsonValue,
    private readonly budget: WorkBudget,
  ) {
    this.base = root;
    this.rootId = isPlainObject(root) && typeof root.$id === 'string' ? root.$id : undefined;
  }

  /** The target of a reference from the current resource, or undefined when it names nothing in the schema. */
  resolve(ref: string): Resolved | undefined {
    let cache = this.resolved.get(this.base);
    if (!cache) this.resolved.set(this.base, (cache = new Map()));
    let r = cache.get(ref);
    if (r === undefined) {
      r = this.resolveUncached(ref) ?? null;
      cache.set(ref, r);
    }
    return r ?? undefined;
  }

  private resolveUncached(ref: string): Resolved | undefined {
    const hash = ref.indexOf('#');
    const uri = hash < 0 ? ref : ref.slice(0, hash);
    const frag = hash < 0 ? '' : ref.slice(hash + 1);
    let base = this.base;
    if (uri !== '') {
      const found = this.lookupId(uri);
      if (!found) return undefined;
      base = found;
    }
    if (frag === '') return { node: base, base };
    if (frag.startsWith('/')) {
      const node = followPointer(base, frag);
      return node === undefined ? undefined : { node, base };
    }
    this.indexResources();
    const a = this.anchors!.get(base)?.get(frag);
    return a ? { node: a, base } : undefined;
  }

  private lookupId(uri: string): JsonObject | undefined {
    this.indexResources();
    const direct = this.ids!.get(uri);
    if (direct) return direct;
    if (this.rootId) {
      try {
        return this.ids!.get(new URL(uri, this.rootId).href);
      } catch {
        return undefined;
      }
    }
    return undefined;
  }

  /** Collect `$id`s and anchors, once, when a reference needs them. */
  private indexResources(): void {
    if (this.ids) return;
    const ids = (this.ids = new Map());
    const anchors = (this.anchors = new Map());
    const rootId = this.rootId;
    const anchorsOf = (res: JsonValue): Map<string, JsonObject> => {
      let m = anchors.get(res);
      if (!m) anchors.set(res, (m = new Map()));
      return m;
    };
    const visit = (node: JsonValue, resource: JsonValue, depth: number): void => {
      if (depth > 2 * MAX_SCHEMA_DEPTH || !this.budget.spend()) return;
      if (Array.isArray(node)) {
        for (const x of node) visit(x, resource, depth + 1);
        return;
      }
      if (!isPlainObject(node)) return;
      let res = resource;
      if (typeof node.$id === 'string' && !node.$id.startsWith('#')) {
        res = node;
        ids.set(node.$id, node);
        if (rootId) {
          try {
            ids.set(new URL(node.$id, rootId).href, node);
          } catch {
            /* not a URI reference */
          }
        }
      }
      for (const kw of ['$anchor', '$dynamicAnchor']) {
        const a = node[kw];
        if (typeof a === 'string') {
          const m = anchorsOf(res);
          if (!m.has(a)) m.set(a, node);
        }
      }
      if (typeof node.$id === 'string' && node.$id.startsWith('#')) anchorsOf(res).set(node.$id.slice(1), node);
      for (const k of Object.keys(node)) {
        if (k === 'enum' || k === 'const' || k === 'default' || k === 'examples') continue;
        visit(node[k], res, depth + 1);
      }
    };
    visit(this.root, this.root, 0);
  }
}

/** The node a `/a/b` fragment (URI-encoded JSON pointer) names below `base`, or undefined. */
function followPointer(base: JsonValue, frag: string): JsonValue | undefined {
  let node: JsonValue = base;
  for (const raw of frag.slice(1).split('/')) {
    let seg: string;
    try {
      seg = unescapePointerSegment(decodeURIComponent(raw));
    } catch {
      return undefined;
    }
    if (Array.isArray(node)) {
      if (!ARRAY_INDEX.test(seg) || Number(seg) >= node.length) return undefined;
      node = node[Number(seg)];
    } else if (isPlainObject(node) && has(node, seg)) node = node[seg];
    else return undefined;
  }
  return node;
}
