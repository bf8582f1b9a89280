// Schemas held as text (src/util/json-text.ts) through the catalog: a
// descriptor keeps the source's very string, serializes to the bytes a plain
// object would, a rebuild over a content-equal tool carries the new tool's
// text, and equality is decided on the text, never by parsing it.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildCatalog } from '../../src/catalog/build.js';
import { compactDescriptor } from '../../src/catalog/compact-descriptor.js';
import { makeEntry } from '../../src/catalog/entry.js';
import { EntrySlabs } from '../../src/catalog/list-body.js';
import { Policy } from '../../src/classify/policy.js';
import type { JsonObject } from '../../src/contract/descriptor.js';
import type { RawTool } from '../../src/sources/raw-tool.js';
import { copyValue, hasValue, jsonTextOf, setJsonText } from '../../src/util/json-text.js';
import { sameJson } from '../../src/util/same-json.js';

const INPUT = { type: 'object', properties: { q: { type: 'string', pattern: '^[a-z]+$', description: 'what to look for' } }, required: ['q'] };
const OUTPUT = { type: 'object', properties: { hits: { type: 'integer' } } };

/** An MCP-style RawTool whose schemas are text, and the same tool with plain objects. */
function tools(description = 'Finds things.'): { text: RawTool; plain: RawTool } {
  const text: RawTool = { source: 'mcp', toolId: 'mcp:srv.find', origin: 'mcp server srv', description };
  setJsonText(text, 'inputSchema', JSON.stringify(INPUT));
  setJsonText(text, 'outputSchema', JSON.stringify(OUTPUT));
  const plain: RawTool = { source: 'mcp', toolId: 'mcp:srv.find', origin: 'mcp server srv', description, inputSchema: structuredClone(INPUT) as JsonObject, outputSchema: structuredClone(OUTPUT) as JsonObject };
  return { text, plain };
}

test('a descriptor keeps the source\'s text, and serializes to the bytes of plain objects', () => {
  const policy = new Policy({ rules: [] });
  const { text, plain } = tools();
  const [fromText] = buildCatalog([text], policy).tools;
  const built = buildCatalog([plain], policy);
  const [fromPlain] = built.tools;
  const d = fromText.descriptor;
  assert.equal(jsonTextOf(d, 'inputSchema'), jsonTextOf(text, 'inputSchema'), 'the same string, not a copy');
  assert.deepEqual(Object.keys(d), Object.keys(fromPlain.descriptor));
  assert.equal(JSON.stringify(d), JSON.stringify(fromPlain.descriptor));
  assert.equal(makeEntry(fromText, new EntrySlabs()).standard.bytes.toString(), makeEntry(fromPlain, new EntrySlabs(), built.schemaTexts.get('mcp:srv.find')).standard.bytes.toString());
  assert.deepEqual(compactDescriptor(d), compactDescriptor(fromPlain.descriptor));
  assert.equal(hasValue(d, 'outputSchema'), true);
  assert.equal(hasValue({}, 'outputSchema'), false);
});

test('a rebuild over a content-equal tool reuses the descriptor\'s content and carries the new tool\'s text', () => {
  const policy = new Policy({ rules: [] });
  const first = buildCatalog([tools().text], policy);
  const again = tools().text;
  const second = buildCatalog([again], policy, { previous: { tools: first.tools, tool: (id) => first.tools.find((t) => t.descriptor.toolId === id) } });
  const [t] = second.tools;
  assert.notEqual(t, first.tools[0]);
  assert.equal(second.repeats.get('mcp:srv.find'), first.tools[0].descriptor);
  assert.equal(jsonTextOf(t.descriptor, 'inputSchema'), jsonTextOf(again, 'inputSchema'));
  // A changed description: described anew.
  const third = buildCatalog([tools('Finds other things.').text], policy, { previous: { tools: second.tools, tool: () => second.tools[0] } });
  assert.equal(third.repeats.size, 0);
});

test('equality of values held as text is decided on the text: nothing is parsed', () => {
  const a = { n: 1 };
  const b = { n: 1 };
  // Text that would throw if parsed.
  setJsonText(a, 'schema', '{not json');
  setJsonText(b, 'schema', '{not json');
  assert.equal(sameJson(a, b), true);
  const c = { n: 1 };
  setJsonText(c, 'schema', '{other');
  assert.equal(sameJson(a, c), false);
  const d = {};
  copyValue(a, d, 'n');
  copyValue(a, d, 'schema');
  assert.equal(jsonTextOf(d, 'schema'), '{not json');
  assert.deepEqual(Object.keys(d), ['n', 'schema']);
});
