// fast-check arbitraries for JSON Schemas: `schemaWithBannedKeywords` uses
// every banned keyword (nested, with `$ref`s into `$defs` and to the root,
// recursive definitions, dangling and external refs), plus if/then/else,
// dependentSchemas, patternProperties and unevaluated*; `subsetSchema` stays
// inside the compact subset. Every generated value is a plain JSON tree.
import fc from 'fast-check';

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
type Obj = { [k: string]: Json };

function fromEntries(entries: readonly (readonly [string, Json])[]): Obj {
  const o: Obj = {};
  for (const [k, v] of entries) Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true });
  return o;
}

function clean(o: Record<string, Json | undefined>): Obj {
  const out: Obj = {};
  for (const k of Object.keys(o)) if (o[k] !== undefined) out[k] = o[k] as Json;
  return out;
}

/** A record whose every key is optional. */
function some<T extends Record<string, fc.Arbitrary<Json>>>(spec: T): fc.Arbitrary<Obj> {
  return fc.record(spec, { requiredKeys: [] }).map((r) => clean(r as Record<string, Json | undefined>));
}

const smallValue: fc.Arbitrary<Json> = fc.oneof(
  fc.constantFrom<Json>(null, true, false, 0, 1, 2.5, -1, 7, 'a', 'b', 'ab', '', 'oneOf'),
  fc.constant<Json>({ $ref: '#/not-a-ref', oneOf: [1] }),
  fc.constant<Json>([1, 'a']),
);

/** At most two keys of the spec. */
function few(spec: Record<string, fc.Arbitrary<Json>>): fc.Arbitrary<Obj> {
  const keys = Object.keys(spec);
  return fc
    .subarray(keys, { maxLength: 2 })
    .chain((ks) => fc.tuple(...ks.map((k) => spec[k])).map((vals) => fromEntries(ks.map((k, i) => [k, vals[i]] as const))));
}

const stringLeaf = few({
  minLength: fc.integer({ min: 0, max: 3 }),
  maxLength: fc.integer({ min: 2, max: 8 }),
  pattern: fc.constantFrom('^a', 'b', '^[a-c]*$', '\\d'),
  format: fc.constantFrom('date', 'email'),
  enum: fc.uniqueArray(fc.constantFrom('a', 'b', 'ab', 'abc', 'ba', '1'), { minLength: 1, maxLength: 3 }),
  description: fc.constantFrom('A string.', 'Name'),
}).map((r) => ({ type: 'string', ...r }));

const numberLeaf = fc
  .tuple(
    fc.constantFrom('integer', 'number'),
    few({
      minimum: fc.integer({ min: -5, max: 5 }),
      maximum: fc.integer({ min: 0, max: 20 }),
      exclusiveMinimum: fc.integer({ min: -5, max: 5 }),
      exclusiveMaximum: fc.integer({ min: 0, max: 20 }),
      multipleOf: fc.constantFrom(2, 3, 0.5),
      default: fc.constantFrom(1, 2),
    }),
  )
  .map(([type, r]) => ({ type, ...r }));

const leaf: fc.Arbitrary<Json> = fc.oneof(
  stringLeaf,
  numberLeaf,
  fc.constantFrom<Json>({ type: 'boolean' }, { type: 'null' }, {}, true, { type: ['string', 'integer'] }, { type: ['number', 'null'], maximum: 3 }),
  smallValue.map((v) => ({ const: v })),
  fc.uniqueArray(smallValue, { minLength: 1, maxLength: 4, selector: (v) => JSON.stringify(v) }).map((e) => ({ enum: e })),
);

/**
 * `resolvableOnly` leaves out dangling and external refs (validators refuse to
 * compile those, so the soundness corpus cannot use them).
 */
