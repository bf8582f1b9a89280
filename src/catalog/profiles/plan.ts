// The map between a tool's own arguments and a profile's form of them
// (docs/compact-view.md "Arguments translated back"). A profile that
// restructures a schema (optional properties sent as null, a free-key map
// sent as key/value pairs, a renamed parameter) records how in a Plan; forth
// turns tool arguments into the profile's form, back turns what a model sent
// into the tool's form, exactly: back(forth(a)) equals a. back never
// guesses: what it cannot map is a BackError naming the path and the rule.
import { escapePointerSegment, isPlainObject, setOwn } from '../../util/json.js';

/** How one served property maps to the tool's. */
export interface PropPlan {
  /** The tool's own name of the property. */
  name: string;
  plan: Plan;
  /**
   * plain: the same value; absent: the property is optional and sent as null when
   * absent (its schema does not allow null); wrapped: optional and nullable, sent
   * as `{"value": v}` when present and null when absent.
   */
  mode: 'plain' | 'absent' | 'wrapped';
}

export type Plan =
  | { kind: 'same' }
  | {
      kind: 'object';
      /** By served name. */
      props: Record<string, PropPlan>;
      /** Free keys, served as key/value pairs under this name; `always`: sent even when empty. */
      extra?: { served: string; plan: Plan; always: boolean };
    }
  | { kind: 'map'; plan: Plan }
  | { kind: 'array'; items: Plan }
  | { kind: 'byKind'; object?: Plan; array?: Plan }
  /** Any JSON value, objects sent as `{"entries": [pairs]}` (OpenAI's strict form of "anything"). */
  | { kind: 'json' };

export const SAME: Plan = { kind: 'same' };

export class BackError extends Error {
  constructor(
    readonly path: string,
    readonly rule: string,
  ) {
    super(`${path || '/'}: ${rule}`);
  }
}

/** How deep back follows arguments (any JSON value may nest; nothing real nests this deep). */
export const MAX_BACK_DEPTH = 256;
const depthOf = (path: string): number => path.split('/').length - 1;
const at = (path: string, key: string | number): string => `${path}/${escapePointerSegment(String(key))}`;

export function isSame(p: Plan): boolean {
  return p.kind === 'same';
}

/** The tool's arguments in the profile's form. */
export function forth(value: unknown, plan: Plan): unknown {
  switch (plan.kind) {
    case 'same':
      return value;
    case 'array':
      return Array.isArray(value) ? value.map((v) => forth(v, plan.items)) : value;
    case 'byKind':
      if (Array.isArray(value)) return plan.array ? forth(value, plan.array) : value;
      return isPlainObject(value) && plan.object ? forth(value, plan.object) : value;
    case 'map':
      return isPlainObject(value) ? Object.entries(value).map(([key, v]) => ({ key, value: forth(v, plan.plan) })) : value;
    case 'json':
      if (Array.isArray(value)) return value.map((v) => forth(v, plan));
      return isPlainObject(value) ? { entries: Object.entries(value).map(([key, v]) => ({ key, value: forth(v, plan) })) } : value;
    case 'object': {
      if (!isPlainObject(value)) return value;
      const out: Record<string, unknown> = {};
      const known = new Set<string>();
      for (const [served, p] of Object.entries(plan.props)) {
        known.add(p.name);
        const present = Object.hasOwn(value, p.name);
        if (p.mode === 'plain') {
          if (present) setOwn(out, served, forth(value[p.name], p.plan));
        } else if (!present) setOwn(out, served, null);
        else setOwn(out, served, p.mode === 'wrapped' ? { value: forth(value[p.name], p.plan) } : forth(value[p.name], p.plan));
      }
      const free = Object.keys(value).filter((k) => !known.has(k));
      if (plan.extra) {
        const pairs = free.map((key) => ({ key, value: forth(value[key], plan.extra!.plan) }));
        if (pairs.length > 0 || plan.extra.always) setOwn(out, plan.extra.served, pairs);
      } else for (const k of free) setOwn(out, k, value[k]); // free keys the profile's schema allows as they are
      return out;
    }
  }
}

