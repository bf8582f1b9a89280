// Instance generation for the soundness and tightness tests.
//
// Valid instances (accepted by the original schema, checked with ajv) come
// from json-schema-faker, from random values built of the schema's own
// vocabulary (property names, enum values, bounds), and from an exploration
// that mutates valid instances and keeps the mutants the original still
// accepts. Mutants the original rejects are the near misses of the
// tightness measure.
import { JSONSchemaFaker } from 'json-schema-faker';
import type { Check } from './validators.js';
import { pick, prng, type Rnd } from './random.js';
import { Sampler } from './sampler.js';

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

export interface Vocab {
  names: string[];
  values: Json[];
  numbers: number[];
  strings: string[];
}

function isObj(v: unknown): v is { [k: string]: Json } {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function setOwn(o: { [k: string]: Json }, k: string, v: Json): void {
  Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true });
}

/** Names, literals and boundary numbers found anywhere in a schema. */
export function vocabulary(schema: unknown): Vocab {
  const names = new Set<string>(['a', 'x']);
  const values: Json[] = [];
  const numbers = new Set<number>([0, 1, -1, 0.5, 2, 10, 100]);
  const strings = new Set<string>(['', 'a', 'abc', 'hello world', '2024-01-02', 'x@example.com', 'https://example.com/']);
  const seen = new Set<unknown>();
  const visit = (v: unknown, depth: number): void => {
    if (depth > 40 || typeof v !== 'object' || v === null || seen.has(v)) return;
    seen.add(v);
    if (Array.isArray(v)) {
      for (const x of v) visit(x, depth + 1);
      return;
    }
    const o = v as { [k: string]: Json };
    for (const k of Object.keys(o)) {
      const x = o[k];
      if ((k === 'properties' || k === 'dependentRequired' || k === 'dependentSchemas') && isObj(x)) for (const n of Object.keys(x)) names.add(n);
      if (k === 'required' && Array.isArray(x)) for (const n of x) if (typeof n === 'string') names.add(n);
      if (k === 'enum' && Array.isArray(x)) values.push(...x);
      if (k === 'const' || k === 'default') values.push(x);
      if (k === 'examples' && Array.isArray(x)) values.push(...x);
      if (typeof x === 'number' && /imum|multipleOf/.test(k)) for (const d of [0, 1, -1, 0.5, -0.5]) numbers.add(x + d);
      if (typeof x === 'number' && /Length$/.test(k)) strings.add('s'.repeat(Math.min(64, Math.max(0, x + (x % 2 ? 1 : -1)))));
      if (typeof x === 'number' && /Length$/.test(k)) strings.add('s'.repeat(Math.min(64, x)));
      if (k === 'pattern' && typeof x === 'string') {
        try {
          strings.add(JSONSchemaFaker.random.randexp(x));
        } catch {
          /* unsupported regex */
        }
      }
      if (k !== 'enum' && k !== 'const' && k !== 'default' && k !== 'examples') visit(x, depth + 1);
    }
  };
  visit(schema, 0);
  for (const v of values) {
    if (typeof v === 'string') strings.add(v);
    if (typeof v === 'number') numbers.add(v);
  }
  return { names: [...names], values, numbers: [...numbers], strings: [...strings] };
}

export function randomValue(v: Vocab, rnd: Rnd, depth = 0): Json {
  const r = rnd();
  if (v.values.length > 0 && r < 0.15) return structuredClone(pick(rnd, v.values));
  if (r < 0.22) return null;
  if (r < 0.3) return rnd() < 0.5;
  if (r < 0.45) return pick(rnd, v.numbers);
  if (r < 0.62) return pick(rnd, v.strings);
  if (depth >= 3 || r < 0.75) {
    if (depth >= 3) return pick(rnd, v.strings);
    const n = Math.floor(rnd() * 4);
    return Array.from({ length: n }, () => randomValue(v, rnd, depth + 1));
  }
  return randomObject(v, rnd, depth);
}

export function randomObject(v: Vocab, rnd: Rnd, depth = 0): { [k: string]: Json } {
  const o: { [k: string]: Json } = {};
  for (const n of v.names) if (rnd() < 0.4) setOwn(o, n, randomValue(v, rnd, depth + 1));
  return o;
}

/** A copy of `value` with one random change somewhere. */
export function mutate(value: Json, v: Vocab, rnd: Rnd): Json {
  const copy = structuredClone(value);
  // collect containers
  const spots: Json[] = [];
  const collect = (x: Json, depth: number): void => {
    if (typeof x !== 'object' || x === null || depth > 8) return;
    spots.push(x);
    for (const c of Object.values(x)) collect(c, depth + 1);
  };
  collect(copy, 0);
  if (spots.length === 0 || rnd() < 0.05) return randomValue(v, rnd);
  const spot = pick(rnd, spots);
  if (Array.isArray(spot)) {
    const r = rnd();
    if (spot.length > 0 && r < 0.25) spot.pop();
    else if (spot.length > 0 && r < 0.4) spot.push(structuredClone(spot[0]));
    else if (spot.length > 0 && r < 0.7) {
      const i = Math.floor(rnd() * spot.length);
      spot[i] = tweak(spot[i], v, rnd);
    } else spot.push(randomValue(v, rnd, 2));
    return copy;
  }
  const o = spot as { [k: string]: Json };
  const keys = Object.keys(o);
  const r = rnd();
  if (keys.length > 0 && r < 0.25) delete o[pick(rnd, keys)];
  else if (r < 0.45 || keys.length === 0) setOwn(o, rnd() < 0.85 ? pick(rnd, v.names) : 'zz_extra', randomValue(v, rnd, 2));
  else {
    const k = pick(rnd, keys);
    setOwn(o, k, tweak(o[k], v, rnd));
  }
  return copy;
}

