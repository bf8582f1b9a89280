// A small schema-guided sampler (independent of the implementation): walks
// the ORIGINAL schema, following `$ref`s (bounded), picking anyOf/oneOf
// branches, shallow-merging allOf, and honouring the common keywords. Its
// samples are candidates only; the tests keep those ajv accepts.
import { JSONSchemaFaker } from 'json-schema-faker';
import { pick, type Rnd } from './random.js';

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
type Obj = { [k: string]: Json };

function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function setOwn(o: Obj, k: string, v: Json): void {
  Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true });
}

function resolve(root: Json, ref: string): Json | undefined {
  if (!ref.startsWith('#')) return undefined;
  let node: Json | undefined = root;
  if (ref === '#') return root;
  if (!ref.startsWith('#/')) return undefined;
  for (const raw of ref.slice(2).split('/')) {
    const seg = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    if (Array.isArray(node)) node = node[Number(seg)];
    else if (isObj(node) && Object.hasOwn(node, seg)) node = node[seg];
    else return undefined;
  }
  return node;
}

function mergeShallow(a: Obj, b: Json): Obj {
  if (!isObj(b)) return a;
  const out: Obj = { ...a, ...b };
  if (isObj(a.properties) && isObj(b.properties)) out.properties = { ...a.properties, ...b.properties };
  if (Array.isArray(a.required) && Array.isArray(b.required)) out.required = [...new Set([...a.required, ...b.required])];
  if (a.type !== undefined && b.type === undefined) out.type = a.type;
  return out;
}

const FORMATS: Record<string, string[]> = {
  date: ['2024-01-02', '1999-12-31'],
  'date-time': ['2024-01-02T03:04:05Z', '2020-02-29T23:59:59.5+01:00'],
  time: ['03:04:05Z'],
  email: ['a@example.com', 'x.y@example.org'],
  uri: ['https://example.com/a?b=c', 'urn:isbn:0451450523'],
  url: ['https://example.com/'],
  uuid: ['123e4567-e89b-12d3-a456-426614174000'],
  ipv4: ['192.168.0.1'],
  ipv6: ['::1'],
  hostname: ['example.com'],
  byte: ['aGVsbG8='],
};

export class Sampler {
  constructor(private readonly root: Json, private readonly rnd: Rnd) {}

  sample(s: Json | undefined, depth = 0): Json {
    const rnd = this.rnd;
    if (s === undefined || s === true || !isObj(s)) return pick(rnd, [null, 1, 'a', true, {}, []] as Json[]);
    if (depth > 8) return null;
    if (typeof s.$ref === 'string') {
      const target = resolve(this.root, s.$ref);
      const { $ref: _, ...siblings } = s;
      return this.sample(isObj(target) ? mergeShallow(target, siblings) : siblings, depth + 1);
    }
    if (Array.isArray(s.allOf)) {
      const { allOf, ...rest } = s;
      let merged: Obj = rest;
      for (const b of allOf) {
        const r = isObj(b) && typeof b.$ref === 'string' ? resolve(this.root, b.$ref) : b;
        merged = mergeShallow(merged, r ?? {});
      }
      return this.sample(merged, depth + 1);
    }
    for (const k of ['anyOf', 'oneOf'] as const) {
      const branches = s[k];
      if (Array.isArray(branches) && branches.length > 0) {
        const { [k]: _, ...rest } = s;
        let b = pick(rnd, branches);
        if (isObj(b) && typeof b.$ref === 'string') b = resolve(this.root, b.$ref) ?? {};
        return this.sample(mergeShallow(rest, b), depth + 1);
      }
    }
    if (Object.hasOwn(s, 'const')) return structuredClone(s.const);
    if (Array.isArray(s.enum) && s.enum.length > 0) return structuredClone(pick(rnd, s.enum));
    let type = Array.isArray(s.type) ? pick(rnd, s.type as Json[]) : s.type;
    if (type === undefined) {
      if (isObj(s.properties) || s.required) type = 'object';
      else if (s.items !== undefined || s.prefixItems !== undefined) type = 'array';
      else if (s.minimum !== undefined || s.maximum !== undefined) type = 'number';
      else if (s.minLength !== undefined || s.pattern !== undefined || s.format !== undefined) type = 'string';
      else type = pick(rnd, ['string', 'integer', 'boolean', 'null', 'object'] as Json[]);
    }
    switch (type) {
      case 'object':
        return this.object(s, depth);
      case 'array':
        return this.array(s, depth);
      case 'string':
        return this.string(s);
      case 'integer':
      case 'number':
        return this.number(s, type === 'integer');
      case 'boolean':
        return rnd() < 0.5;
      default:
        return null;
    }
  }

