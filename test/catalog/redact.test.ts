import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { describeTool } from '../../src/catalog/describe.js';
import { redactCredentials } from '../../src/catalog/redact.js';
import type { JsonObject } from '../../src/contract/descriptor.js';

const SECRETS = [
  'Bearer abcdefghijklmnop1234',
  '-----BEGIN RSA PRIVATE KEY-----\nMIIB...',
  'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U',
  'sk-proj-abcdefghijklmnopqrstuvwx',
  'ghp_abcdefghijklmnopqrstuvwxyz0123456789',
  'postgres://admin:hunter2@db.internal:5432/app',
  'AKIAABCDEFGHIJKLMNOP',
];

test('secret-shaped values are removed from schema data keywords at any depth', () => {
  for (const secret of SECRETS) {
    const schema: JsonObject = {
      type: 'object',
      properties: {
        conn: { type: 'string', default: secret, examples: ['ok', secret] },
        nested: { type: 'object', properties: { k: { const: secret } } },
        mode: { enum: ['a', secret] },
      },
    };
    const { value, redacted } = redactCredentials(schema);
    assert.doesNotMatch(JSON.stringify(value), new RegExp(secret.slice(0, 12).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')));
    assert.ok(redacted.includes('/properties/conn/default'), redacted.join());
    assert.ok(redacted.includes('/properties/nested/properties/k/const'));
    // Keywords that held no secret survive; structure is untouched.
    assert.equal((value as any).properties.conn.type, 'string');
    assert.equal(schema.properties !== undefined, true);
    assert.equal((schema as any).properties.conn.default, secret, 'input not mutated');
  }
});

test('secret-named keys with string values are redacted; property names are not', () => {
  const { value, redacted } = redactCredentials({
    type: 'object',
    properties: { password: { type: 'string', description: 'the user password' }, token: { type: 'string' } },
    required: ['password', 'token'],
    'x-api-key': 'abc123',
    default: { apiKey: 'plain-value' },
  });
  assert.deepEqual(redacted.sort(), ['/default', '/x-api-key']);
  assert.deepEqual((value as any).properties.password, { type: 'string', description: 'the user password' });
  assert.equal((value as any)['x-api-key'], '[redacted]');
  assert.equal('default' in (value as object), false);
});

test('clean values come back as the same object (cheap, and nothing changed)', () => {
  fc.assert(
    fc.property(fc.jsonValue({ maxDepth: 4 }), (v) => {
      const text = JSON.stringify(v);
      fc.pre(!/bearer|basic|private key|eyJ|sk-|pk-|rk-|gh[pousr]_|xox|AKIA|AIza|:\/\/|pass|secret|token|key|auth|credential|cookie|session/i.test(text));
      const r = redactCredentials(v as never);
      assert.equal(r.value, v);
      assert.deepEqual(r.redacted, []);
    }),
  );
});

test('descriptions keep their text but lose the secret, and the place is reported', () => {
  const { descriptor, redacted } = describeTool(
    { source: 'mcp', toolId: 'mcp:s.t', origin: 'mcp server s', description: 'Call with Bearer abcdefghijklmnop1234 set' },
    { safetyTier: 'write' },
    [],
  );
  assert.equal(descriptor.description, 'Call with [redacted] set');
  assert.deepEqual(redacted, ['/description']);
});