export function schemaWithBannedKeywords(names: readonly string[], maxDepth = 4, resolvableOnly = false): fc.Arbitrary<Obj> {
  const refs = ['#/$defs/D0', '#/$defs/D1', '#', '#/$defs/D1/properties/value', '#/definitions/E', '#/$defs/D0'];
  if (!resolvableOnly) refs.push('#/$defs/missing', 'https://example.com/other.json#/x');
  const nameArb = fc.constantFrom(...names);
  const dependentObject: fc.Arbitrary<Json> = fc.oneof(
    fc.tuple(nameArb, leaf).map(([n, l]) => ({ properties: fromEntries([[n, l]]) }) as Json),
    fc.subarray([...names], { minLength: 1, maxLength: 2 }).map((r) => ({ required: r }) as Json),
    fc.constant<Json>({ maxProperties: 2 }),
  );
  const { node, object } = fc.letrec<{ node: Json; object: Json; array: Json; combo: Json; ref: Json }>((tie) => ({
    node: fc.oneof({ maxDepth, depthIdentifier: 'schema' }, leaf, leaf, tie('object'), tie('array'), tie('combo'), tie('combo'), tie('ref')),
    object: fc
      .tuple(
        fc.uniqueArray(fc.tuple(nameArb, tie('node')), { maxLength: 3, selector: (t) => t[0] }),
        some({
          type: fc.constant('object'),
          additionalProperties: fc.oneof(fc.constant(true), fc.boolean(), tie('node')),
          patternProperties: fc.uniqueArray(fc.tuple(fc.constantFrom('^x', '^a', 'z$'), tie('node')), { maxLength: 1, selector: (t) => t[0] }).map(fromEntries),
          dependentSchemas: fc.uniqueArray(fc.tuple(nameArb, dependentObject), { maxLength: 1, selector: (t) => t[0] }).map(fromEntries),
          dependentRequired: fc.uniqueArray(fc.tuple(nameArb, fc.subarray([...names], { minLength: 1, maxLength: 2 })), { maxLength: 2, selector: (t) => t[0] }).map(fromEntries),
          minProperties: fc.constantFrom(0, 0, 1),
          maxProperties: fc.integer({ min: 2, max: 5 }),
          unevaluatedProperties: fc.boolean(),
          description: fc.constantFrom('An object.', 'Options'),
        }),
        fc.boolean(),
      )
      .chain(([entries, rest, withRequired]) => {
        const declared = entries.map(([n]) => n);
        // mostly require declared names; sometimes any name
        const required = withRequired ? fc.subarray(declared, { maxLength: Math.min(2, declared.length) }) : fc.subarray([...names], { maxLength: 1 });
        return required.map((r) => ({ ...rest, properties: fromEntries(entries), ...(r.length > 0 || withRequired ? { required: r } : {}) }) as Json);
      }),
    array: some({
      items: tie('node'),
      prefixItems: fc.array(tie('node'), { minLength: 1, maxLength: 2 }),
      minItems: fc.integer({ min: 0, max: 2 }),
      maxItems: fc.integer({ min: 1, max: 4 }),
      uniqueItems: fc.boolean(),
      contains: tie('node'),
    }).map((r) => ({ type: 'array', ...r })),
    combo: fc.oneof(
      fc.tuple(fc.constantFrom('allOf', 'anyOf', 'oneOf'), fc.array(tie('node'), { minLength: 1, maxLength: 2 }), some({
        type: fc.constantFrom('object', 'string', 'integer'),
        description: fc.constant('Combined.'),
        required: fc.subarray([...names], { maxLength: 2 }),
        properties: fc.uniqueArray(fc.tuple(nameArb, tie('node')), { maxLength: 2, selector: (t) => t[0] }).map(fromEntries),
      })).map(([k, branches, siblings]) => ({ ...siblings, [k]: branches })),
      fc.tuple(tie('node'), some({ type: fc.constantFrom('string', 'integer', 'object') })).map(([n, s]) => ({ ...s, not: n })),
      fc.tuple(tie('node'), tie('node'), tie('node')).map(([i, t, e]) => ({ if: i, then: t, else: e })),
      fc.tuple(fc.constantFrom('anyOf', 'oneOf'), stringLeaf).map(([k, l]) => ({ [k]: [l, { type: 'null' }] })),
      fc.tuple(tie('object'), tie('object')).map(([a, b]) => ({ oneOf: [a, b] })),
    ),
    ref: fc.tuple(
      fc.constantFrom(...refs),
      some({ description: fc.constant('Referenced.'), type: fc.constantFrom('object', 'integer'), minimum: fc.constant(1) }),
    ).map(([ref, siblings]) => ({ ...siblings, $ref: ref })),
  }));
  const recursiveDef = fc.constantFrom<Json>(
    { type: 'object', properties: { value: { type: 'integer' }, next: { $ref: '#/$defs/D1' } }, required: ['value'] },
    { properties: { value: { type: 'string' } }, anyOf: [{ type: 'null' }, { type: 'object', properties: { children: { type: 'array', items: { $ref: '#/$defs/D1' } } } }] },
    { type: 'object', properties: { value: { type: 'number' }, self: { $ref: '#' } } },
  );
  // roots that can accept objects (tool arguments), and sometimes any schema at all
  const objectRoot = fc.oneof(
    object,
    object,
    fc.tuple(fc.constantFrom('allOf', 'anyOf', 'oneOf'), fc.array(object, { minLength: 1, maxLength: 2 })).map(([k, b]) => ({ [k]: b }) as Json),
    fc.tuple(object, fc.constantFrom('#/$defs/D0', '#/$defs/D1')).map(([o, ref]) => ({ ...(o as Obj), $ref: ref }) as Json),
  );
  return fc
    .record({ root: fc.oneof(objectRoot, objectRoot, objectRoot, node), d0: fc.oneof(object, node), d1: recursiveDef, e: leaf })
    .map(({ root, d0, d1, e }) => {
      const base: Obj = typeof root === 'object' && root !== null && !Array.isArray(root) ? (root as Obj) : { anyOf: [root, { type: 'object' }] };
      return JSON.parse(JSON.stringify({ ...base, $defs: { D0: d0, D1: d1 }, definitions: { E: e } })) as Obj;
    });
}

