// fast-check round trip: arguments valid for a tool's input schema →
// buildHttpRequest → parse the request back (path by the template, query,
// headers, body) → the same arguments. Operations are sampled from the demo
// document and a few oas-examples documents; only operations whose
// parameters are scalars, enums, arrays of scalars or flat objects of
// scalars (and whose body, if any, is built from those) are used.
//
// Inherent ambiguities of the OpenAPI styles that the generators avoid
// (documented in http-request.ts): empty arrays/objects (left out of the
// query, indistinguishable), a space inside spaceDelimited items, `,`/`=`
// inside header array/object values, and path values `.`/`..` (refused).
import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import fc from 'fast-check';
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { JsonObject } from '../../src/contract/descriptor.js';
import {
  ConnectorRequestError,
  buildHttpRequest,
  loadConnectorDocument,
  type ConnectorHttpRequest,
  type ConnectorOperation,
  type ConnectorParameter,
  type LoadedConnectorDocument,
} from '../../src/sources/connector/index.js';
import { DEMO_DOC, OAS_EXAMPLES } from './helpers.js';

const SAMPLE_DOCS = [
  DEMO_DOC,
  path.join(OAS_EXAMPLES, '3.0/json/petstore.json'),
  path.join(OAS_EXAMPLES, '3.1/json/petstore.json'),
  path.join(OAS_EXAMPLES, '3.0/json/parameters-style.json'),
  path.join(OAS_EXAMPLES, '3.1/json/parameters-style.json'),
  path.join(OAS_EXAMPLES, '3.0/json/parameters-common.json'),
];
const BASE = 'https://api.example.test/base';

type Schema = Record<string, unknown>;
type Ctx = { in: 'path' | 'query' | 'header' | 'body'; style?: string; explode?: boolean };

function typesOf(s: Schema): string[] {
  return s.type === undefined ? [] : Array.isArray(s.type) ? (s.type as string[]) : [s.type as string];
}
function mainType(s: Schema): string | undefined {
  return typesOf(s).find((t) => t !== 'null');
}

// ---- arbitraries from the simple schemas ---------------------------------

/** Characters with a meaning in URLs and in the OpenAPI styles, weighted up; plus any ASCII and any code point. */
const URL_CHAR: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom('.', '/', '?', '#', '&', '=', ',', ';', '%', ' ', '+', '|', '[', ']', ':', '@', '~', '*', "'", '"') },
  { weight: 3, arbitrary: fc.string({ unit: 'grapheme-ascii', minLength: 1, maxLength: 1 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }) },
);

function stringArb(s: Schema, c: Ctx, inCollection: boolean): fc.Arbitrary<string> | undefined {
  if (s.pattern !== undefined || s.format === 'binary') return undefined;
  const minLength = (s.minLength as number | undefined) ?? 0;
  const maxLength = Math.min((s.maxLength as number | undefined) ?? 12, 12);
  if (minLength > maxLength) return undefined;
  let arb: fc.Arbitrary<string>;
  if (c.in === 'header') {
    // visible ASCII; no `,` or `=` inside collections (the simple style has no escaping there)
    const chars = inCollection ? /[,=]/ : /$^/;
    arb = fc
      .string({ unit: fc.integer({ min: 0x21, max: 0x7e }).map((n) => String.fromCharCode(n)).filter((ch) => !chars.test(ch)), minLength: Math.max(minLength, inCollection ? 0 : 0), maxLength })
      .filter((x) => x === x.trim());
  } else {
    arb = fc.string({ unit: URL_CHAR, minLength, maxLength });
    if (c.in === 'query' && c.style === 'spaceDelimited' && inCollection) arb = arb.filter((x) => !x.includes(' '));
  }
  if (c.in === 'path' && !inCollection) arb = arb.filter((x) => x !== '.' && x !== '..');
  if (c.in === 'path' && inCollection) arb = arb.filter((x) => x !== '.' && x !== '..');
  return arb;
}

