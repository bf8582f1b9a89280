// Hand-written before/after cases, one or more per rewrite rule of
// docs/compact-view.md. Expected outputs are worked out by hand from the
// rules, not captured from the implementation.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { JsonObject, JsonValue } from '../../src/contract/descriptor.js';
import { compactInputSchema, compactSchemaValue } from '../../src/catalog/compact/compact-input-schema.js';
import { MAX_COMPACT_SCHEMA_BYTES } from '../../src/catalog/compact/limits.js';
import { bannedKeywords, foreignKeywords } from './support/walk.js';
import { compile } from './support/validators.js';

const DRAFT07 = 'http://json-schema.org/draft-07/schema#';

/** Compact, check the contract, and check idempotence on the way. */
function compact(s: JsonObject): { schema: JsonObject; loosened: string[] } {
  const r = compactInputSchema(s);
  assert.deepEqual(bannedKeywords(r.schema), []);
  assert.deepEqual(foreignKeywords(r.schema), []);
  assert.equal(r.schema.type, 'object');
  assert.ok(r.schema.properties && typeof r.schema.properties === 'object');
  assert.deepEqual(compactInputSchema(r.schema).schema, r.schema, 'not idempotent');
  return r;
}

function props(s: JsonObject): Record<string, JsonValue> {
  return s.properties as Record<string, JsonValue>;
}

describe('schemas already in the subset', () => {
  test('an MCP-style draft-07 schema comes back unchanged, nothing loosened', () => {
    const s: JsonObject = {
      $schema: DRAFT07,
      type: 'object',
      properties: {
        path: { type: 'string', description: 'File path', minLength: 1 },
        head: { type: 'number', description: 'First N lines' },
        mode: { type: 'string', enum: ['text', 'binary'], default: 'text' },
        tags: { type: 'array', items: { type: 'string' }, uniqueItems: true },
      },
      required: ['path'],
      additionalProperties: false,
    };
    const r = compact(structuredClone(s));
    assert.deepEqual(r.schema, s);
    assert.deepEqual(r.loosened, []);
  });

  test('names inside properties and data inside enum/const/default/examples are not keywords', () => {
    const s: JsonObject = {
      type: 'object',
      properties: {
        oneOf: { const: { $ref: '#/nowhere', allOf: [] } },
        $ref: { type: 'string', default: 'anyOf', examples: ['not'] },
        not: { enum: [{ not: {} }, 'x'] },
      },
      required: ['oneOf', '$ref'],
    };
    const r = compact(structuredClone(s));
    assert.deepEqual(r.schema, s);
    assert.deepEqual(r.loosened, []);
  });
});