  private object(s: Obj, depth: number): Obj {
    const rnd = this.rnd;
    const out: Obj = {};
    const required = new Set(Array.isArray(s.required) ? (s.required as string[]) : []);
    const props = isObj(s.properties) ? s.properties : {};
    for (const n of Object.keys(props)) if (required.has(n) || rnd() < 0.6) setOwn(out, n, this.sample(props[n], depth + 1));
    for (const n of required) if (!Object.hasOwn(out, n)) setOwn(out, n, this.sample(undefined, depth + 1));
    if (isObj(s.patternProperties) && rnd() < 0.4) {
      const p = pick(rnd, Object.keys(s.patternProperties));
      if (p !== undefined) {
        try {
          setOwn(out, JSONSchemaFaker.random.randexp(p), this.sample(s.patternProperties[p], depth + 1));
        } catch {
          /* unsupported regex */
        }
      }
    }
    if (s.additionalProperties !== false && rnd() < 0.2) setOwn(out, 'extra_' + Math.floor(rnd() * 3), this.sample(s.additionalProperties as Json, depth + 1));
    return out;
  }

  private array(s: Obj, depth: number): Json[] {
    const rnd = this.rnd;
    const min = typeof s.minItems === 'number' ? s.minItems : 0;
    const max = typeof s.maxItems === 'number' ? s.maxItems : min + 3;
    const n = Math.min(max, min + Math.floor(rnd() * 3));
    const prefix = Array.isArray(s.prefixItems) ? s.prefixItems : Array.isArray(s.items) ? s.items : [];
    const rest = Array.isArray(s.items) ? s.additionalItems : s.items;
    const out: Json[] = [];
    for (let i = 0; i < n; i++) out.push(this.sample(i < prefix.length ? prefix[i] : (rest as Json | undefined), depth + 1));
    if (s.contains !== undefined && rnd() < 0.7) out.push(this.sample(s.contains, depth + 1));
    return out;
  }

  private string(s: Obj): string {
    const rnd = this.rnd;
    if (typeof s.format === 'string' && FORMATS[s.format] && rnd() < 0.9) return pick(rnd, FORMATS[s.format]);
    if (typeof s.pattern === 'string') {
      try {
        const x = JSONSchemaFaker.random.randexp(s.pattern);
        if (x.length <= 200) return x;
      } catch {
        /* unsupported regex */
      }
    }
    const min = typeof s.minLength === 'number' ? s.minLength : 0;
    const max = typeof s.maxLength === 'number' ? s.maxLength : min + 8;
    const len = Math.min(max, min + Math.floor(rnd() * 6));
    let out = '';
    for (let i = 0; i < len; i++) out += pick(rnd, ['a', 'b', 'c', 'x', '1', ' ']);
    return out;
  }

  private number(s: Obj, integer: boolean): number {
    const rnd = this.rnd;
    let lo = typeof s.minimum === 'number' ? s.minimum : typeof s.exclusiveMinimum === 'number' ? s.exclusiveMinimum + 1 : -10;
    let hi = typeof s.maximum === 'number' ? s.maximum : typeof s.exclusiveMaximum === 'number' ? s.exclusiveMaximum - 1 : lo + 20;
    if (hi < lo) [lo, hi] = [hi, lo];
    let x = lo + rnd() * (hi - lo);
    if (typeof s.multipleOf === 'number' && s.multipleOf > 0) x = Math.ceil(x / s.multipleOf) * s.multipleOf;
    else if (integer || rnd() < 0.5) x = Math.round(x);
    return x;
  }
}
