// Black-box conformance with the published openwop v2 schemas (vendored under
// test/vendor/openwop-v2): every descriptor of both views, from the list and
// by id, for both demo tenants and for a host whose MCP servers send input
// schemas with `$schema`, `$defs`, `oneOf`, top-level `required` and the
// rest; the discovery document; error bodies of each host.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { hashApiKey } from '../../src/auth/api-keys.js';
import {
  envelopeProblem, errorsOf, validateCapabilitiesV2, validatePublishedCompactV2, validatePublishedV2,
} from '../helpers/schemas.js';
import { ACME_KEY, demoConfig, GLOBEX_KEY, request, startTestServer, writeConfig, type TestServer } from '../helpers/server.js';
import { patient } from '../helpers/patience.js';
import { programArgs } from '../helpers/fixture-command.js';

const root = new URL('../../', import.meta.url).pathname;
const FIXTURE = `${root}test/fixtures/mcp-fixture/server.ts`;
const EVERYTHING = `${root}node_modules/@modelcontextprotocol/server-everything/dist/index.js`;

/** Checks both views of one caller's catalog, list and by id; returns the compact list. */
async function checkViews(url: string, key: string): Promise<Record<string, any>[]> {
  const standard = (await request(url, '/tools', { token: key })).json() as Record<string, any>[];
  const compact = (await request(url, '/tools?view=compact', { token: key })).json().tools as Record<string, any>[];
  assert.ok(standard.length > 0);
  assert.deepEqual(compact.map((d) => d.toolId), standard.map((d) => d.toolId));
  for (const d of standard) assert.ok(validatePublishedV2(d), `${d.toolId}: ${errorsOf(validatePublishedV2)}`);
  for (const d of compact) assert.ok(validatePublishedCompactV2(d), `${d.toolId}: ${errorsOf(validatePublishedCompactV2)} ${JSON.stringify(d.inputSchema)}`);
  for (const [i, d] of standard.entries()) {
    const id = encodeURIComponent(d.toolId);
    const one = (await request(url, `/tools/${id}`, { token: key })).json();
    assert.ok(validatePublishedV2(one), `${d.toolId}: ${errorsOf(validatePublishedV2)}`);
    assert.deepEqual(one, d);
    const oneCompact = (await request(url, `/tools/${id}?view=compact`, { token: key })).json();
    assert.ok(validatePublishedCompactV2(oneCompact), `${d.toolId}: ${errorsOf(validatePublishedCompactV2)}`);
    assert.deepEqual(oneCompact, compact[i]);
  }
  return compact;
}

async function checkDiscoveryAndErrors(url: string): Promise<void> {
  const doc = (await request(url, '/.well-known/openwop')).json();
  assert.ok(validateCapabilitiesV2(doc), errorsOf(validateCapabilitiesV2));
  for (const [path, init] of [
    ['/tools', {}],
    ['/tools/nope%3Anope', { token: ACME_KEY }],
    ['/tools', { token: ACME_KEY, method: 'DELETE' }],
    ['/tools', { token: ACME_KEY, headers: { 'openwop-version': '7' } }],
    ['/nothing-here', {}],
  ] as const) {
    const res = await request(url, path, init);
    assert.ok(res.status >= 400, `${path} ${res.status}`);
    assert.equal(envelopeProblem(res.status, res.headers, res.text), undefined, path);
  }
}

describe('the demo host', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer(demoConfig(), { startDeadlineMs: patient(20_000) });
  });
  after(async () => server?.close());

  test('both tenants: every descriptor of both views, list and by id, is valid against the published v2 schemas', async () => {
    for (const key of [ACME_KEY, GLOBEX_KEY]) await checkViews(server.url, key);
  });

  test('discovery and error bodies', async () => {
    await checkDiscoveryAndErrors(server.url);
  });
});

describe('a host with real MCP servers whose schemas carry $schema, $defs, oneOf and top-level required', () => {
  let server: TestServer;
  before(async () => {
    const config = writeConfig({
      tenants: { acme: { tools: ['*'] } },
      principals: [{ id: 'acme-agent', tenant: 'acme', keyHash: hashApiKey(ACME_KEY) }],
      sources: {
        mcp: [
          { id: 'everything', transport: 'stdio', command: process.execPath, args: [EVERYTHING, 'stdio'] },
          { id: 'fx', transport: 'stdio', command: process.execPath, args: [...programArgs(FIXTURE), '--transport', 'stdio', '--schema-zoo'], cwd: root },
        ],
      },
    });
    server = await startTestServer(config, { startDeadlineMs: patient(20_000) });
  });
  after(async () => server?.close());

  test('every descriptor of both views is valid; what the model needs is kept', async () => {
    const compact = await checkViews(server.url, ACME_KEY);
    const byId = new Map(compact.map((d) => [d.toolId, d]));
    assert.ok([...byId.keys()].some((id) => id.startsWith('mcp:everything.')), 'server-everything listed');
    const shapes = byId.get('mcp:fx.zoo_shapes')!;
    assert.deepEqual(Object.keys(shapes.inputSchema), ['type', 'properties']);
    // top-level required as marks; the nested union's own required kept
    assert.match(shapes.inputSchema.properties.shape.description, /\(required\)$/);
    assert.deepEqual(shapes.inputSchema.properties.shape.required, ['kind']);
    assert.match(shapes.description, /^Draws a shape\. Arguments: /);
    const draft07 = byId.get('mcp:fx.zoo_draft07')!;
    assert.deepEqual(draft07.inputSchema.properties.point, { type: 'array', prefixItems: [{ type: 'number' }, { type: 'number' }], items: false, description: '(required)' });
    const union = byId.get('mcp:fx.zoo_anyof_root')!;
    assert.deepEqual(Object.keys(union.inputSchema.properties).sort(), ['id', 'name']);
  });

  test('discovery and error bodies', async () => {
    await checkDiscoveryAndErrors(server.url);
  });
});