describe('$ref', () => {
  test('a local ref into $defs is inlined and $defs removed', () => {
    const r = compact({
      type: 'object',
      properties: { user: { $ref: '#/$defs/User' } },
      $defs: { User: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] } },
    });
    assert.deepEqual(r.schema, {
      type: 'object',
      properties: { user: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] } },
    });
    assert.deepEqual(r.loosened, []);
  });

  test('definitions and any JSON pointer into the document, with ~1 and %-escapes', () => {
    const r = compact({
      type: 'object',
      properties: {
        a: { type: 'string', minLength: 1 },
        b: { $ref: '#/properties/a' },
        c: { $ref: '#/definitions/a~1b' },
        d: { $ref: '#/definitions/with%20space' },
      },
      definitions: { 'a/b': { type: 'integer' }, 'with space': { type: 'boolean' } },
    });
    assert.deepEqual(props(r.schema), {
      a: { type: 'string', minLength: 1 },
      b: { type: 'string', minLength: 1 },
      c: { type: 'integer' },
      d: { type: 'boolean' },
    });
  });

  test('2020-12: siblings of $ref apply too (merged like allOf)', () => {
    const r = compact({
      type: 'object',
      properties: { n: { $ref: '#/$defs/nonneg', maximum: 10, description: 'Count' } },
      $defs: { nonneg: { type: 'integer', minimum: 0, description: 'Non-negative' } },
    });
    assert.deepEqual(props(r.schema).n, { description: 'Count', type: 'integer', minimum: 0, maximum: 10 });
  });

  test('draft-07: siblings of $ref are ignored (annotations kept)', () => {
    const r = compact({
      $schema: DRAFT07,
      type: 'object',
      properties: { a: { $ref: '#/definitions/s', maxLength: 3, description: 'A' } },
      definitions: { s: { type: 'string' } },
    });
    assert.deepEqual(r.schema, { $schema: DRAFT07, type: 'object', properties: { a: { description: 'A', type: 'string' } } });
  });

  test('a recursive definition is expanded twice, then cut to an unconstrained schema', () => {
    const r = compact({
      type: 'object',
      properties: { head: { $ref: '#/$defs/Node' } },
      $defs: {
        Node: { type: 'object', properties: { value: { type: 'integer' }, next: { $ref: '#/$defs/Node' } }, required: ['value'] },
      },
    });
    const cut = { description: '(Recursive structure; deeper levels not shown.)' };
    assert.deepEqual(props(r.schema).head, {
      type: 'object',
      properties: {
        value: { type: 'integer' },
        next: { type: 'object', properties: { value: { type: 'integer' }, next: cut }, required: ['value'] },
      },
      required: ['value'],
    });
    assert.ok(r.loosened.some((l) => /recursive \$ref #\/\$defs\/Node/.test(l)));
  });

  test('a reference to the root (#) recurses like any other', () => {
    const r = compact({ type: 'object', properties: { name: { type: 'string' }, child: { $ref: '#' } } });
    assert.deepEqual(r.schema, {
      type: 'object',
      properties: {
        name: { type: 'string' },
        child: {
          type: 'object',
          properties: { name: { type: 'string' }, child: { description: '(Recursive structure; deeper levels not shown.)' } },
        },
      },
    });
  });

  test('external and dangling refs are never fetched: they become {}', () => {
    const r = compact({
      type: 'object',
      properties: { a: { $ref: 'https://example.com/s.json#/x' }, b: { $ref: '#/$defs/nope' }, c: { $ref: 'other.json' } },
    });
    assert.deepEqual(props(r.schema), { a: {}, b: {}, c: {} });
    assert.equal(r.loosened.length, 3);
    assert.ok(!r.loosened.some((l) => l.includes('example.com')), 'notes do not repeat external URIs');
  });

  test('$id-based and $anchor references resolve inside the document', () => {
    const r = compact({
      $id: 'https://example.com/root.json',
      type: 'object',
      properties: { a: { $ref: 'https://example.com/item.json' }, b: { $ref: '#pos' } },
      $defs: {
        item: { $id: 'item.json', type: 'string', maxLength: 4 },
        pos: { $anchor: 'pos', type: 'integer', minimum: 1 },
      },
    });
    assert.deepEqual(props(r.schema), { a: { type: 'string', maxLength: 4 }, b: { type: 'integer', minimum: 1 } });
  });
});

describe('allOf', () => {
  test('properties and required united, types intersected, bounds tightened', () => {
    const r = compact({
      allOf: [
        { type: 'object', properties: { a: { type: 'number', minimum: 0, maximum: 10 } }, required: ['a'] },
        { type: 'object', properties: { a: { type: 'integer', minimum: 5, exclusiveMaximum: 10 }, b: { type: 'string', maxLength: 8 } }, required: ['b'] },
        { properties: { b: { minLength: 2, maxLength: 5 } } },
      ],
    });
    assert.deepEqual(r.schema, {
      type: 'object',
      properties: {
        a: { type: 'integer', minimum: 5, exclusiveMaximum: 10 },
        b: { type: 'string', minLength: 2, maxLength: 5 },
      },
      required: ['a', 'b'],
    });
    assert.deepEqual(r.loosened, [], 'an exact merge loosens nothing');
  });

  test('additionalProperties: false in one branch: names of the other branch become false (exact)', () => {
    const r = compact({
      allOf: [
        { type: 'object', properties: { a: { type: 'string' } }, additionalProperties: false },
        { properties: { b: { type: 'number' } } },
      ],
    });
    assert.deepEqual(r.schema, { type: 'object', properties: { a: { type: 'string' }, b: false }, additionalProperties: false });
  });

  test('disjoint types give false; multipleOf and patterns combine exactly', () => {
    const r = compact({
      type: 'object',
      properties: {
        x: { allOf: [{ type: 'string' }, { type: 'integer' }] },
        m: { allOf: [{ multipleOf: 4 }, { multipleOf: 6 }] },
        p: { allOf: [{ pattern: '^a' }, { pattern: 'z$' }] },
        e: { allOf: [{ enum: ['a', 'b', 'c'] }, { enum: ['b', 'c', 'd'] }] },
      },
    });
    const p = props(r.schema);
    assert.equal(p.x, false);
    assert.deepEqual(p.m, { multipleOf: 12 });
    assert.deepEqual(p.e, { enum: ['b', 'c'] });
    const re = new RegExp((p.p as JsonObject).pattern as string, 'u');
    for (const [s, ok] of [['abz', true], ['az', true], ['ab', false], ['bz', false], ['xaz', false]] as const) assert.equal(re.test(s), ok, s);
  });

  test('draft-04 boolean exclusiveMinimum merges in its own spelling', () => {
    const r = compact({
      $schema: 'http://json-schema.org/draft-04/schema#',
      type: 'object',
      properties: { n: { allOf: [{ minimum: 5, exclusiveMinimum: true }, { minimum: 3 }] } },
    });
    assert.deepEqual(props(r.schema).n, { minimum: 5, exclusiveMinimum: true });
  });
});

