// Untrusted tool lists: garbage entries are skipped with warnings naming the
// server, schemas are bounded (left out, never cut), descriptions truncated,
// duplicates lose, and self-declared annotations never reach the RawTool.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createMcpSource } from '../../src/sources/mcp/index.js';
import type { RawTool } from '../../src/sources/raw-tool.js';
import { BASE_TOOLS, WARN, makeCtx, messages, stdioConfig, toolNames } from './helpers.js';

const RAW_TOOL_KEYS = new Set(['source', 'toolId', 'origin', 'title', 'description', 'inputSchema', 'outputSchema']);

test('malformed entries are skipped or bounded, each with a warning naming the server', async () => {
  const ctx = makeCtx();
  const source = createMcpSource(stdioConfig('bad', ['--malformed'], { maxDescriptionLength: 100 }), ctx);
  try {
    await source.start(() => {});
    assert.equal(source.health().state, 'connected');
    const byName = new Map(source.tools().map((t) => [t.toolId.slice('mcp:bad.'.length), t]));
    assert.deepEqual(toolNames(source), [
      ...BASE_TOOLS,
      'huge_schema',
      'deep_schema',
      'array_schema',
      'string_schema',
      'huge_output',
      'long_description',
      'bad_description',
    ]);

    // Schemas: left out whole, never truncated.
    assert.equal(byName.get('huge_schema')!.inputSchema, undefined);
    assert.equal(byName.get('huge_schema')!.description, 'ok tool, schema too big');
    assert.equal(byName.get('deep_schema')!.inputSchema, undefined);
    assert.equal(byName.get('array_schema')!.inputSchema, undefined);
    assert.equal(byName.get('string_schema')!.inputSchema, undefined);
    assert.deepEqual(byName.get('huge_output')!.inputSchema, { type: 'object', properties: {} });
    assert.equal(byName.get('huge_output')!.outputSchema, undefined);
    // Descriptions: truncated to maxDescriptionLength characters.
    const long = byName.get('long_description')!.description!;
    assert.equal(Array.from(long).length, 100);
    assert.ok(long.startsWith('ddd') && long.endsWith('…'));
    assert.equal(byName.get('bad_description')!.description, undefined);
    assert.equal(byName.get('bad_description')!.title, undefined);
    // Duplicates: the first entry wins.
    assert.equal(byName.get('echo')!.description, 'Echoes the message back.');
    for (const t of source.tools()) {
      assert.ok(t.toolId.startsWith('mcp:bad.'));
      assert.equal(t.origin, 'mcp server bad');
    }

    const warnings = messages(ctx.log, WARN);
    const expectWarn = [
      /"bad name!" skipped: name outside/,
      /"" skipped: name outside/,
      /"nnnnn.* skipped: name outside/,
      /tool 42 skipped/,
      /"unicode_näme" skipped/,
      /entry #\d+ skipped: not an object/,
      /"huge_schema": inputSchema left out, it is \d+ bytes, over the 65536 byte limit/,
      /"deep_schema": inputSchema left out, it nests deeper than 32 levels/,
      /"array_schema": inputSchema left out, it is not a JSON object \(array\)/,
      /"string_schema": inputSchema left out, it is not a JSON object \(string\)/,
      /"huge_output": outputSchema left out/,
      /"long_description": description truncated to 100 characters/,
      /"echo" skipped: duplicate name/,
    ];
    for (const re of expectWarn) {
      assert.ok(warnings.some((w) => w.startsWith('mcp server bad: ') && re.test(w)), `warning ${re}`);
    }
    // Garbage entries were bounded in the log, not copied.
    assert.ok(!ctx.log.text().includes('x'.repeat(1000)));
  } finally {
    await source.stop();
  }
});

test('misleading annotations never reach the RawTool; derived stays undefined', async () => {
  const ctx = makeCtx();
  const source = createMcpSource(stdioConfig('liar'), ctx);
  try {
    await source.start(() => {});
    const tool = source.tools().find((t) => t.toolId === 'mcp:liar.delete_everything') as RawTool & Record<string, unknown>;
    assert.ok(tool);
    assert.equal(tool.derived, undefined);
    assert.equal(tool.annotations, undefined);
    assert.equal(tool.description, 'Deletes every file it can reach.');
    // Only a display title may come from the server.
    assert.equal(tool.title, 'Harmless lookup');
    for (const t of source.tools()) {
      assert.equal(t.source, 'mcp');
      assert.equal(t.derived, undefined);
      assert.equal(t.scopes, undefined);
      for (const k of Object.keys(t)) assert.ok(RAW_TOOL_KEYS.has(k), `unexpected key ${k}`);
      assert.ok(!JSON.stringify(t).includes('readOnlyHint'));
    }
    assert.equal(source.tools().find((t) => t.toolId === 'mcp:liar.echo')!.title, 'Echo');
  } finally {
    await source.stop();
  }
});
