import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { formatToolId, parseToolId, type ToolIdParts } from '../../src/contract/tool-id.js';

const lower = fc.stringMatching(/^[a-z0-9][a-z0-9_-]{0,20}$/);
const vendor = fc.stringMatching(/^[a-z0-9]{1,12}$/);
const name = fc.stringMatching(/^[A-Za-z0-9_][A-Za-z0-9_./-]{0,40}$/);
const mcpName = fc.stringMatching(/^[A-Za-z0-9_./-]{1,60}$/);

const parts: fc.Arbitrary<ToolIdParts> = fc.oneof(
  name.map((typeId) => ({ source: 'node-pack' as const, typeId })),
  fc.record({ serverId: lower, toolName: mcpName }).map((p) => ({ source: 'mcp' as const, ...p })),
  fc.record({ connectorId: lower, action: name }).map((p) => ({ source: 'connector' as const, ...p })),
  name.map((workflowId) => ({ source: 'workflow' as const, workflowId })),
  fc.record({ vendor, name }).map((p) => ({ source: 'host-extension' as const, ...p })),
);

test('toolId round trip: parse(format(parts)) gives the same parts', () => {
  fc.assert(
    fc.property(parts, (p) => {
      const id = formatToolId(p);
      assert.ok(id, `format refused ${JSON.stringify(p)}`);
      assert.deepEqual(parseToolId(id), p);
    }),
    { numRuns: 2000 },
  );
});

test('toolId round trip: format(parse(id)) gives the same id for any string that parses', () => {
  fc.assert(
    fc.property(fc.oneof(fc.string(), parts.map((p) => formatToolId(p) as string)), (id) => {
      const p = parseToolId(id);
      if (p) assert.equal(formatToolId(p), id);
    }),
    { numRuns: 2000 },
  );
});

test('toolId forms from CONTRACT.md', () => {
  assert.equal(formatToolId({ source: 'node-pack', typeId: 'text.uppercase' }), 'openwop:text.uppercase');
  assert.equal(formatToolId({ source: 'mcp', serverId: 'fs', toolName: 'read_file' }), 'mcp:fs.read_file');
  assert.equal(formatToolId({ source: 'connector', connectorId: 'crm', action: 'createLead' }), 'connector:crm.createLead');
  assert.equal(formatToolId({ source: 'workflow', workflowId: 'triage' }), 'workflow:triage');
  assert.equal(formatToolId({ source: 'host-extension', vendor: 'acme', name: 'run-command' }), 'x-host-acme-run-command');
  // An MCP tool name may itself hold dots: the server id never does, so the split is unambiguous.
  assert.deepEqual(parseToolId('mcp:fs.dir.list'), { source: 'mcp', serverId: 'fs', toolName: 'dir.list' });
});

test('ids outside the grammar are refused', () => {
  for (const bad of ['', 'openwop:', 'mcp:fs', 'mcp:.x', 'mcp:Fs.x', 'mcp:fs.a b', 'x-host-acme', 'x-host--x', 'other:thing', `openwop:${'a'.repeat(300)}`]) {
    assert.equal(parseToolId(bad), null, bad);
  }
  assert.equal(formatToolId({ source: 'mcp', serverId: 'a.b', toolName: 'x' }), null);
  assert.equal(formatToolId({ source: 'host-extension', vendor: 'ac-me', name: 'x' }), null);
  assert.equal(formatToolId({ source: 'mcp', serverId: 'fs', toolName: 'has space' }), null);
});