// ---- the compact subset -----------------------------------------------------

const subsetLeaf: fc.Arbitrary<Json> = fc.oneof(
  stringLeaf,
  numberLeaf,
  fc.constantFrom<Json>({ type: 'boolean' }, { type: 'null' }, {}, true, false, { type: ['string', 'null'] }, { type: 'integer', format: 'int32' }),
  smallValue.map((v) => ({ const: v })),
  fc.uniqueArray(smallValue, { minLength: 1, maxLength: 4, selector: (v) => JSON.stringify(v) }).map((e) => ({ enum: e, title: 'Choice' })),
);

export function subsetSchema(names: readonly string[], maxDepth = 4): fc.Arbitrary<Obj> {
  const nameArb = fc.constantFrom(...names);
  const props = (node: fc.Arbitrary<Json>): fc.Arbitrary<Obj> =>
    fc.uniqueArray(fc.tuple(nameArb, node), { maxLength: 4, selector: (t) => t[0] }).map(fromEntries);
  const { node } = fc.letrec<{ node: Json; object: Json; array: Json }>((tie) => ({
    node: fc.oneof({ maxDepth, depthIdentifier: 'subset' }, subsetLeaf, subsetLeaf, tie('object'), tie('array')),
    object: fc.tuple(props(tie('node')), some({
      required: fc.subarray([...names], { maxLength: 3 }),
      additionalProperties: fc.oneof(fc.boolean(), tie('node')),
      propertyNames: fc.constant({ type: 'string', pattern: '^[a-z_$]+$' }),
      dependentRequired: fc.uniqueArray(fc.tuple(nameArb, fc.subarray([...names], { minLength: 1, maxLength: 2 })), { maxLength: 2, selector: (t) => t[0] }).map(fromEntries),
      minProperties: fc.integer({ min: 0, max: 2 }),
      description: fc.constant('Nested.'),
    })).map(([p, r]) => ({ type: 'object', properties: p, ...r })),
    array: some({
      items: tie('node'),
      prefixItems: fc.array(tie('node'), { minLength: 1, maxLength: 2 }),
      minItems: fc.integer({ min: 0, max: 2 }),
      maxItems: fc.integer({ min: 1, max: 4 }),
      uniqueItems: fc.boolean(),
      contains: tie('node'),
      default: fc.constant([] as Json),
    }).map((r) => ({ type: 'array', ...r })),
  }));
  return fc
    .tuple(props(node), some({
      $schema: fc.constant('https://json-schema.org/draft/2020-12/schema'),
      title: fc.constant('Tool input'),
      description: fc.constant('Arguments of the tool.'),
      required: fc.subarray([...names], { maxLength: 3 }),
      additionalProperties: fc.oneof(fc.boolean(), node),
    }))
    .map(([p, r]) => JSON.parse(JSON.stringify({ ...('$schema' in r ? { $schema: r.$schema } : {}), type: 'object', properties: p, ...r })) as Obj);
}