describe('anyOf / oneOf', () => {
  test('an inclusive and an exclusive bound on the same value merge to the inclusive one (the value stays accepted)', () => {
    // Merging the branches of an anyOf takes the looser bound; on equal values
    // that is the inclusive one, else 5 (accepted by the first branch) would be refused.
    const cases: [string, JsonObject, JsonObject, number, number][] = [
      ['minimum', { minimum: 5 }, { exclusiveMinimum: 5 }, 5, 4],
      ['maximum', { maximum: 5 }, { exclusiveMaximum: 5 }, 5, 6],
      ['draft-07 minimum', { minimum: 5 }, { minimum: 5, exclusiveMinimum: true }, 5, 4],
    ];
    for (const [name, inclusive, exclusive, edge, outside] of cases) {
      for (const branches of [[inclusive, exclusive], [exclusive, inclusive]]) {
        const draft04Style = typeof exclusive.exclusiveMinimum === 'boolean';
        const s: JsonObject = {
          ...(draft04Style ? { $schema: 'http://json-schema.org/draft-04/schema#' } : {}),
          type: 'object',
          properties: { n: { anyOf: branches.map((b) => ({ type: 'number', ...b })) } },
          required: ['n'],
        };
        const r = compact(structuredClone(s));
        const n = props(r.schema).n as JsonObject;
        const check = compile({ ...r.schema, $schema: undefined });
        assert.ok(check({ n: edge }), `${name} ${JSON.stringify(branches)}: ${edge} refused by ${JSON.stringify(n)}`);
        assert.ok(!check({ n: outside }), `${name}: ${outside} accepted by ${JSON.stringify(n)}`);
      }
    }
  });

  test('nullable pattern: a type array with null, and enum gains null', () => {
    const r = compact({
      type: 'object',
      properties: {
        choice: { anyOf: [{ type: 'string', enum: ['a', 'b'] }, { type: 'null' }] },
        when: { oneOf: [{ type: 'string', format: 'date', description: 'When' }, { type: 'null' }] },
      },
    });
    assert.deepEqual(props(r.schema), {
      choice: { type: ['string', 'null'], enum: ['a', 'b', null] },
      when: { description: 'When', type: ['string', 'null'], format: 'date' },
    });
    assert.deepEqual(r.loosened, [], 'the nullable rewrite is exact');
  });

  test('branches of consts and enums become one enum', () => {
    const r = compact({ type: 'object', properties: { n: { anyOf: [{ const: 1 }, { const: 2 }, { enum: [2, 3] }] } } });
    assert.deepEqual(props(r.schema).n, { type: 'integer', enum: [1, 2, 3] });
  });

  test('titled consts keep their titles in a "One of" note', () => {
    const r = compact({ type: 'object', properties: { c: { oneOf: [{ const: 'red', title: 'Red' }, { const: 'green', title: 'Green' }] } } });
    assert.deepEqual(props(r.schema).c, { description: 'One of: "red" (Red) | "green" (Green)', type: 'string', enum: ['red', 'green'] });
  });

  test('scalar branches become a type array; each keyword stays with its own type', () => {
    const r = compact({
      type: 'object',
      properties: { v: { anyOf: [{ type: 'string', maxLength: 5 }, { type: 'integer', minimum: 0 }] } },
    });
    assert.deepEqual(props(r.schema).v, { type: ['string', 'integer'], minimum: 0, maxLength: 5 });
  });

  test('same-type branches: the loosest common constraints, alternatives noted', () => {
    const r = compact({
      type: 'object',
      properties: { s: { anyOf: [{ type: 'string', minLength: 2 }, { type: 'string', minLength: 5, maxLength: 10 }] } },
    });
    assert.deepEqual(props(r.schema).s, { description: 'Any of: string, length ≥ 2 | string, length 5–10', type: 'string', minLength: 2 });
    assert.ok(r.loosened.some((l) => l.startsWith('/properties/s: anyOf merged')));
  });

  test('closed object branches: properties united, required intersected, additionalProperties kept', () => {
    const r = compact({
      type: 'object',
      properties: {
        shape: {
          oneOf: [
            { type: 'object', properties: { kind: { const: 'circle' }, radius: { type: 'number' } }, required: ['kind', 'radius'], additionalProperties: false },
            { type: 'object', properties: { kind: { const: 'square' }, side: { type: 'number' } }, required: ['kind', 'side'], additionalProperties: false },
          ],
        },
      },
    });
    assert.deepEqual(props(r.schema).shape, {
      description: 'One of: {kind: "circle", radius: number} | {kind: "square", side: number}',
      type: 'object',
      properties: { kind: { type: 'string', enum: ['circle', 'square'] }, radius: { type: 'number' }, side: { type: 'number' } },
      required: ['kind'],
      additionalProperties: false,
    });
  });

  test('open object branches: a property one branch lacks accepts what that branch allows for unknown properties', () => {
    const r = compact({
      type: 'object',
      properties: {
        shape: {
          oneOf: [
            { type: 'object', properties: { kind: { const: 'circle' }, radius: { type: 'number', description: 'Radius' } }, required: ['kind', 'radius'] },
            { type: 'object', properties: { kind: { const: 'square' }, side: { type: 'number' } }, required: ['kind', 'side'], additionalProperties: { type: 'number' } },
          ],
        },
      },
    });
    const shape = props(r.schema).shape as JsonObject;
    assert.deepEqual(shape.properties, {
      kind: { type: 'string', enum: ['circle', 'square'] },
      // branch 1 accepts any other property that is a number: the loosest common schema is a number
      radius: { description: 'Radius', type: 'number' },
      // branch 0 accepts any other property at all
      side: {},
    });
    assert.deepEqual(shape.required, ['kind']);
    assert.equal(shape.additionalProperties, undefined, 'branch 0 allows any additional property');
  });

  test('anyOf next to sibling keywords is intersected with them', () => {
    const r = compact({
      type: 'object',
      properties: { id: { type: 'string' } },
      required: ['id'],
      anyOf: [{ required: ['name'] }, { required: ['email'] }],
    });
    assert.deepEqual(r.schema.required, ['id']);
    assert.deepEqual(props(r.schema).id, { type: 'string' });
    assert.match(r.schema.description as string, /^Any of: \{name\} \| \{email\}$/);
  });
});

