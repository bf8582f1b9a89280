// The profile rewrites case by case (docs/compact-view.md "Provider
// profiles"): what each does to a schema, the arguments forth and back, and
// the errors back gives (path and rule).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { BackError, back, forth } from '../../src/catalog/profiles/plan.js';
import { profileSchema } from '../../src/catalog/profiles/profile-schema.js';

const TOOL = {
  type: 'object',
  properties: {
    path: { type: 'string', format: 'uri', minLength: 1 },
    limit: { type: 'integer', exclusiveMinimum: 0 },
    note: { type: ['string', 'null'] },
    labels: { type: 'object', additionalProperties: { type: 'string' } },
    'dry-run': { type: 'boolean' },
  },
  required: ['path'],
  additionalProperties: false,
};

test('openai-strict: optional properties required and nullable, maps as pairs, unsupported keywords loosened', () => {
  const p = profileSchema('openai-strict', TOOL as never);
  assert.deepEqual(p.breaks, []);
  const props = p.schema.properties as Record<string, Record<string, unknown>>;
  assert.deepEqual(p.schema.required, ['path', 'limit', 'note', 'labels', 'dry-run']);
  assert.equal(p.schema.additionalProperties, false);
  assert.deepEqual(props.limit.type, ['integer', 'null']);
  assert.equal(props.limit.exclusiveMinimum, 0);
  assert.deepEqual(props.note.type, ['object', 'null']); // optional and nullable: wrapped
  assert.equal((props.labels.type as unknown[])[0], 'array');
  assert.ok(!('format' in props.path) && !('minLength' in props.path));
  assert.ok(p.loosened.some((l) => l.startsWith('/properties/path/format')));
  assert.ok(p.loosened.some((l) => l.startsWith('/properties/path/minLength')));

  const a = { path: 'x', note: null, labels: { k: 'v' } };
  const f = forth(a, p.plan);
  assert.deepEqual(f, { path: 'x', limit: null, note: { value: null }, labels: [{ key: 'k', value: 'v' }], 'dry-run': null });
  assert.deepEqual(back(f, p.plan), a);
  assert.deepEqual(back({ path: 'x', limit: null, note: null, labels: null, 'dry-run': true }, p.plan), { path: 'x', 'dry-run': true });
});

test('openai-strict: back names the path and the rule of what it cannot map', () => {
  const p = profileSchema('openai-strict', TOOL as never);
  const cases: Array<[unknown, string, RegExp]> = [
    [{ path: 'x', note: 'bare' }, '/note', /expected null \(not set\) or \{"value"/],
    [{ path: 'x', labels: [{ key: 'k', value: 'a' }, { key: 'k', value: 'b' }] }, '/labels/1/key', /given twice/],
    [{ path: 'x', labels: [{ key: 1 }] }, '/labels/0', /expected \{"key": string/],
    [{ path: 'x', labels: { k: 'v' } }, '/labels', /array of \{"key", "value"\} pairs/],
  ];
  for (const [x, path, rule] of cases) {
    assert.throws(() => back(x, p.plan), (e: unknown) => e instanceof BackError && e.path === path && rule.test(e.rule), JSON.stringify(x));
  }
});

test('openai-strict: free keys of an open object go under additional_properties; any value is the JSON-value definition', () => {
  const p = profileSchema('openai-strict', { type: 'object', properties: { a: { type: 'string' }, data: {} }, required: ['a', 'data'] } as never);
  assert.deepEqual(p.breaks, []);
  const a = { a: 'x', data: { deep: [1, { y: null }] }, extra: true };
  const f = forth(a, p.plan) as Record<string, unknown>;
  assert.deepEqual(f.data, { entries: [{ key: 'deep', value: [1, { entries: [{ key: 'y', value: null }] }] }] });
  assert.deepEqual(f.additional_properties, [{ key: 'extra', value: true }]);
  assert.deepEqual(back(f, p.plan), a);
  assert.throws(() => back({ a: 'x', data: { entries: [] }, additional_properties: [{ key: 'a', value: 'y' }] }, p.plan), /declared property/);
});

test('openai-strict: a schema over the enum budget has its largest enums dropped, and fits', () => {
  const big = { type: 'object', properties: { a: { type: 'integer', enum: Array.from({ length: 900 }, (_, i) => i) }, b: { type: 'string', enum: Array.from({ length: 300 }, (_, i) => `v${i}`) } }, required: ['a', 'b'], additionalProperties: false };
  const p = profileSchema('openai-strict', big as never);
  assert.deepEqual(p.breaks, []);
  assert.ok(!('enum' in (p.schema.properties as Record<string, object>).a));
  assert.ok(p.loosened.some((l) => l.includes("enum of 900 values dropped")));
});

test('openai-strict: a tool that cannot fit is reported with the rule it breaks', () => {
  let deep: Record<string, unknown> = { type: 'string' };
  for (let i = 0; i < 12; i++) deep = { type: 'object', properties: { x: deep }, required: ['x'], additionalProperties: false };
  const p = profileSchema('openai-strict', deep as never);
  assert.ok(p.breaks.some((b) => /levels of object nesting/.test(b.rule)), JSON.stringify(p.breaks));
});

test('gemini: one type with nullable, string enums only, no additionalProperties, parameter names renamed and translated back', () => {
  const p = profileSchema('gemini', TOOL as never);
  assert.deepEqual(p.breaks, []);
  const props = p.schema.properties as Record<string, Record<string, unknown>>;
  assert.deepEqual(props.note, { type: 'string', nullable: true });
  assert.equal(props.limit.minimum, 0); // exclusiveMinimum made inclusive
  assert.ok(!('dry-run' in props) && 'dry_run' in props);
  assert.ok(!('additionalProperties' in p.schema));
  const a = { path: 'x', 'dry-run': true, labels: { k: 'v' } };
  const f = forth(a, p.plan);
  assert.deepEqual(f, { path: 'x', dry_run: true, labels: [{ key: 'k', value: 'v' }] });
  assert.deepEqual(back(f, p.plan), a);
  const multi = profileSchema('gemini', { type: 'object', properties: { v: { type: ['string', 'integer', 'null'] }, any: {} } } as never);
  assert.deepEqual((multi.schema.properties as Record<string, unknown>).v, { anyOf: [{ type: 'string', nullable: true }, { type: 'integer', nullable: true }] });
  assert.ok(multi.breaks.some((b) => b.path === '/properties/any/type'), JSON.stringify(multi.breaks));
});

test('anthropic: the compact schema with its required list and additionalProperties, nothing to translate', () => {
  const p = profileSchema('anthropic', { ...TOOL, properties: { ...TOOL.properties, u: { anyOf: [{ type: 'string' }, { type: 'integer' }] } } } as never);
  assert.deepEqual(p.breaks, []);
  assert.deepEqual(p.schema.required, ['path']);
  assert.equal(p.schema.additionalProperties, false);
  assert.deepEqual(p.plan, { kind: 'same' });
});

test('back bounds the nesting of what a client sends (no stack exhaustion)', () => {
  const p = profileSchema('openai-strict', { type: 'object', properties: { data: {} }, required: ['data'] } as never);
  let deep: unknown = 1;
  for (let i = 0; i < 100_000; i++) deep = [deep];
  assert.throws(() => back({ data: deep, additional_properties: [] }, p.plan), (e: unknown) => e instanceof BackError && /nested deeper than 256 levels/.test(e.rule));
  let ok: unknown = 1;
  for (let i = 0; i < 200; i++) ok = [ok];
  assert.deepEqual(back({ data: ok, additional_properties: [] }, p.plan), { data: ok });
});
