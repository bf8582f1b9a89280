// The one JSON Schema validator of every session's Server
// (src/front-door/elicit-validator.ts): it judges an answer as the SDK's own
// default validator does, and what it keeps stays bounded however many
// distinct schemas pass through it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import type { JsonSchemaType } from '@modelcontextprotocol/sdk/validation/types.js';
import { MAX_CACHED_SCHEMAS, SharedSchemaValidator } from '../../src/front-door/elicit-validator.js';

const APPROVE = { type: 'object', properties: { approve: { type: 'boolean' } }, required: ['approve'] } as JsonSchemaType;

test('answers are judged as the SDK default validator judges them, messages included', () => {
  const shared = new SharedSchemaValidator();
  const sdk = new AjvJsonSchemaValidator();
  const schemas: JsonSchemaType[] = [
    APPROVE,
    { type: 'object', properties: { email: { type: 'string', format: 'email' }, n: { type: 'integer', minimum: 2 } }, required: ['email'] } as JsonSchemaType,
  ];
  const answers = [{ approve: true }, { approve: 'yes' }, {}, { email: 'a@b.example', n: 3 }, { email: 'nope', n: 1 }, null];
  for (const schema of schemas)
    for (const answer of answers) assert.deepEqual(shared.getValidator(structuredClone(schema))(answer), sdk.getValidator(structuredClone(schema))(answer), JSON.stringify({ schema, answer }));
});

test('a schema is compiled once by its text, and at most MAX_CACHED_SCHEMAS are kept', () => {
  const shared = new SharedSchemaValidator();
  const first = shared.getValidator(structuredClone(APPROVE));
  assert.equal(shared.getValidator(structuredClone(APPROVE)), first, 'the same text is the same compiled validator');
  for (let i = 0; i < 3 * MAX_CACHED_SCHEMAS; i++) shared.getValidator({ type: 'object', properties: { [`field${i}`]: { type: 'string' } }, required: [`field${i}`] } as JsonSchemaType);
  assert.equal(shared.size, MAX_CACHED_SCHEMAS);
  assert.equal(shared.getValidator({ type: 'object', properties: { field0: { type: 'string' } }, required: ['field0'] } as JsonSchemaType)({}).valid, false);
});

test('two schemas with one $id are each judged by their own rules', () => {
  const shared = new SharedSchemaValidator();
  const a = shared.getValidator({ $id: 'https://example.com/answer.json', type: 'object', required: ['a'] } as JsonSchemaType);
  const b = shared.getValidator({ $id: 'https://example.com/answer.json', type: 'object', required: ['b'] } as JsonSchemaType);
  assert.equal(a({ a: 1 }).valid, true);
  assert.equal(b({ a: 1 }).valid, false);
  assert.equal(b({ b: 1 }).valid, true);
});
