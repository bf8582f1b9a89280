// The per-profile checkers encode the providers' published rules
// (docs/compact-view.md "Provider profiles"): each rule has a schema that
// breaks it, and the providers' own examples pass.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { checkProfileSchema } from '../../src/catalog/profiles/check.js';

const rulesOf = (p: Parameters<typeof checkProfileSchema>[0], s: unknown): string[] => checkProfileSchema(p, s).map((b) => `${b.path} ${b.rule}`);
const closed = (properties: Record<string, unknown>): Record<string, unknown> => ({ type: 'object', properties, required: Object.keys(properties), additionalProperties: false });

// OpenAI's function-calling examples for strict mode.
const WEATHER = closed({ location: { type: 'string', description: 'The location' }, unit: { type: ['string', 'null'], enum: ['F', 'C', null] } });
const QUERY = closed({
  table_name: { type: 'string', enum: ['orders'] },
  columns: { type: 'array', items: { type: 'string', enum: ['id', 'status', 'ordered_at'] } },
  conditions: {
    type: 'array',
    items: closed({ column: { type: 'string' }, operator: { type: 'string', enum: ['=', '>', '<'] }, value: { anyOf: [{ type: 'string' }, { type: 'number' }, closed({ column_name: { type: 'string' } })] } }),
  },
  order_by: { type: 'string', enum: ['asc', 'desc'] },
});
const RECURSIVE = { ...closed({ root: { $ref: '#/$defs/node' } }), $defs: { node: closed({ value: { type: 'string' }, children: { type: 'array', items: { $ref: '#/$defs/node' } } }) } };

test('openai-strict: the published examples pass', () => {
  for (const s of [WEATHER, QUERY, RECURSIVE, closed({})]) assert.deepEqual(rulesOf('openai-strict', s), []);
  for (const f of ['date-time', 'time', 'date', 'duration', 'email', 'hostname', 'ipv4', 'ipv6', 'uuid']) assert.deepEqual(rulesOf('openai-strict', closed({ a: { type: 'string', format: f } })), []);
  assert.deepEqual(rulesOf('openai-strict', closed({ n: { type: 'number', minimum: 0, exclusiveMaximum: 5, multipleOf: 0.5 }, l: { type: 'array', items: { type: 'integer' }, minItems: 1, maxItems: 3 }, s: { type: 'string', pattern: '^a' }, c: { const: 'x' } })), []);
});

test('openai-strict: each published rule has a schema that breaks it', () => {
  const cases: Array<[string, unknown, RegExp]> = [
    ['root not an object', { type: 'string' }, /root schema must be an object/],
    ['root anyOf', { anyOf: [closed({})], type: 'object', properties: {}, required: [], additionalProperties: false }, /must not be anyOf/],
    ['additionalProperties missing', { type: 'object', properties: { a: { type: 'string' } }, required: ['a'] }, /additionalProperties: false/],
    ['additionalProperties a schema', { ...closed({}), additionalProperties: { type: 'string' } }, /additionalProperties: false/],
    ['optional property', { ...closed({ a: { type: 'string' }, b: { type: 'string' } }), required: ['a'] }, /must be required \(not: b\)/],
    ['unsupported keyword minLength', closed({ a: { type: 'string', minLength: 1 } }), /keyword "minLength"/],
    ['unsupported keyword allOf', closed({ a: { allOf: [{ type: 'string' }] } }), /keyword "allOf"/],
    ['unsupported keyword uniqueItems', closed({ a: { type: 'array', items: { type: 'string' }, uniqueItems: true } }), /keyword "uniqueItems"/],
    ['unsupported format', closed({ a: { type: 'string', format: 'uri' } }), /format "uri"/],
    ['two non-null types', closed({ a: { type: ['string', 'number'] } }), /one supported type/],
    ['no type', closed({ a: { description: 'anything' } }), /needs a type/],
    ['boolean schema', closed({ a: true }), /no boolean schemas/],
    ['array without items', closed({ a: { type: 'array' } }), /needs items/],
    ['dangling $ref', closed({ a: { $ref: '#/$defs/missing' } }), /root \$defs/],
    ['object enum value', closed({ a: { type: 'object', properties: {}, required: [], additionalProperties: false, enum: [{}] } }), /enum values must be/],
    ['more than 5000 properties', closed(Object.fromEntries(Array.from({ length: 5001 }, (_, i) => [`p${i}`, { type: 'string' }]))), /at most 5000 object properties/],
    ['more than 10 levels of nesting', Array.from({ length: 10 }).reduce<Record<string, unknown>>((inner) => closed({ x: inner }), closed({})), /at most 10 levels/],
    ['more than 1000 enum values', closed({ a: { type: 'integer', enum: Array.from({ length: 1001 }, (_, i) => i) } }), /at most 1000 enum values/],
    ['large enum too long', closed({ a: { type: 'string', enum: Array.from({ length: 251 }, (_, i) => `${'v'.repeat(60)}${i}`) } }), /more than 250 values may total at most 15000/],
    ['string length over 120,000', closed({ a: { type: 'string', enum: Array.from({ length: 200 }, (_, i) => `${'w'.repeat(700)}${i}`) } }), /total at most 120000 characters/],
  ];
  for (const [name, schema, rule] of cases) assert.ok(rulesOf('openai-strict', schema).some((r) => rule.test(r)), `${name}: ${JSON.stringify(rulesOf('openai-strict', schema))}`);
  // ten levels are fine
  assert.deepEqual(rulesOf('openai-strict', Array.from({ length: 9 }).reduce<Record<string, unknown>>((inner) => closed({ x: inner }), closed({}))), []);
});

