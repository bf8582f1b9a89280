// Throughput: a snapshot build compacts every tool of the catalog. The whole
// cold build of 10,000 tools has a 1.5 s budget; the compact view (schema
// rewrite + description summary) must take a minor share of it, cold.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { JsonObject } from '../../src/contract/descriptor.js';
import { compactInputSchema } from '../../src/catalog/compact/compact-input-schema.js';
import { summarizeDescription } from '../../src/catalog/compact/summary.js';
import { loadOasCorpus } from './support/oas.js';

// Two thirds of the whole build's budget, for a catalog far richer in unions and refs than
// a typical one (about 400 ms CPU on an idle 2-core machine; the margin absorbs a loaded CI box).
const BUDGET_MS = 1000;

test(`10,000 realistic tools compact, cold, in under ${BUDGET_MS} ms`, async () => {
  // realistic mix: the oas-examples operations (refs, unions, nullable...) and MCP-style flat schemas
  const { cases } = await loadOasCorpus();
  const mcpStyle: JsonObject = {
    $schema: 'http://json-schema.org/draft-07/schema#',
    type: 'object',
    properties: {
      path: { type: 'string', description: 'Path of the file to read' },
      head: { type: 'number', description: 'If provided, returns only the first N lines of the file' },
      mode: { type: 'string', enum: ['text', 'binary'], default: 'text' },
    },
    required: ['path'],
    additionalProperties: false,
  };
  const description =
    'Read the complete contents of a file from the file system, e.g. a config file. Handles various text encodings and provides detailed error messages if the file cannot be read. Use this tool when you need to examine the contents of a single file.';
  const tools: { schema: JsonObject; description: string }[] = [];
  for (let i = 0; tools.length < 10_000; i++) {
    const schema = i % 2 === 0 ? cases[(i / 2) % cases.length].schema : mcpStyle;
    tools.push({ schema: structuredClone(schema) as JsonObject, description: `${description} (${i})` });
  }
  // CPU time, not wall time: the test runner runs other test files on the same cores
  const wall0 = performance.now();
  const cpu0 = process.cpuUsage();
  let bytes = 0;
  for (const t of tools) {
    const r = compactInputSchema(t.schema);
    bytes += summarizeDescription(t.description).length + (r.schema.properties ? 1 : 0);
  }
  const cpu = process.cpuUsage(cpu0);
  const ms = (cpu.user + cpu.system) / 1000;
  const wall = performance.now() - wall0;
  console.log(`compact view of 10,000 tools: ${ms.toFixed(0)} ms CPU cold (${(ms / 10).toFixed(1)} µs per tool; ${wall.toFixed(0)} ms wall)`);
  assert.ok(bytes > 0);
  assert.ok(ms < BUDGET_MS, `${ms.toFixed(0)} ms CPU`);
});