function scalarArb(s: Schema, c: Ctx, inCollection = false): fc.Arbitrary<unknown> | undefined {
  if (Array.isArray(s.enum)) {
    const values = s.enum.filter((v) => v === null ? false : typeof v !== 'object');
    if (values.length === 0) return undefined;
    if (c.in !== 'body' && values.some((v) => typeof v === 'string' && (v === '.' || v === '..'))) return undefined;
    return fc.constantFrom(...values);
  }
  const t = mainType(s);
  if (t === 'string') return stringArb(s, c, inCollection);
  if (t === 'integer') {
    const min = typeof s.minimum === 'number' ? Math.ceil(s.minimum) : -1e6;
    const max = typeof s.maximum === 'number' ? Math.floor(s.maximum) : 1e6;
    return fc.integer({ min, max });
  }
  if (t === 'number') {
    const min = typeof s.minimum === 'number' ? s.minimum : -1e9;
    const max = typeof s.maximum === 'number' ? s.maximum : 1e9;
    return fc.double({ min, max, noNaN: true, noDefaultInfinity: true }).filter((x) => !Object.is(x, -0));
  }
  if (t === 'boolean') return fc.boolean();
  return undefined;
}

function arrayArb(s: Schema, c: Ctx): fc.Arbitrary<unknown[]> | undefined {
  const items = s.items as Schema | undefined;
  if (!items || typeof items !== 'object' || mainType(items) === 'array' || mainType(items) === 'object') return undefined;
  const item = scalarArb(items, c, true);
  if (!item) return undefined;
  const minLength = Math.max((s.minItems as number | undefined) ?? 0, c.in === 'body' ? 0 : 1);
  const maxLength = Math.min((s.maxItems as number | undefined) ?? 4, 4);
  if (minLength > maxLength) return undefined;
  return fc.array(item, { minLength, maxLength, ...(s.uniqueItems === true ? {} : {}) }).filter((a) => s.uniqueItems !== true || new Set(a.map((x) => JSON.stringify(x))).size === a.length);
}

/** Flat objects of scalars; in parameters every declared property is generated (an empty object has no form). */
function objectArb(s: Schema, c: Ctx): fc.Arbitrary<Record<string, unknown>> | undefined {
  const props = (s.properties ?? {}) as Record<string, Schema>;
  const names = Object.keys(props);
  if (names.length === 0) return undefined;
  const model: Record<string, fc.Arbitrary<unknown>> = {};
  for (const n of names) {
    const p = props[n];
    const arb = c.in === 'body' ? valueArb(p, c) : scalarArb(p, c, true);
    if (!arb) return undefined;
    model[n] = arb;
  }
  const required = c.in === 'body' ? ((s.required as string[] | undefined) ?? []) : names;
  return fc.record(model, { requiredKeys: required.filter((n) => n in model), noNullPrototype: true }) as fc.Arbitrary<Record<string, unknown>>;
}

function valueArb(s: Schema, c: Ctx): fc.Arbitrary<unknown> | undefined {
  if (s.$ref !== undefined || s.allOf || s.anyOf || s.oneOf || s.not) return undefined;
  let arb: fc.Arbitrary<unknown> | undefined;
  const t = mainType(s);
  if (t === 'array') arb = arrayArb(s, c);
  else if (t === 'object') arb = objectArb(s, c);
  else arb = scalarArb(s, c);
  if (arb && c.in === 'body' && typesOf(s).includes('null')) arb = fc.option(arb, { nil: null });
  return arb;
}

function argsArb(op: ConnectorOperation, schema: JsonObject): fc.Arbitrary<Record<string, unknown>> | undefined {
  const props = schema.properties as Record<string, Schema>;
  const model: Record<string, fc.Arbitrary<unknown>> = {};
  const required: string[] = [];
  for (const p of op.parameters) {
    if (p.content) return undefined;
    const arb = valueArb(props[p.property], { in: p.in, style: p.style, explode: p.explode });
    if (!arb) return undefined;
    model[p.property] = arb;
    if (p.required) required.push(p.property);
  }
  if (op.body) {
    if (op.body.encoding === 'text') return undefined;
    const bodySchema = props.body;
    if (op.body.encoding === 'form' && mainType(bodySchema) !== 'object') return undefined;
    const arb = valueArb(bodySchema, { in: 'body' });
    if (!arb) return undefined;
    model.body = arb;
    if (op.body.required) required.push('body');
  }
  return fc.record(model, { requiredKeys: required, noNullPrototype: true }) as fc.Arbitrary<Record<string, unknown>>;
}