describe('keywords that are removed or folded', () => {
  test('not is removed, with a note', () => {
    const r = compact({ type: 'object', properties: { s: { type: 'string', not: { const: 'root' } } } });
    assert.deepEqual(props(r.schema).s, { type: 'string', description: 'Must not be: "root".' });
    assert.ok(r.loosened.some((l) => l === '/properties/s: "not" dropped'));
  });

  test('if/then/else is removed, with a note', () => {
    const r = compact({
      type: 'object',
      properties: { a: { type: 'string' } },
      if: { properties: { a: { const: 'x' } } },
      then: { required: ['b'] },
    });
    assert.deepEqual(props(r.schema), { a: { type: 'string' } });
    assert.equal(r.schema.required, undefined);
    assert.equal(r.schema.description, 'Conditional: If {a?: "x"}, then {b}.');
  });

  test('dependentSchemas is removed, dependentRequired stays', () => {
    const r = compact({
      type: 'object',
      properties: { card: { type: 'string' }, billing: { type: 'string' } },
      dependentRequired: { card: ['billing'] },
      dependentSchemas: { card: { properties: { cvv: { type: 'string' } }, required: ['cvv'] } },
    });
    assert.deepEqual(r.schema.dependentRequired, { card: ['billing'] });
    assert.equal(r.schema.description, 'If "card" is present: {cvv: string}.');
  });

  test('patternProperties is folded into additionalProperties', () => {
    const r = compact({
      type: 'object',
      properties: { id: { type: 'string' } },
      patternProperties: { '^x-': { type: 'string' }, '^n-': { type: 'number' } },
      additionalProperties: false,
    });
    assert.deepEqual(r.schema, {
      description: 'Keys matching /^x-/: string; /^n-/: number.',
      type: 'object',
      properties: { id: { type: 'string' } },
      additionalProperties: { type: ['string', 'number'] },
    });
  });

  test('patternProperties with additional properties already open just goes away', () => {
    const r = compact({ type: 'object', properties: {}, patternProperties: { '^x-': { type: 'string' } } });
    assert.deepEqual(r.schema, { description: 'Keys matching /^x-/: string.', type: 'object', properties: {} });
  });

  test('unevaluatedProperties: false becomes additionalProperties: false', () => {
    const plain = compact({ type: 'object', properties: { a: { type: 'string' } }, unevaluatedProperties: false });
    assert.deepEqual(plain.schema, { type: 'object', properties: { a: { type: 'string' } }, additionalProperties: false });
    const withAnyOf = compact({
      type: 'object',
      properties: { kind: { type: 'string' } },
      anyOf: [{ properties: { a: { type: 'string' } } }, { properties: { b: { type: 'integer' } } }],
      unevaluatedProperties: false,
    });
    assert.deepEqual(Object.keys(props(withAnyOf.schema)).sort(), ['a', 'b', 'kind']);
    assert.equal(withAnyOf.schema.additionalProperties, false);
  });

  test('the 2019-09 tuple form in a 2020-12 schema becomes prefixItems/items', () => {
    const r = compact({
      type: 'object',
      properties: { pair: { type: 'array', items: [{ type: 'string' }, { type: 'number' }], additionalItems: false } },
    });
    assert.deepEqual(props(r.schema).pair, { type: 'array', prefixItems: [{ type: 'string' }, { type: 'number' }], items: false });
  });

  test('OpenAPI nullable: true is read as allowing null', () => {
    const r = compact({ type: 'object', properties: { n: { type: 'string', enum: ['a'], nullable: true } } });
    assert.deepEqual(props(r.schema).n, { type: ['string', 'null'], enum: ['a', null] });
  });

  test('unknown keywords and vendor extensions are dropped', () => {
    const r = compact({ type: 'object', properties: { a: { type: 'string', 'x-order': 1, example: 'q', $comment: 'c' } }, 'x-tool': true });
    assert.deepEqual(r.schema, { type: 'object', properties: { a: { type: 'string' } } });
  });
});

