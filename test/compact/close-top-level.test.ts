// closeTopLevel: the compact view's input schema holds only `type` and
// `properties` at the top (published v2 CompactToolDescriptor), with what the
// model needs moved, not lost, and older dialects re-spelled in 2020-12.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { compactDescriptor } from '../../src/catalog/compact-descriptor.js';
import { closeTopLevel } from '../../src/catalog/compact/close-top-level.js';
import { compactInputSchema } from '../../src/catalog/compact/compact-input-schema.js';
import { MAX_COMPACT_SCHEMA_BYTES } from '../../src/catalog/compact/limits.js';
import { errorsOf, validatePublishedCompactInputSchema, validatePublishedCompactV2 } from '../helpers/schemas.js';
import { compile } from './support/validators.js';

const closed = (s: Record<string, unknown>) => closeTopLevel(compactInputSchema(s as never).schema);

test('top-level keywords other than type and properties go; required becomes "(required)" marks', () => {
  const r = closed({
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    $id: 'https://example.test/a.json',
    title: 'Args',
    examples: [{ path: 'x' }],
    type: 'object',
    properties: { path: { type: 'string', description: 'File path.' }, flag: true, mode: { type: 'string' } },
    required: ['path', 'flag', 'extra'],
    additionalProperties: { type: 'integer' },
    minProperties: 1,
    dependentRequired: { mode: ['path'] },
  });
  assert.ok(validatePublishedCompactInputSchema(r.schema), errorsOf(validatePublishedCompactInputSchema));
  assert.deepEqual(r.schema, {
    type: 'object',
    properties: {
      path: { type: 'string', description: 'File path. (required)' },
      flag: { description: '(required)' },
      mode: { type: 'string' },
      // a required name without an entry gets the schema additionalProperties gave it
      extra: { type: 'integer', description: '(required)' },
    },
  });
  assert.deepEqual(r.required, ['path', 'flag', 'extra']);
  assert.deepEqual(r.moved.map((m) => m.split(':')[0]).sort(), ['/$schema', '/additionalProperties', '/dependentRequired', '/examples', '/minProperties', '/required', '/title'].sort());
});

test('nested objects keep their required and additionalProperties', () => {
  const inner = { type: 'object', properties: { a: { type: 'string' } }, required: ['a'], additionalProperties: false };
  const r = closed({ type: 'object', properties: { inner }, additionalProperties: false });
  assert.deepEqual(r.schema.properties, { inner });
  assert.deepEqual(r.required, []);
});

test('older dialects are re-spelled in 2020-12 (the closed schema has no $schema), accepting the same instances', () => {
  const cases: [Record<string, unknown>, Record<string, unknown>][] = [
    [
      { $schema: 'http://json-schema.org/draft-04/schema#', type: 'object', properties: { n: { type: 'number', minimum: 0, exclusiveMinimum: true, maximum: 9 } } },
      { n: { type: 'number', exclusiveMinimum: 0, maximum: 9 } },
    ],
    [
      { $schema: 'http://json-schema.org/draft-07/schema#', type: 'object', properties: { o: { type: 'object', dependencies: { a: ['b'] } } } },
      { o: { type: 'object', dependentRequired: { a: ['b'] } } },
    ],
    [
      { $schema: 'https://json-schema.org/draft/2019-09/schema', type: 'object', properties: { t: { type: 'array', items: [{ type: 'string' }], additionalItems: { type: 'integer' } } } },
      { t: { type: 'array', prefixItems: [{ type: 'string' }], items: { type: 'integer' } } },
    ],
  ];
  for (const [original, properties] of cases) {
    const r = closed(original);
    assert.deepEqual(r.schema.properties, properties, JSON.stringify(original));
    // ajv has no draft-04 meta-schema: there the exclusive bound speaks for itself (0 is out, 0.5 is in).
    const before = String(original.$schema).includes('draft-04') ? (x: unknown) => (x as { n?: number }).n !== 0 : compile(original);
    const after = compile(r.schema);
    for (const x of [{ n: 0 }, { n: 0.5 }, { o: { a: 1 } }, { o: { a: 1, b: 2 } }, { t: ['x', 1, 2] }, { t: ['x', 'y'] }, { t: [1] }]) {
      assert.equal(after(x), before(x), `${JSON.stringify(original)} on ${JSON.stringify(x)}`);
    }
  }
});

test('the notes of the rewrite at the top move into the compact description', () => {
  const c = compactDescriptor({
    toolId: 'mcp:x.draw',
    source: 'mcp',
    safetyTier: 'write',
    description: 'Draws a shape.',
    inputSchema: {
      oneOf: [
        { type: 'object', properties: { kind: { const: 'circle' }, radius: { type: 'number' } }, required: ['kind', 'radius'] },
        { type: 'object', properties: { kind: { const: 'square' }, side: { type: 'number' } }, required: ['kind', 'side'] },
      ],
    },
  });
  assert.ok(validatePublishedCompactV2(c), errorsOf(validatePublishedCompactV2));
  assert.match(c.description!, /^Draws a shape\. Arguments: One of: \{kind: "circle", radius: number\} \| \{kind: "square", side: number\}/);
  assert.equal((c.inputSchema!.properties as Record<string, { description?: string }>).kind.description, '(required)');
});

test('the size bound still holds after the marks are added', () => {
  const properties: Record<string, unknown> = {};
  const required: string[] = [];
  for (let i = 0; i < 3000; i++) {
    properties[`p${i}`] = { type: 'string' };
    required.push(`p${i}`);
  }
  const r = closed({ type: 'object', properties, required });
  assert.ok(validatePublishedCompactInputSchema(r.schema), errorsOf(validatePublishedCompactInputSchema));
  assert.ok(Buffer.byteLength(JSON.stringify(r.schema)) <= MAX_COMPACT_SCHEMA_BYTES);
});