// ---- parsing a request back ------------------------------------------------

function coerce(raw: string, s: Schema): unknown {
  if (Array.isArray(s.enum)) {
    const hit = s.enum.find((v) => v !== null && String(v) === raw);
    if (hit !== undefined) return hit;
  }
  const t = mainType(s);
  if (t === 'integer' || t === 'number') return Number(raw);
  if (t === 'boolean') return raw === 'true';
  return raw;
}

function pairsToObject(pairs: [string, string][], s: Schema): Record<string, unknown> {
  const props = (s.properties ?? {}) as Record<string, Schema>;
  const out: Record<string, unknown> = {};
  for (const [k, v] of pairs) out[k] = coerce(v, props[k] ?? {});
  return out;
}

function chunk2(list: string[]): [string, string][] {
  const out: [string, string][] = [];
  for (let i = 0; i + 1 < list.length; i += 2) out.push([list[i], list[i + 1]]);
  return out;
}

const dec = decodeURIComponent;

function parsePathValue(p: ConnectorParameter, raw: string, s: Schema): unknown {
  const t = mainType(s);
  let body = raw;
  if (p.style === 'label') body = raw.slice(1);
  if (p.style === 'matrix') {
    if (p.explode && t === 'array') return body.split(';').slice(1).map((x) => coerce(dec(x.slice(x.indexOf('=') + 1)), s.items as Schema));
    if (p.explode && t === 'object') return pairsToObject(body.split(';').slice(1).map((x) => x.split('=').map(dec) as [string, string]), s);
    body = raw.slice(`;${p.name}=`.length);
  }
  const sep = p.style === 'label' && p.explode ? '.' : ',';
  if (t === 'array') return body.split(sep).map((x) => coerce(dec(x), s.items as Schema));
  if (t === 'object') {
    if (p.explode) return pairsToObject(body.split(sep).map((x) => x.split('=').map(dec) as [string, string]), s);
    return pairsToObject(chunk2(body.split(',').map(dec)), s);
  }
  return coerce(dec(body), s);
}