describe('top level', () => {
  test('{} and true: every object', () => {
    assert.deepEqual(compactInputSchema({}).schema, { type: 'object', properties: {} });
    assert.deepEqual(compactSchemaValue(true).schema, { type: 'object', properties: {} });
  });

  test('missing type with properties, or a type array with object: type object', () => {
    assert.deepEqual(compactInputSchema({ properties: { a: { type: 'string' } } }).schema, { type: 'object', properties: { a: { type: 'string' } } });
    assert.deepEqual(compactInputSchema({ type: ['object', 'null'], properties: {}, required: [] }).schema, { type: 'object', properties: {}, required: [] });
    assert.deepEqual(compactInputSchema({ type: 'object' }).schema, { type: 'object', properties: {} });
  });

  test('a non-object schema accepts no argument object: only {} is offered, and the description says why', () => {
    const r = compactInputSchema({ type: 'string', description: 'A path' });
    assert.deepEqual({ ...r.schema, description: undefined }, { type: 'object', properties: {}, additionalProperties: false, description: undefined });
    assert.match(r.schema.description as string, /^A path\. The original input schema accepts no JSON object \(only string\)\.$/);
    const f = compactSchemaValue(false);
    assert.equal(f.schema.additionalProperties, false);
    assert.ok(f.loosened.length > 0);
  });

  test('a top-level union keeps its object branch', () => {
    const r = compact({ anyOf: [{ type: 'object', properties: { a: { type: 'string' } }, required: ['a'] }, { type: 'string' }] });
    assert.deepEqual(r.schema, { type: 'object', properties: { a: { type: 'string' } }, required: ['a'] });
  });
});

