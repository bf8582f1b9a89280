// Schemas held as text (src/util/json-text.ts) through the catalog: a
// descriptor keeps the source's very string, serializes to the bytes a plain
// object would, a rebuild over a content-equal tool carries the new tool's
// text, equality is decided on the text, never by parsing it, and once
// serialized the text is read from the entry's bytes.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildCatalog } from '../../src/catalog/build.js';
import { compactDescriptor } from '../../src/catalog/compact-descriptor.js';
import { makeEntry } from '../../src/catalog/entry.js';
import { EntrySlabs } from '../../src/catalog/list-body.js';
import { Policy } from '../../src/classify/policy.js';
import type { JsonObject } from '../../src/contract/descriptor.js';
import type { RawTool } from '../../src/sources/raw-tool.js';
import { copyValue, hasValue, jsonTextBytesOf, jsonTextOf, setJsonText } from '../../src/util/json-text.js';
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

test('once serialized, the schemas are read from the entry\'s bytes, by the descriptor and the source\'s tool alike, and move with them', () => {
  const policy = new Policy({ rules: [] });
  // A description outside ASCII puts the schemas' bytes at other offsets than their characters.
  const { text } = tools('Trouve des éléments — vite.');
  const [built] = buildCatalog([text], policy).tools;
  const d = built.descriptor;
  const entry = makeEntry(built, new EntrySlabs());
  const bytes = entry.standard.bytes;
  for (const key of ['inputSchema', 'outputSchema'] as const) {
    const held = jsonTextBytesOf(d, key);
    assert.ok(held !== undefined && held.bytes === bytes, `${key}: read from the entry's bytes`);
    assert.deepEqual(jsonTextBytesOf(text, key), held, `${key}: the source's tool reads the same range`);
    assert.equal(held.bytes.toString('utf8', held.start, held.end), JSON.stringify(key === 'inputSchema' ? INPUT : OUTPUT));
    assert.equal(jsonTextOf(d, key), JSON.stringify(key === 'inputSchema' ? INPUT : OUTPUT));
  }
  assert.deepEqual(d.inputSchema, INPUT);
  assert.equal(bytes.toString(), JSON.stringify(JSON.parse(bytes.toString())), 'serialized as plain JSON');
  // Serialized again (a rebuild that describes it anew): the same bytes, and the text is read from the newest entry's.
  const again = makeEntry(built, new EntrySlabs());
  assert.equal(again.standard.bytes.toString(), bytes.toString(), 'serialized again from the bytes: the same');
  assert.equal(jsonTextBytesOf(d, 'inputSchema')?.bytes, again.standard.bytes);
  assert.equal(sameJson(text, tools('Trouve des éléments — vite.').text), true, 'equal to a fresh read of the same tool');
  // Two tools both read from bytes (different entries): compared byte for byte.
  const other = tools('Trouve des éléments — vite.').text;
  makeEntry(buildCatalog([other], policy).tools[0], new EntrySlabs());
  assert.ok(jsonTextBytesOf(other, 'inputSchema') !== undefined);
  assert.equal(sameJson(text, other), true);
  const changed = tools('Trouve des éléments — vite.').text;
  setJsonText(changed, 'inputSchema', JSON.stringify({ ...INPUT, required: [] }));
  makeEntry(buildCatalog([changed], policy).tools[0], new EntrySlabs());
  assert.equal(sameJson(text, changed), false);

  // Moved onto a copy (a joined list): read from there, so the old bytes are not held.
  const copy = Buffer.concat([Buffer.from('['), bytes, Buffer.from(']')]).subarray(1, bytes.length + 1);
  again.moveOnto('standard', copy);
  assert.equal(jsonTextBytesOf(d, 'inputSchema')?.bytes, copy);
  assert.deepEqual(d.inputSchema, INPUT);
});
