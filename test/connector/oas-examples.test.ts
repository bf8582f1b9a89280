// Every OpenAPI 3.0/3.1 document of @readme/oas-examples (json folders)
// loads through the connector source or is refused with a clear message;
// every tool has a valid id and compilable, self-contained schemas; ids are
// unique and the tool list is identical across two loads.
import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { statSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { parseToolId } from '../../src/contract/tool-id.js';
import { createConnectorSource } from '../../src/sources/connector/index.js';
import type { RawTool } from '../../src/sources/raw-tool.js';
import { OAS_EXAMPLES, jsonDocuments, testContext, walkSchemas } from './helpers.js';

const DOCS = [...jsonDocuments(path.join(OAS_EXAMPLES, '3.0/json')), ...jsonDocuments(path.join(OAS_EXAMPLES, '3.1/json'))];
const SWAGGER2 = jsonDocuments(path.join(OAS_EXAMPLES, '2.0/json'));

/** Keywords that are OpenAPI-only (or 3.0 spellings) and must not survive conversion. */
const OAS_ONLY = ['nullable', 'discriminator', 'xml', 'externalDocs', 'example', '$schema', '$id'];

async function loadOnce(doc: string): Promise<{ tools: readonly RawTool[]; state: string; lastError?: string; ms: number }> {
  const ctx = testContext();
  const source = createConnectorSource({ id: 'ex', document: doc, watch: false }, ctx);
  const t0 = performance.now();
  await source.start(() => {});
  const ms = performance.now() - t0;
  const h = source.health();
  await source.stop();
  return { tools: source.tools(), state: h.state, lastError: h.lastError, ms };
}

function checkSchema(ajv: Ajv2020, schema: Record<string, unknown>, where: string): void {
  assert.equal(schema.type, 'object', `${where}: top-level type object`);
  assert.doesNotThrow(() => ajv.compile(schema), `${where}: compiles`);
  walkSchemas(schema, (s) => {
    for (const k of Object.keys(s)) {
      assert.ok(!OAS_ONLY.includes(k) && !k.startsWith('x-'), `${where}: keyword ${k} left in a schema`);
    }
    if (typeof s.$ref === 'string') assert.match(s.$ref, /^#\/\$defs\/[A-Za-z0-9_.-]+$/, `${where}: $ref stays inside the schema`);
    if (s.type !== undefined) {
      const types = Array.isArray(s.type) ? s.type : [s.type];
      for (const t of types) assert.ok(['null', 'boolean', 'object', 'array', 'number', 'string', 'integer'].includes(t as string), `${where}: type ${String(t)}`);
    }
  });
}

test('oas-examples 3.0 and 3.1: every document loads or is refused clearly; tools are well-formed and stable', async (t) => {
  assert.ok(DOCS.length >= 50, `found ${DOCS.length} documents`);
  const ajv = new Ajv2020({ strict: false, logger: false, allErrors: false });
  let loaded = 0;
  let operations = 0;
  const refused: string[] = [];
  let largest = { doc: '', bytes: 0, ms: 0 };
  for (const doc of DOCS) {
    const rel = path.relative(OAS_EXAMPLES, doc);
    const first = await loadOnce(doc);
    if (first.state === 'failed') {
      assert.ok(first.lastError && first.lastError.length > 10 && !first.lastError.includes('\n'), `${rel}: refusal has a one-line message`);
      assert.ok(first.lastError.includes(path.basename(doc)), `${rel}: refusal names the document`);
      refused.push(`${rel}: ${first.lastError}`);
      continue;
    }
    assert.equal(first.state, 'connected', rel);
    loaded++;
    operations += first.tools.length;
    const bytes = statSync(doc).size;
    if (bytes > largest.bytes) largest = { doc: rel, bytes, ms: first.ms };

    const ids = new Set<string>();
    for (const tool of first.tools) {
      const where = `${rel} ${tool.toolId}`;
      const parts = parseToolId(tool.toolId);
      assert.ok(parts && parts.source === 'connector' && parts.connectorId === 'ex', `${where}: valid connector toolId`);
      assert.equal(tool.source, 'connector');
      assert.ok(!ids.has(tool.toolId), `${where}: unique`);
      ids.add(tool.toolId);
      assert.deepEqual(JSON.parse(JSON.stringify(tool)), tool, `${where}: plain JSON`);
      assert.ok(tool.inputSchema, `${where}: has an input schema`);
      checkSchema(ajv, tool.inputSchema, `${where} input`);
      if (tool.outputSchema) checkSchema(ajv, tool.outputSchema, `${where} output`);
      assert.equal(tool.derived?.egress, 'host-mediated');
    }

    const second = await loadOnce(doc);
    assert.deepEqual(second.tools, first.tools, `${rel}: same tools on a second load`);
  }
  // None of the 3.x example documents is unusable: a refusal here is a regression.
  assert.deepEqual(refused, []);
  t.diagnostic(`documents: ${DOCS.length}, loaded: ${loaded}, refused: ${refused.length}`);
  for (const r of refused) t.diagnostic(`refused ${r}`);
  t.diagnostic(`operations turned into tools: ${operations}`);
  t.diagnostic(`largest document: ${largest.doc} (${largest.bytes} bytes) loaded in ${largest.ms.toFixed(0)} ms`);
  assert.ok(operations > 500, `operations: ${operations}`);
});

test('Swagger 2.0 documents are refused with a message that says so', async (t) => {
  assert.ok(SWAGGER2.length > 0);
  for (const doc of SWAGGER2) {
    const r = await loadOnce(doc);
    assert.equal(r.state, 'failed', doc);
    assert.equal(r.tools.length, 0);
    assert.match(r.lastError ?? '', /Swagger 2\.0 documents are not supported; convert it to OpenAPI 3\.0 or 3\.1/);
  }
  t.diagnostic(`refused ${SWAGGER2.length} Swagger 2.0 documents`);
});