function parseRequest(op: ConnectorOperation, req: ConnectorHttpRequest, schema: JsonObject): Record<string, unknown> {
  const props = schema.properties as Record<string, Schema>;
  const out: Record<string, unknown> = {};
  assert.ok(req.url.startsWith(BASE + '/'), req.url);
  const rest = req.url.slice(BASE.length);
  const q = rest.indexOf('?');
  const rawPath = q < 0 ? rest : rest.slice(0, q);
  const rawQuery = q < 0 ? '' : rest.slice(q + 1);
  assert.ok(!rawPath.includes('#') && !rawQuery.includes('#'), 'no fragment');

  // path: match the template, each variable one capture group of non-`/` characters
  const names: string[] = [];
  const re = new RegExp(
    '^' +
      op.path
        .split('#')[0]
        .split(/(\{[^}]+\})/)
        .map((part) => {
          const m = /^\{([^}]+)\}$/.exec(part);
          if (m) {
            names.push(m[1]);
            return '([^/?#]*)';
          }
          return part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
        })
        .join('') +
      '$',
  );
  const m = re.exec(rawPath);
  assert.ok(m, `path ${rawPath} matches ${op.path}`);
  names.forEach((name, i) => {
    const p = op.parameters.find((x) => x.in === 'path' && x.name === name)!;
    const value = parsePathValue(p, m[i + 1], props[p.property]);
    if (p.property in out) assert.deepEqual(value, out[p.property], 'repeated path variable has one value');
    out[p.property] = value;
  });

  const pairs = rawQuery === '' ? [] : rawQuery.split('&').map((kv) => {
    const eq = kv.indexOf('=');
    return [kv.slice(0, eq), kv.slice(eq + 1)] as [string, string];
  });
  for (const p of op.parameters.filter((x) => x.in === 'query')) {
    const s = props[p.property];
    const t = mainType(s);
    const key = encodeURIComponent(p.name);
    if (t === 'object') {
      const objProps = Object.keys((s.properties ?? {}) as object);
      let kv: [string, string][];
      if (p.style === 'deepObject') {
        kv = pairs.filter(([k]) => k.startsWith(`${key}[`)).map(([k, v]) => [dec(k.slice(key.length + 1, -1)), dec(v)]);
      } else if (p.explode) {
        kv = pairs.filter(([k]) => objProps.includes(dec(k))).map(([k, v]) => [dec(k), dec(v)]);
      } else {
        const hit = pairs.find(([k]) => k === key);
        const sep = p.style === 'spaceDelimited' ? '%20' : p.style === 'pipeDelimited' ? '|' : ',';
        kv = hit ? chunk2(hit[1].split(sep).map(dec)) : [];
      }
      if (kv.length > 0) out[p.property] = pairsToObject(kv, s);
      continue;
    }
    const hits = pairs.filter(([k]) => k === key).map(([, v]) => v);
    if (hits.length === 0) continue;
    if (t === 'array') {
      const items = s.items as Schema;
      if (p.explode) out[p.property] = hits.map((v) => coerce(dec(v), items));
      else {
        const sep = p.style === 'spaceDelimited' ? '%20' : p.style === 'pipeDelimited' ? '|' : ',';
        out[p.property] = hits[0].split(sep).map((v) => coerce(dec(v), items));
      }
    } else {
      assert.equal(hits.length, 1, `one value for ${p.name}`);
      out[p.property] = coerce(dec(hits[0]), s);
    }
  }

  for (const p of op.parameters.filter((x) => x.in === 'header')) {
    const raw = req.headers[p.name.toLowerCase()];
    if (raw === undefined) continue;
    const s = props[p.property];
    const t = mainType(s);
    if (t === 'array') out[p.property] = raw.split(',').map((v) => coerce(v, s.items as Schema));
    else if (t === 'object') out[p.property] = pairsToObject(p.explode ? raw.split(',').map((x) => x.split('=') as [string, string]) : chunk2(raw.split(',')), s);
    else out[p.property] = coerce(raw, s);
  }

  if (req.body !== undefined) {
    assert.ok(op.body, 'a body only when the operation has one');
    assert.equal(req.headers['content-type'], op.body.mediaType);
    if (op.body.encoding === 'json') out.body = JSON.parse(req.body);
    else {
      const s = props.body;
      const objProps = (s.properties ?? {}) as Record<string, Schema>;
      const body: Record<string, unknown> = {};
      for (const [k, v] of req.body === '' ? [] : req.body.split('&').map((kv) => kv.split('=').map(dec))) {
        const ps = objProps[k] ?? {};
        if (mainType(ps) === 'array') ((body[k] ??= []) as unknown[]).push(coerce(v, ps.items as Schema));
        else body[k] = coerce(v, ps);
      }
      out.body = body;
    }
  }
  return out;
}

// ---- the property ------------------------------------------------------------

/** A value whose path form can be empty or only dots (`""`, `"."`, `[""]`, ...). */
function dotty(v: unknown): boolean {
  if (Array.isArray(v)) return v.every((x) => /^\.*$/.test(String(x)));
  return typeof v !== 'object' && /^\.{0,2}$/.test(String(v));
}
let dotRefusals = 0;

