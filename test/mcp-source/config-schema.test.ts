// The `sources.mcp[]` entry schema: strict 2020-12, closed objects, and the
// defaults the adapter applies.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { MCP_DEFAULTS, mcpSourceConfigSchema, withDefaults, type McpSourceConfig } from '../../src/sources/mcp/index.js';

const ajv = new Ajv2020({ strict: true, allErrors: true });
const validate = ajv.compile(mcpSourceConfigSchema);

test('valid stdio and http entries pass', () => {
  const stdio: McpSourceConfig = {
    id: 'fs',
    transport: 'stdio',
    command: 'npx',
    args: ['-y', '@modelcontextprotocol/server-filesystem', '${HOME}/data'],
    env: { TOKEN: '${FS_TOKEN}' },
    cwd: '.',
    connectTimeoutMs: 5000,
    pageTimeoutMs: 2000,
    maxPages: 10,
    maxTools: 100,
    refreshIntervalMs: 0,
    debounceMs: 0,
    pingIntervalMs: 0,
    callTimeoutMs: 1000,
    maxDescriptionLength: 200,
    maxSchemaBytes: 1000,
    maxSchemaDepth: 8,
    backoff: { initialMs: 100, maxMs: 1000 },
    keepStaleTools: false,
  };
  assert.ok(validate(stdio), JSON.stringify(validate.errors));
  const http: McpSourceConfig = { id: 'remote-1', transport: 'http', url: 'https://mcp.example.com/mcp', headers: { Authorization: 'Bearer ${TOKEN}' } };
  assert.ok(validate(http), JSON.stringify(validate.errors));
});

test('unknown keys, bad ids and mixed transports are rejected', () => {
  const bad: unknown[] = [
    { id: 'fs', transport: 'stdio', command: 'x', extra: 1 },
    { id: 'Fs', transport: 'stdio', command: 'x' },
    { id: 'a.b', transport: 'stdio', command: 'x' },
    { id: 'fs', transport: 'stdio' },
    { id: 'fs', transport: 'stdio', command: 'x', url: 'http://x' },
    { id: 'fs', transport: 'http', url: 'http://x', command: 'x' },
    { id: 'fs', transport: 'http', url: 'ftp://x' },
    { id: 'fs', transport: 'http', url: 'http://x', headers: { a: 1 } },
    { id: 'fs', transport: 'ws', url: 'http://x' },
    { id: 'fs', transport: 'stdio', command: 'x', backoff: { initialMs: 1, jitter: true } },
    { id: 'fs', transport: 'stdio', command: 'x', maxPages: 0 },
  ];
  for (const b of bad) assert.equal(validate(b), false, JSON.stringify(b));
});

test('every object in the schema is closed or a string map', () => {
  const walk = (node: unknown): void => {
    if (typeof node !== 'object' || node === null) return;
    const n = node as Record<string, unknown>;
    if (n.type === 'object') assert.ok(n.additionalProperties === false || (n.additionalProperties as { type?: string }).type === 'string');
    Object.values(n).forEach(walk);
  };
  walk(mcpSourceConfigSchema);
});

test('defaults', () => {
  const d = withDefaults({ id: 'x', transport: 'stdio', command: 'x' });
  assert.deepEqual(d, { ...MCP_DEFAULTS, backoff: { ...MCP_DEFAULTS.backoff } });
  assert.equal(d.debounceMs, 50);
  assert.equal(d.keepStaleTools, true);
  assert.deepEqual(withDefaults({ id: 'x', transport: 'stdio', command: 'x', backoff: { initialMs: 60_000 } }).backoff, { initialMs: 60_000, maxMs: 60_000 });
});