/** What a model sent, in the tool's form; throws BackError where it cannot be mapped. */
export function back(value: unknown, plan: Plan, path = ''): unknown {
  // Arguments come from a client: their nesting is bounded before it can exhaust the stack.
  if (path.length > MAX_BACK_DEPTH && depthOf(path) > MAX_BACK_DEPTH) throw new BackError(path.slice(0, 200), `nested deeper than ${MAX_BACK_DEPTH} levels`);
  switch (plan.kind) {
    case 'same':
      return value;
    case 'array':
      return Array.isArray(value) ? value.map((v, i) => back(v, plan.items, at(path, i))) : value;
    case 'byKind':
      if (Array.isArray(value)) return plan.array ? back(value, plan.array, path) : value;
      return isPlainObject(value) && plan.object ? back(value, plan.object, path) : value;
    case 'map': {
      if (isPlainObject(value)) throw new BackError(path, 'expected an array of {"key", "value"} pairs (this map is sent as pairs)');
      return Array.isArray(value) ? fromPairs(value, plan.plan, path, {}, new Set()) : value;
    }
    case 'json':
      if (Array.isArray(value)) return value.map((v, i) => back(v, plan, at(path, i)));
      if (!isPlainObject(value)) return value;
      if (!Array.isArray(value.entries) || Object.keys(value).length !== 1) throw new BackError(path, 'expected an object as {"entries": [{"key", "value"}]}');
      return fromPairs(value.entries, plan, at(path, 'entries'), {}, new Set());
    case 'object':
      return isPlainObject(value) ? backObject(value, plan, path) : value;
  }
}

function backObject(value: Record<string, unknown>, plan: Extract<Plan, { kind: 'object' }>, path: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const declared = new Set(Object.values(plan.props).map((p) => p.name));
  for (const [key, v] of Object.entries(value)) {
    const here = at(path, key);
    if (plan.extra && key === plan.extra.served) {
      if (!Array.isArray(v)) throw new BackError(here, 'expected an array of {"key", "value"} pairs');
      fromPairs(v, plan.extra.plan, here, out, declared);
      continue;
    }
    const p = Object.hasOwn(plan.props, key) ? plan.props[key] : undefined;
    const name = p?.name ?? key;
    if (Object.hasOwn(out, name)) throw new BackError(here, `"${name}" is given twice`);
    if (p === undefined) setOwn(out, name, v);
    else if (p.mode === 'plain' || (p.mode === 'absent' && v !== null)) setOwn(out, name, back(v, p.plan, here));
    else if (p.mode === 'wrapped' && v !== null) {
      if (!isPlainObject(v) || !Object.hasOwn(v, 'value') || Object.keys(v).length !== 1) throw new BackError(here, 'expected null (not set) or {"value": …}');
      setOwn(out, name, back(v.value, p.plan, at(here, 'value')));
    }
  }
  return out;
}

function fromPairs(pairs: unknown[], plan: Plan, path: string, into: Record<string, unknown>, declared: ReadonlySet<string>): Record<string, unknown> {
  pairs.forEach((pair, i) => {
    const here = at(path, i);
    if (!isPlainObject(pair) || typeof pair.key !== 'string' || !Object.hasOwn(pair, 'value')) throw new BackError(here, 'expected {"key": string, "value": …}');
    if (declared.has(pair.key)) throw new BackError(at(here, 'key'), `"${pair.key}" is a declared property: set it directly`);
    if (Object.hasOwn(into, pair.key)) throw new BackError(at(here, 'key'), `key "${pair.key}" is given twice`);
    setOwn(into, pair.key, back(pair.value, plan, at(here, 'value')));
  });
  return into;
}
