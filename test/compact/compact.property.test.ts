// Property tests of compactInputSchema, and of the closed top level the
// compact view serves (closeTopLevel), over generated schemas (fast-check).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { closeTopLevel, REQUIRED_MARK } from '../../src/catalog/compact/close-top-level.js';
import { compactInputSchema } from '../../src/catalog/compact/compact-input-schema.js';
import { errorsOf, validatePublishedCompactInputSchema } from '../helpers/schemas.js';
import { MAX_COMPACT_SCHEMA_BYTES } from '../../src/catalog/compact/limits.js';
import { schemaWithBannedKeywords, subsetSchema } from './support/arbitraries.js';
import { allContainers, bannedKeywords, deepFreeze, foreignKeywords } from './support/walk.js';

const NAMES = ['a', 'b', 'kind', 'oneOf', '$ref', 'not', 'properties', '__proto__', 'constructor'];
const RUNS = { numRuns: 300, seed: 20240605 };

const withBanned = schemaWithBannedKeywords(NAMES);

test('generated schemas really use the banned keywords (generator sanity)', () => {
  const sample = fc.sample(withBanned, { numRuns: 300, seed: 1 });
  const used = new Set(sample.flatMap((s) => bannedKeywords(s).map((p) => p.split('/').pop())));
  for (const k of ['$ref', 'oneOf', 'allOf', 'anyOf', 'not', 'patternProperties', 'dependentSchemas']) assert.ok(used.has(k), `never generated ${k}`);
  assert.ok(sample.some((s) => JSON.stringify(s).includes('"$ref":"#"')), 'no self-recursive $ref');
});

test('no banned keyword at any depth, only subset keywords, top level is an object with properties', () => {
  fc.assert(
    fc.property(withBanned, (s) => {
      const { schema } = compactInputSchema(s);
      assert.deepEqual(bannedKeywords(schema), []);
      assert.deepEqual(foreignKeywords(schema), []);
      assert.equal(schema.type, 'object');
      assert.ok(typeof schema.properties === 'object' && schema.properties !== null && !Array.isArray(schema.properties));
      assert.ok(Buffer.byteLength(JSON.stringify(schema)) <= MAX_COMPACT_SCHEMA_BYTES);
    }),
    RUNS,
  );
});

test('idempotent: compact(compact(s)) deep-equals compact(s), and the second pass loosens nothing', () => {
  fc.assert(
    fc.property(withBanned, (s) => {
      const once = compactInputSchema(s).schema;
      const twice = compactInputSchema(once);
      assert.deepEqual(twice.schema, once);
      assert.deepEqual(twice.loosened, []);
    }),
    RUNS,
  );
});

test('a schema already in the subset comes back deep-equal, with nothing loosened', () => {
  fc.assert(
    fc.property(subsetSchema(NAMES), (s) => {
      const copy = structuredClone(s);
      const r = compactInputSchema(s);
      assert.deepEqual(r.schema, copy);
      assert.deepEqual(r.loosened, []);
    }),
    RUNS,
  );
});

test('the input is never mutated and the output shares no object with it', () => {
  fc.assert(
    fc.property(withBanned, (s) => {
      const before = JSON.stringify(s);
      const frozen = deepFreeze(s); // any write would throw (ESM code is strict)
      const { schema } = compactInputSchema(frozen);
      assert.equal(JSON.stringify(s), before);
      const inputObjects = allContainers(s);
      for (const o of allContainers(schema)) assert.ok(!inputObjects.has(o), 'output aliases an input object');
    }),
    RUNS,
  );
});

test('names stay names: properties named like keywords survive the rewrite', () => {
  fc.assert(
    fc.property(fc.constantFrom('oneOf', '$ref', 'not', 'allOf', 'patternProperties', '__proto__'), (name) => {
      const s = JSON.parse(`{"type":"object","properties":{"${name}":{"anyOf":[{"type":"string"},{"type":"null"}]}},"required":["${name}"]}`);
      const { schema } = compactInputSchema(s);
      const props = schema.properties as Record<string, unknown>;
      assert.ok(Object.hasOwn(props, name));
      assert.deepEqual(props[name], { type: ['string', 'null'] });
      assert.deepEqual(schema.required, [name]);
    }),
  );
});

const DIALECTS = ['http://json-schema.org/draft-04/schema#', 'http://json-schema.org/draft-07/schema#', 'https://json-schema.org/draft/2019-09/schema', 'https://json-schema.org/draft/2020-12/schema'];

/** Generated schemas, sometimes under an older dialect and with the top-level keywords upstream schemas carry. */
const withTopLevelNoise = fc
  .tuple(withBanned, fc.option(fc.constantFrom(...DIALECTS)), fc.record({
    $id: fc.constant('https://example.test/args.json'),
    title: fc.constant('Arguments'),
    description: fc.constant('The arguments.'),
    examples: fc.constant([{ a: 'x' }]),
    required: fc.subarray(['a', 'kind', 'oneOf', 'zz']),
    additionalProperties: fc.oneof(fc.constant(false), fc.constant({ type: 'string' })),
    minProperties: fc.constant(1),
    dependentRequired: fc.constant({ a: ['b'] }),
  }, { requiredKeys: [] }))
  .map(([s, dialect, extra]) => (typeof s === 'object' && s !== null ? { ...(dialect === null ? {} : { $schema: dialect }), ...s, ...extra } : s));

test('closed top level: valid against the published v2 compact inputSchema, only type and properties, required names marked', () => {
  fc.assert(
    fc.property(withTopLevelNoise, (s) => {
      const compact = compactInputSchema(s as never).schema;
      const closed = closeTopLevel(compact);
      assert.ok(validatePublishedCompactInputSchema(closed.schema), errorsOf(validatePublishedCompactInputSchema));
      assert.deepEqual(Object.keys(closed.schema), ['type', 'properties']);
      assert.deepEqual(bannedKeywords(closed.schema), []);
      assert.deepEqual(foreignKeywords(closed.schema), []);
      // Older spellings are gone: the closed schema is read as 2020-12.
      assert.doesNotMatch(JSON.stringify(closed.schema), /"(additionalItems|dependencies)":|"exclusive(Min|Max)imum":(true|false)|"items":\[/);
      const required = Array.isArray(compact.required) ? (compact.required as string[]) : [];
      assert.deepEqual(closed.required, [...new Set(required)]);
      for (const name of required) {
        const p = (closed.schema.properties as Record<string, unknown>)[name];
        if (p === false) continue;
        assert.ok(typeof p === 'object' && p !== null && String((p as { description?: unknown }).description).endsWith(REQUIRED_MARK), `${name} not marked: ${JSON.stringify(p)}`);
      }
      // Closing what is closed changes nothing, and a closed schema is its own rewrite.
      const again = closeTopLevel(closed.schema);
      assert.deepEqual(again.schema, closed.schema);
      assert.deepEqual(again.moved, []);
      const rewritten = compactInputSchema(closed.schema);
      assert.deepEqual(rewritten.schema, closed.schema);
      assert.deepEqual(rewritten.loosened, []);
    }),
    RUNS,
  );
});
