// runCompactCommand: `toolhost compact FILE.json`.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { compactDescriptor } from '../../src/catalog/compact-descriptor.js';
import { runCompactCommand } from '../../src/cli/compact-command.js';
import { errorsOf, validatePublishedCompactInputSchema } from '../helpers/schemas.js';
import { bannedKeywords } from './support/walk.js';

const dir = mkdtempSync(join(tmpdir(), 'toolhost-compact-cli-'));
after(() => rmSync(dir, { recursive: true, force: true }));

function file(name: string, content: string): string {
  const p = join(dir, name);
  writeFileSync(p, content);
  return p;
}

/** The JSON document at the start of the output (before the "# ..." summary lines). */
function jsonPart(output: string): unknown {
  return JSON.parse(output.slice(0, output.indexOf('\n#')));
}

test('prints the compact schema and what was loosened', () => {
  const schema = {
    type: 'object',
    properties: { mode: { oneOf: [{ const: 'a' }, { const: 'b' }] }, path: { $ref: '#/$defs/p' } },
    $defs: { p: { type: 'string' } },
    not: { required: ['x'] },
  };
  const r = runCompactCommand(file('s.json', JSON.stringify(schema)));
  assert.equal(r.exitCode, 0);
  const out = jsonPart(r.output) as Record<string, unknown>;
  assert.deepEqual(bannedKeywords(out), []);
  assert.deepEqual((out.properties as Record<string, unknown>).path, { type: 'string' });
  assert.deepEqual((out.properties as Record<string, unknown>).mode, { type: 'string', enum: ['a', 'b'] });
  assert.match(r.output, /^# \d+ bytes -> \d+ bytes/m);
  assert.match(r.output, /^# loosened \(1\):\n#   \/: "not" dropped$/m);
});

test('a schema already in the subset: nothing loosened; the top level is closed as the compact view serves it', () => {
  const schema = { type: 'object', properties: { a: { type: 'string' } }, required: ['a'] };
  const r = runCompactCommand(file('ok.json', JSON.stringify(schema)));
  assert.equal(r.exitCode, 0);
  assert.deepEqual(jsonPart(r.output), { type: 'object', properties: { a: { type: 'string', description: '(required)' } } });
  assert.match(r.output, /^# nothing loosened$/m);
  assert.match(r.output, /^# top level closed \(1\):\n#   \/required: moved into the properties' descriptions/m);
});

test('the output is what GET /tools?view=compact serves: the published v2 compact inputSchema', () => {
  const schema = {
    $schema: 'http://json-schema.org/draft-07/schema#',
    title: 'args',
    type: 'object',
    properties: { pair: { type: 'array', items: [{ type: 'string' }, { type: 'integer' }], additionalItems: false } },
    required: ['pair'],
    additionalProperties: false,
    oneOf: [{ required: ['pair'] }],
  };
  const r = runCompactCommand(file('closed.json', JSON.stringify(schema)));
  assert.equal(r.exitCode, 0);
  const out = jsonPart(r.output) as Record<string, unknown>;
  assert.ok(validatePublishedCompactInputSchema(out), errorsOf(validatePublishedCompactInputSchema));
  assert.deepEqual(out, compactDescriptor({ toolId: 'x:y', source: 'mcp', safetyTier: 'write', inputSchema: schema }).inputSchema);
  assert.deepEqual((out.properties as Record<string, unknown>).pair, {
    type: 'array', prefixItems: [{ type: 'string' }, { type: 'integer' }], items: false, description: '(required)',
  });
  assert.match(r.output, /^#   \/\$schema: dropped; the schema is re-spelled from draft-07 to 2020-12$/m);
});

test('boolean schemas are schemas too', () => {
  const r = runCompactCommand(file('true.json', 'true'));
  assert.equal(r.exitCode, 0);
  assert.deepEqual(jsonPart(r.output), { type: 'object', properties: {} });
});

test('errors: missing file, invalid JSON, not a schema (exit code 1, no stack trace)', () => {
  for (const [path, pattern] of [
    [join(dir, 'missing.json'), /cannot read .*missing\.json: ENOENT/],
    [file('bad.json', '{"type":'), /is not valid JSON/],
    [file('array.json', '[1,2]'), /is not a JSON Schema/],
  ] as const) {
    const r = runCompactCommand(path);
    assert.equal(r.exitCode, 1);
    assert.match(r.output, pattern);
    assert.ok(!r.output.includes('    at '), 'no stack trace');
  }
});
