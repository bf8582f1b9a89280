// The config schema a platform team points its editor at: the repository's
// toolhost.schema.json is exactly what `toolhost config-schema` prints, and it
// is a standalone JSON Schema that accepts the demo (and the several-replicas
// sample) and refuses a typo.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { promisify } from 'node:util';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { parse } from 'yaml';
import { loadConfigFile } from '../../src/config/load.js';
import { hostConfigSchema } from '../../src/config/schema.js';

const ROOT = new URL('../../', import.meta.url).pathname;
const shipped = JSON.parse(readFileSync(join(ROOT, 'toolhost.schema.json'), 'utf8')) as object;

test('toolhost.schema.json is the assembled config schema (regenerate: npx toolhost config-schema > toolhost.schema.json)', () => {
  assert.deepEqual(shipped, JSON.parse(JSON.stringify(hostConfigSchema)));
});

test('`toolhost config-schema` prints the same schema', async () => {
  const { stdout } = await promisify(execFile)(process.execPath, [join(ROOT, 'bin/toolhost.js'), 'config-schema']);
  assert.deepEqual(JSON.parse(stdout), shipped);
});

test('the shipped schema stands alone: the demo config passes, a misspelt key fails', () => {
  const validate = new Ajv2020({ strict: false, allErrors: true }).compile(shipped);
  const demoText = readFileSync(join(ROOT, 'examples/demo/toolhost.yaml'), 'utf8');
  assert.match(demoText.split('\n')[0], /^# yaml-language-server: \$schema=\.\.\/\.\.\/toolhost\.schema\.json$/);
  const demo = parse(demoText) as Record<string, unknown>;
  assert.ok(validate(demo), JSON.stringify(validate.errors));
  assert.equal(validate({ ...demo, servr: {} }), false);
});

test('the several-replicas sample (examples/deploy) passes the shipped schema and the loader', () => {
  const validate = new Ajv2020({ strict: false, allErrors: true }).compile(shipped);
  const file = join(ROOT, 'examples/deploy/toolhost.yaml');
  const sample = parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
  assert.ok(validate(sample), JSON.stringify(validate.errors));
  const loaded = loadConfigFile(file).config;
  assert.ok(loaded.events?.postgres && loaded.redis && loaded.mcp?.sessionKey, 'the sample shares events, buckets and MCP sessions');
});

test('the schema keeps the shapes its error lines rely on: enum, bare const and oneOf, not the anyOf or patternProperties TypeBox writes for unions and records', () => {
  const found: string[] = [];
  const walk = (node: unknown, pointer: string): void => {
    if (typeof node !== 'object' || node === null) return;
    const n = node as Record<string, unknown>;
    if ('anyOf' in n) found.push(`${pointer}: anyOf`);
    if ('patternProperties' in n) found.push(`${pointer}: patternProperties`);
    if ('const' in n && 'type' in n) found.push(`${pointer}: const with type`);
    for (const [k, v] of Object.entries(n)) walk(v, `${pointer}/${k}`);
  };
  walk(shipped, '');
  assert.deepEqual(found, [], 'use StringEnum, Const, OneOf and MapOf from src/util/schema-builders.ts');
});