test('gemini: the published example passes; each rule has a schema that breaks it', () => {
  const good = { type: 'OBJECT', properties: { either: { anyOf: [{ type: 'string' }, { type: 'boolean', nullable: true }] }, param1: { type: 'STRING' }, param2: { type: 'INTEGER', format: 'int32' }, when: { type: 'string', format: 'date-time', nullable: true }, color: { type: 'string', enum: ['red', 'blue'] }, tags: { type: 'array', items: { type: 'string' }, maxItems: 3 } }, required: ['param1'] };
  assert.deepEqual(rulesOf('gemini', good), []);
  const cases: Array<[string, unknown, RegExp]> = [
    ['root not an object', { type: 'string' }, /type OBJECT/],
    ['additionalProperties', { type: 'object', properties: { a: { type: 'string' } }, additionalProperties: false }, /"additionalProperties" is not part/],
    ['type array', { type: 'object', properties: { a: { type: ['string', 'null'] } } }, /exactly one type/],
    ['no type', { type: 'object', properties: { a: { description: 'x' } } }, /exactly one type/],
    ['integer enum', { type: 'object', properties: { a: { type: 'integer', enum: [1, 2] } } }, /enum holds strings/],
    ['unsupported format', { type: 'object', properties: { a: { type: 'string', format: 'uuid' } } }, /format "uuid"/],
    ['anyOf branch without a type', { type: 'object', properties: { a: { anyOf: [{ type: 'string' }, { description: 'x' }] } } }, /exactly one type/],
    ['const', { type: 'object', properties: { a: { type: 'string', const: 'x' } } }, /"const" is not part/],
    ['$ref', { type: 'object', properties: { a: { $ref: '#/x' } } }, /"\$ref" is not part/],
    ['exclusiveMinimum', { type: 'object', properties: { a: { type: 'number', exclusiveMinimum: 0 } } }, /"exclusiveMinimum" is not part/],
    ['nested object without properties', { type: 'object', properties: { a: { type: 'object' } } }, /non-empty for OBJECT/],
    ['array without items', { type: 'object', properties: { a: { type: 'array' } } }, /needs items/],
    ['parameter name', { type: 'object', properties: { 'a-b': { type: 'string' } } }, /parameter names/],
    ['required not declared', { type: 'object', properties: { a: { type: 'string' } }, required: ['b'] }, /not declared/],
  ];
  for (const [name, schema, rule] of cases) assert.ok(rulesOf('gemini', schema).some((r) => rule.test(r)), `${name}: ${JSON.stringify(rulesOf('gemini', schema))}`);
});

test('anthropic: an object schema passes, anything else breaks the rule', () => {
  assert.deepEqual(rulesOf('anthropic', { type: 'object', properties: { a: { anyOf: [{ type: 'string' }] } } }), []);
  assert.ok(rulesOf('anthropic', { type: 'string' }).length === 1);
  assert.ok(rulesOf('anthropic', true).length === 1);
});
