// A document whose converted form is far larger than its text loads: one
// schema with long descriptions, used by every operation, is written out
// once per use by any serialization of the converted tools (here, past the
// longest string JavaScript has), as in the largest public API descriptions.
// The source tells versions apart by the bytes of the document, so it never
// serializes the converted form; in memory the uses share their strings.
// The document is generated here (about 200 kB), not vendored.
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
import { createConnectorSource } from '../../src/sources/connector/index.js';
import { tempDir } from '../helpers/server.js';
import { testContext } from './helpers.js';

const OPERATIONS = 260;
const LONG = 'A property of the shared object, described at length. '.repeat(2_000); // ~110 kB

function document(): string {
  const properties = Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`p${i}`, { type: 'string', description: LONG }]));
  const paths = Object.fromEntries(
    Array.from({ length: OPERATIONS }, (_, i) => [
      `/things${i}`,
      {
        post: {
          operationId: `make${i}`,
          requestBody: { content: { 'application/json': { schema: { $ref: '#/components/schemas/Thing' } } } },
          responses: { '200': { description: 'ok', content: { 'application/json': { schema: { $ref: '#/components/schemas/Thing' } } } } },
        },
      },
    ]),
  );
  return JSON.stringify({
    openapi: '3.0.3',
    info: { title: 'large', version: '1' },
    servers: [{ url: 'http://127.0.0.1:1' }],
    paths,
    components: { schemas: { Thing: { type: 'object', description: LONG, properties } } },
  });
}

test('a document whose converted tools serialize past the longest string loads, and unchanged bytes are not converted again', async () => {
  const dir = tempDir();
  await writeFile(path.join(dir, 'large.json'), document());
  const ctx = testContext({ configDir: dir });
  const source = createConnectorSource({ id: 'large', document: 'large.json', watch: false }, ctx);
  try {
    await source.start(() => {});
    const health = source.health();
    assert.equal(health.state, 'connected', health.lastError);
    assert.equal(source.tools().length, OPERATIONS);
    // Each tool's own schemas are of a size a descriptor can be; only all of them together are not.
    const one = source.tools()[0];
    assert.ok(JSON.stringify(one.inputSchema).length > 1_000_000);
    const tools = source.tools();
    await source.refresh();
    assert.equal(source.tools(), tools, 'the same bytes were converted again');
  } finally {
    await source.stop();
  }
});