describe('bounds', () => {
  function bigSchema(width: number, depth: number, desc: number): JsonObject {
    const level = (d: number): JsonObject =>
      d === 0
        ? { type: 'string', description: 'leaf '.repeat(desc) }
        : { type: 'object', description: `level ${d} `.repeat(desc), properties: { x: level(d - 1), y: level(d - 1) } };
    const properties: JsonObject = {};
    for (let i = 0; i < width; i++) properties[`p${i}`] = level(depth);
    return { type: 'object', properties };
  }

  test('an oversized schema is cut deepest-first to fit MAX_COMPACT_SCHEMA_BYTES', () => {
    const s = bigSchema(40, 4, 8);
    assert.ok(JSON.stringify(s).length > 3 * MAX_COMPACT_SCHEMA_BYTES);
    const r = compact(s);
    const size = Buffer.byteLength(JSON.stringify(r.schema));
    assert.ok(size <= MAX_COMPACT_SCHEMA_BYTES, `${size} bytes`);
    // every top-level property survives with its type; the deepest levels are stubs
    assert.deepEqual(Object.keys(props(r.schema)), Object.keys(props(s)));
    const p0 = props(r.schema).p0 as JsonObject;
    assert.equal(p0.type, 'object');
    assert.ok(p0.properties, 'the first level keeps its structure');
    assert.ok(JSON.stringify(r.schema).includes('(details truncated)'));
    assert.ok(r.loosened.some((l) => /larger than/.test(l)));
  });

  test('when even the top-level property list does not fit: an unconstrained object', () => {
    const properties: JsonObject = {};
    for (let i = 0; i < 5000; i++) properties[`property_number_${i}`] = { type: 'string', description: 'x'.repeat(20) };
    const r = compact({ type: 'object', properties, description: 'Many.' });
    assert.deepEqual(r.schema, { type: 'object', properties: {}, description: 'Many. (input schema too large; truncated)' });
  });

  test('nesting deeper than MAX_SCHEMA_DEPTH is cut once; the result is stable', () => {
    let deep: JsonObject = { type: 'string' };
    for (let i = 0; i < 40; i++) deep = { type: 'object', properties: { x: deep } };
    const r = compact(deep);
    assert.ok(r.loosened.some((l) => /nested deeper than/.test(l)));
    assert.deepEqual(compactInputSchema(r.schema).loosened, [], 'a second pass loosens nothing');
  });

  test('pathological inputs finish quickly, within bounds, without stack overflow', () => {
    const cases: [string, JsonValue][] = [];
    let deep: JsonObject = { type: 'string' };
    for (let i = 0; i < 100_000; i++) deep = { type: 'array', items: deep };
    cases.push(['100k nested items', { type: 'object', properties: { a: deep } }]);
    let deepAnyOf: JsonObject = { type: 'string' };
    for (let i = 0; i < 50_000; i++) deepAnyOf = { anyOf: [deepAnyOf, { type: 'null' }] };
    cases.push(['50k nested anyOf', { type: 'object', properties: { a: deepAnyOf } }]);
    const fanout: JsonObject = {};
    for (let i = 0; i < 40; i++) fanout[`D${i}`] = { type: 'object', properties: { l: { $ref: `#/$defs/D${i + 1}` }, r: { $ref: `#/$defs/D${i + 1}` } } };
    cases.push(['2^40 ref fan-out', { type: 'object', properties: { root: { $ref: '#/$defs/D0' } }, $defs: fanout }]);
    const mesh: JsonObject = {};
    for (let i = 0; i < 12; i++) {
      const p: JsonObject = {};
      for (let j = 0; j < 12; j++) p[`to${j}`] = { $ref: `#/$defs/M${j}` };
      mesh[`M${i}`] = { type: 'object', properties: p };
    }
    cases.push(['12-node recursive mesh', { $ref: '#/$defs/M0', $defs: mesh }]);
    cases.push(['200k enum', { type: 'object', properties: { e: { enum: Array.from({ length: 200_000 }, (_, i) => `v${i}`) } } }]);
    let deepData: JsonValue = 1;
    for (let i = 0; i < 100_000; i++) deepData = [deepData];
    cases.push(['100k nested default', { type: 'object', properties: { d: { type: 'array', default: deepData } } }]);
    const wide: JsonObject[] = Array.from({ length: 2000 }, (_, i) => ({ type: 'object', properties: { [`k${i}`]: { type: 'integer' } }, required: [`k${i}`] }));
    cases.push(['2000-branch oneOf', { type: 'object', properties: { u: { oneOf: wide } } }]);
    const cyclic: JsonObject = { type: 'object', properties: {} };
    (cyclic.properties as JsonObject).self = cyclic; // not JSON, but a caller could pass one
    cases.push(['cyclic object graph', cyclic]);

    for (const [name, s] of cases) {
      // Termination is what is asserted (the suite's timeout catches a runaway); speed belongs to `npm run bench`.
      const t0 = performance.now();
      const r = compactSchemaValue(s);
      console.log(`# ${name}: ${(performance.now() - t0).toFixed(0)} ms`);
      assert.deepEqual(bannedKeywords(r.schema), [], name);
      assert.ok(Buffer.byteLength(JSON.stringify(r.schema)) <= MAX_COMPACT_SCHEMA_BYTES, name);
    }
  });
});
