// One call's validation is bounded whatever the schema holds: a huge enum is
// a lookup, uniqueItems a hash set, and an instance too large or too deep is
// refused with a reason before ajv sees it. Work is counted, never timed:
// the instance's objects are proxies that count how often they are read, so
// a check comparing with every enum value or every pair of items reads them
// thousands of times more than a linear one.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import type { JsonObject } from '../../src/contract/descriptor.js';
import { compileSchema, instanceTooLarge, MAX_VALIDATED_DEPTH, MAX_VALIDATED_VALUES } from '../../src/invoke/schema-validator.js';
import { withLinearPatterns } from '../../src/util/linear-regex.js';

/** An object that counts every read of its keys and values into `reads`. */
function counted<T extends object>(value: T, reads: { n: number }): T {
  return new Proxy(value, {
    get: (t, k, r) => (reads.n++, Reflect.get(t, k, r)),
    ownKeys: (t) => (reads.n++, Reflect.ownKeys(t)),
    getOwnPropertyDescriptor: (t, k) => (reads.n++, Reflect.getOwnPropertyDescriptor(t, k)),
  });
}

describe('validation work of one call is bounded', () => {
  test('an enum of 20,000 objects: the instance is read a few times, not once per value', () => {
    const v = compileSchema({ enum: Array.from({ length: 20_000 }, (_, i) => ({ id: i, kind: 'k' })) })!;
    const reads = { n: 0 };
    assert.equal(v(counted({ kind: 'k', id: 19_999 }, reads)), true);
    assert.equal(v(counted({ kind: 'k', id: 20_000 }, reads)), false);
    assert.equal(v.errors?.[0]?.message, 'must be equal to one of the allowed values');
    assert.ok(reads.n < 100, `${reads.n} reads`);
  });

  test('an enum of 100,000 strings: members accepted, others refused', () => {
    const v = compileSchema({ type: 'array', items: { enum: Array.from({ length: 100_000 }, (_, i) => `v${i}`) } })!;
    assert.equal(v(Array.from({ length: 1_000 }, (_, i) => `v${i * 2}`)), true);
    assert.equal(v(['v1', 'nope']), false);
  });

  test('enum and uniqueItems keep JSON equality: key order aside, types apart', () => {
    const e = compileSchema({ enum: ['1', { a: 1, b: [true, null] }] })!;
    assert.equal(e({ b: [true, null], a: 1 }), true);
    assert.equal(e(1), false);
    assert.equal(e({ a: 1 }), false);
    const u = compileSchema({ type: 'array', uniqueItems: true })!;
    assert.equal(u([1, '1', { a: 1, b: 2 }, [1]]), true);
    assert.equal(u([{ a: 1, b: 2 }, { b: 2, a: 1 }]), false);
  });

  test('uniqueItems over 2,000 objects reads each a few times, not once per pair', () => {
    const v = compileSchema({ type: 'array', uniqueItems: true })!;
    const reads = { n: 0 };
    const items = Array.from({ length: 2_000 }, (_, i) => counted({ id: i, tag: 'x' }, reads));
    assert.equal(v(items), true);
    assert.ok(reads.n < 20 * items.length, `${reads.n} reads for ${items.length} items`);
    assert.equal(v([...items, { tag: 'x', id: 7 }]), false);
  });

  test('an instance nested past the bound, or with too many values, is refused with a reason', () => {
    let deep: unknown = 'leaf';
    for (let i = 0; i < 20_000; i++) deep = [deep];
    assert.match(instanceTooLarge(deep) ?? '', new RegExp(`nests deeper than ${MAX_VALIDATED_DEPTH} levels`));
    assert.match(instanceTooLarge(new Array(MAX_VALIDATED_VALUES).fill(0)) ?? '', /holds more than/);
    assert.equal(instanceTooLarge({ a: [1, 2, { b: 'c' }] }), undefined);
  });
});

describe('patterns RE2 cannot run only loosen', () => {
  const LOOKAHEAD = '^(?=x)x+$';

  test('under monotone keywords the pattern is dropped, the rest kept', () => {
    const { schema, unenforced } = withLinearPatterns({ type: 'object', properties: { s: { type: 'string', pattern: LOOKAHEAD, maxLength: 3 } } });
    assert.deepEqual(unenforced, ['/properties/s/pattern']);
    assert.deepEqual(schema, { type: 'object', properties: { s: { type: 'string', maxLength: 3 } } });
  });

  test('under not/if/oneOf/contains the schema is not enforced at all', () => {
    const schemas: JsonObject[] = [{ not: { pattern: LOOKAHEAD } }, { oneOf: [{ pattern: LOOKAHEAD }, { type: 'string' }] }, { if: { pattern: LOOKAHEAD }, then: { maxLength: 1 } }, { contains: { pattern: LOOKAHEAD }, maxContains: 1 }];
    for (const schema of schemas) {
      assert.equal(withLinearPatterns(schema).schema, undefined, JSON.stringify(schema));
      assert.equal(compileSchema(schema), null);
    }
  });

  test('an unrunnable patternProperties key takes additionalProperties with it', () => {
    const v = compileSchema({ type: 'object', patternProperties: { '^(a)\\1$': { type: 'number' } }, additionalProperties: false })!;
    assert.equal(v({ aa: 'not a number', other: 1 }), true);
  });

  test('property: whatever the loosened validator refuses, the original (on ECMAScript) refuses too', () => {
    const schema = { type: 'object', properties: { s: { type: 'string', pattern: '^(?!z)[a-z]+$', maxLength: 4 }, n: { enum: [1, 2, 'x'] } }, required: ['s'] };
    const loosened = compileSchema(schema)!;
    const re = /^(?!z)[a-z]+$/u;
    const original = (d: { s?: unknown; n?: unknown }) => typeof d.s === 'string' && re.test(d.s) && d.s.length <= 4 && (d.n === undefined || [1, 2, 'x'].includes(d.n as never));
    fc.assert(
      fc.property(fc.record({ s: fc.oneof(fc.string({ maxLength: 6 }), fc.constantFrom('zed', 'abc', 'abcde')), n: fc.oneof(fc.constantFrom(1, 2, 'x', 3, 'y'), fc.constant(undefined)) }, { requiredKeys: ['s'] }), (d) => {
        const args = d.n === undefined ? { s: d.s } : d;
        if (!loosened(args)) assert.equal(original(args), false, JSON.stringify(args));
      }),
    );
  });
});