test('buildHttpRequest round trip: arguments → request → the same arguments', async (t) => {
  const ajv = new Ajv2020({ strict: false, logger: false });
  let sampled = 0;
  let skipped = 0;
  const styles = new Set<string>();
  for (const doc of SAMPLE_DOCS) {
    const loaded: LoadedConnectorDocument = await loadConnectorDocument({ id: 'rt', document: doc }, doc);
    for (const op of loaded.operations) {
      const tool = loaded.tools.find((x) => x.toolId === op.toolId)!;
      const schema = tool.inputSchema!;
      const arb = argsArb(op, schema);
      if (!arb) {
        skipped++;
        continue;
      }
      sampled++;
      for (const p of op.parameters) styles.add(`${p.in}:${p.style}${p.explode ? '*' : ''}`);
      const validate = ajv.compile(schema);
      fc.assert(
        fc.property(arb, (args) => {
          assert.ok(validate(args), `${op.toolId}: generated arguments are valid: ${JSON.stringify(validate.errors)}`);
          let req: ConnectorHttpRequest;
          try {
            req = buildHttpRequest(op, args, BASE);
          } catch (err) {
            // Refused on purpose: a path value that would read as `.`/`..` (URL normalization would drop or climb it).
            assert.ok(err instanceof ConnectorRequestError && /path segment/.test(err.message), String(err));
            assert.ok(op.parameters.some((p) => p.in === 'path' && dotty(args[p.property])), `${op.toolId}: refused only for dot-like path values`);
            dotRefusals++;
            return;
          }
          assert.equal(req.method, op.method);
          const back = parseRequest(op, req, schema);
          assert.deepEqual(back, args, `${op.toolId}: ${req.url}`);
        }),
        { numRuns: 60, seed: 20261202 ^ sampled, includeErrorInReport: true },
      );
    }
  }
  t.diagnostic(`operations sampled: ${sampled}, not eligible: ${skipped}; dot-segment refusals: ${dotRefusals}; styles covered: ${[...styles].sort().join(' ')}`);
  assert.ok(sampled >= 30, `sampled ${sampled}`);
  for (const s of ['path:simple', 'path:label', 'path:matrix*', 'query:form*', 'query:form', 'query:pipeDelimited', 'query:spaceDelimited', 'query:deepObject*', 'header:simple']) {
    assert.ok(styles.has(s), `style ${s} covered`);
  }
});

test('buildHttpRequest: required arguments, dot segments, header values, base URL', async () => {
  const loaded = await loadConnectorDocument({ id: 'rt', document: DEMO_DOC }, DEMO_DOC);
  const get = loaded.operations.find((o) => o.action === 'getTicket')!;
  const list = loaded.operations.find((o) => o.action === 'listTickets')!;
  const create = loaded.operations.find((o) => o.action === 'createTicket')!;
  assert.throws(() => buildHttpRequest(get, {}, BASE), ConnectorRequestError);
  assert.throws(() => buildHttpRequest(create, {}, BASE), /missing required argument "body"/);
  assert.throws(() => buildHttpRequest(list, { 'X-Request-Id': 'a\r\nInjected: 1' }, BASE), /not allowed in an HTTP header/);
  assert.throws(() => buildHttpRequest(get, { ticketId: 1 }, 'ftp://x'), /http or https/);
  // a string path value cannot climb: `/` is encoded, `..` refused
  const petstore = path.join(OAS_EXAMPLES, '3.0/json/petstore.json');
  const pets = (await loadConnectorDocument({ id: 'rt', document: petstore }, petstore)).operations.find(
    (o) => o.action === 'getUserByName',
  )!;
  assert.equal(buildHttpRequest(pets, { username: '../admin' }, BASE).url, `${BASE}/user/..%2Fadmin`);
  assert.throws(() => buildHttpRequest(pets, { username: '..' }, BASE), /"\." or "\.\." path segment/);
  // exact request for the demo list operation
  const req = buildHttpRequest(list, { status: 'open', label: ['a b', 'c&d'], limit: 5, 'X-Request-Id': 'r-1' }, BASE + '/');
  assert.deepEqual(req, {
    method: 'GET',
    url: `${BASE}/tickets?status=open&label=a%20b&label=c%26d&limit=5`,
    headers: { 'x-request-id': 'r-1', accept: 'application/json' },
  });
  const created = buildHttpRequest(create, { body: { title: 'x' } }, BASE);
  assert.equal(created.body, '{"title":"x"}');
  assert.equal(created.headers['content-type'], 'application/json');
});