function tweak(x: Json, v: Vocab, rnd: Rnd): Json {
  const r = rnd();
  if (r < 0.3) return randomValue(v, rnd, 2);
  if (typeof x === 'number') {
    const d = pick(rnd, [1, -1, 0.5, -0.5, 0.001, -x, 100]);
    return rnd() < 0.7 ? x + d : pick(rnd, v.numbers);
  }
  if (typeof x === 'string') {
    const s = rnd();
    if (s < 0.3) return x + pick(rnd, ['a', 'Z', '0', ' ', '-']);
    if (s < 0.5) return x.slice(0, -1);
    if (s < 0.6) return '';
    return pick(rnd, v.strings);
  }
  if (typeof x === 'boolean') return !x;
  if (x === null) return randomValue(v, rnd, 2);
  return mutate(x, v, rnd);
}

/**
 * json-schema-faker 0.5.9 ignores maxItems for nested arrays and is very slow
 * on circular references, so it only sees small schemas without those.
 */
export function fakerFriendly(schema: unknown): boolean {
  const text = JSON.stringify(schema);
  if (text.length > 8000 || /"components"/.test(text)) return false;
  let nested = false;
  const visit = (v: unknown, inArray: boolean, depth: number): void => {
    if (nested || depth > 30 || typeof v !== 'object' || v === null) return;
    const o = v as Record<string, unknown>;
    const isArray = o.type === 'array' || (Array.isArray(o.type) && o.type.includes('array')) || o.items !== undefined;
    if (isArray && inArray) nested = true;
    for (const [k, x] of Object.entries(o)) {
      if (k === 'enum' || k === 'const' || k === 'default' || k === 'examples') continue;
      visit(x, k === 'items' || k === 'prefixItems' ? isArray : inArray && !(k === 'properties'), depth + 1);
    }
  };
  visit(schema, false, 0);
  return !nested;
}

/** json-schema-faker samples (may be invalid; the caller filters with ajv). */
export function fakerSamples(schema: unknown, n: number, seed: number): Json[] {
  const rnd = prng(seed);
  JSONSchemaFaker.option({
    random: rnd,
    alwaysFakeOptionals: false,
    optionalsProbability: 0.5,
    fillProperties: false,
    failOnInvalidTypes: false,
    failOnInvalidFormat: false,
    ignoreMissingRefs: true,
    refDepthMax: 3,
    maxItems: 2,
    maxLength: 16,
    useDefaultValue: false,
    useExamplesValue: false,
  });
  const out: Json[] = [];
  // no time budget: the corpus must be the same on every run (fakerFriendly keeps the faker away from slow schemas)
  for (let i = 0; i < n; i++) {
    try {
      // a JSON round trip drops what is no JSON value (the faker may read inherited members such as `constructor`)
      const text = JSON.stringify(JSONSchemaFaker.generate(structuredClone(schema) as never));
      if (text !== undefined && text.length <= 20_000) out.push(JSON.parse(text) as Json);
    } catch {
      /* the faker cannot handle this schema; other generators still run */
    }
  }
  return out;
}

export interface ProbeResult {
  /** Distinct instances the original accepts. */
  valid: number;
  /** Of those, the ones the compact schema rejects (must be none). */
  failures: Json[];
  /** Distinct mutants the original rejects. */
  nearMisses: number;
  /** Of those, the ones the compact schema accepts (looseness). */
  looseAccepted: number;
}

export interface ProbeOptions {
  faker: number;
  /** Samples of the schema-guided sampler. */
  guided: number;
  random: number;
  mutations: number;
}

/** Explore instances around a schema and compare the original's and the compact schema's verdicts. */
export function probe(original: unknown, accepts: (x: unknown) => boolean | undefined, compactAccepts: Check, seed: number, o: ProbeOptions): ProbeResult {
  const rnd = prng(seed);
  const vocab = vocabulary(original);
  const res: ProbeResult = { valid: 0, failures: [], nearMisses: 0, looseAccepted: 0 };
  const seenValid = new Set<string>();
  const seenInvalid = new Set<string>();
  const pool: Json[] = [];
  const consider = (x: Json, asNearMiss: boolean): void => {
    // only objects can be tool arguments
    if (!isObj(x)) return;
    const key = JSON.stringify(x);
    if (key === undefined || key.length > 20_000 || seenValid.has(key) || seenInvalid.has(key)) return;
    const verdict = accepts(x);
    if (verdict === undefined) return;
    if (verdict) {
      seenValid.add(key);
      res.valid++;
      if (pool.length < 300) pool.push(x);
      if (!compactAccepts(x)) res.failures.push(x);
    } else {
      seenInvalid.add(key);
      if (asNearMiss) {
        res.nearMisses++;
        if (compactAccepts(x)) res.looseAccepted++;
      }
    }
  };
  if (fakerFriendly(original)) for (const x of fakerSamples(original, o.faker, seed)) consider(x, false);
  const sampler = new Sampler(original as Json, rnd);
  for (let i = 0; i < o.guided; i++) consider(sampler.sample(original as Json), false);
  consider({}, false);
  for (let i = 0; i < o.random; i++) consider(rnd() < 0.85 ? randomObject(vocab, rnd) : randomValue(vocab, rnd), false);
  for (let i = 0; i < o.mutations; i++) {
    const fromPool = pool.length > 0;
    const base = fromPool ? pick(rnd, pool) : randomObject(vocab, rnd);
    consider(mutate(base, vocab, rnd), fromPool);
  }
  return res;
}
