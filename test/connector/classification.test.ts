// Classification defaults per HTTP method (RawTool.derived), credentialRef on
// secured operations, and the demo document as a connector source.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { convertOpenApiText, createConnectorSource, type LoadedConnectorDocument } from '../../src/sources/connector/index.js';
import { DEMO_DOC, testContext } from './helpers.js';

function doc(extra: Record<string, unknown> = {}): Record<string, unknown> {
  const op = (id: string, more: Record<string, unknown> = {}) => ({ operationId: id, responses: { '200': { description: 'ok' } }, ...more });
  return {
    openapi: '3.1.0',
    info: { title: 't', version: '1' },
    servers: [{ url: 'https://api.example.test' }],
    paths: {
      '/things': {
        get: op('getThing'),
        head: op('headThing'),
        options: op('optionsThing'),
        trace: op('traceThing'),
        put: op('putThing'),
        delete: op('deleteThing', { security: [{ key: [] }] }),
        post: op('postThing', { security: [{}] }),
        patch: op('patchThing', { security: [{}, { key: [] }] }),
      },
    },
    components: { securitySchemes: { key: { type: 'apiKey', in: 'header', name: 'X-Key' } } },
    ...extra,
  };
}

async function load(d: Record<string, unknown>): Promise<LoadedConnectorDocument> {
  return convertOpenApiText({ id: 'c', document: 'doc.json' }, JSON.stringify(d), '/virtual/doc.json');
}

test('classification defaults follow the HTTP method', async () => {
  const { tools } = await load(doc());
  const derived = Object.fromEntries(tools.map((t) => [t.toolId.slice('connector:c.'.length), t.derived]));
  const read = { safetyTier: 'read', replayPolicy: 'idempotent', egress: 'host-mediated' };
  const idempotentWrite = { safetyTier: 'write', replayPolicy: 'idempotent', egress: 'host-mediated' };
  const write = { safetyTier: 'write', replayPolicy: 'non-deterministic', egress: 'host-mediated' };
  assert.deepEqual(derived, {
    getThing: read,
    headThing: read,
    optionsThing: read,
    traceThing: read,
    putThing: idempotentWrite,
    deleteThing: idempotentWrite,
    postThing: write,
    patchThing: write,
  });
  for (const t of tools) {
    assert.equal(t.source, 'connector');
    assert.equal(t.derived?.egress, 'host-mediated');
  }
});

test('credentialRef: operation-level and document-level security, and its overrides', async () => {
  const cred = (l: LoadedConnectorDocument) => Object.fromEntries(l.tools.map((t) => [t.toolId.slice('connector:c.'.length), t.credentialRef === true]));
  // operation-level only: deleteThing [{key}] and patchThing [{}, {key}] use a credential; postThing [{}] does not
  assert.deepEqual(cred(await load(doc())), {
    deleteThing: true,
    getThing: false,
    headThing: false,
    optionsThing: false,
    patchThing: true,
    postThing: false,
    putThing: false,
    traceThing: false,
  });
  // document-level security applies unless an operation overrides it ([] or [{}] = anonymous)
  const secured = doc({ security: [{ key: [] }] });
  (secured.paths as any)['/things'].get.security = [];
  const c = cred(await load(secured));
  assert.equal(c.getThing, false);
  assert.equal(c.postThing, false);
  assert.equal(c.headThing, true);
  assert.equal(c.putThing, true);
  // credentialRef is only ever `true` or absent
  for (const t of (await load(secured)).tools) assert.ok(t.credentialRef === true || !('credentialRef' in t));
  const ops = (await load(secured)).operations;
  assert.deepEqual(ops.find((o) => o.action === 'headThing')?.securitySchemes, ['key']);
});

test('the apiKey carrier parameter of a scheme is not an argument', async () => {
  const d = doc();
  (d.paths as any)['/things'].delete.parameters = [
    { name: 'x-key', in: 'header', schema: { type: 'string' } },
    { name: 'q', in: 'query', schema: { type: 'string' } },
  ];
  const { tools } = await load(d);
  const del = tools.find((t) => t.toolId === 'connector:c.deleteThing')!;
  assert.deepEqual(Object.keys((del.inputSchema as any).properties), ['q']);
});

test('the demo tickets document as a source', async () => {
  const ctx = testContext();
  const source = createConnectorSource({ id: 'tickets', document: DEMO_DOC, watch: false }, ctx);
  await source.start(() => {});
  const h = source.health();
  assert.equal(h.state, 'connected');
  assert.equal(h.id, 'connector:tickets');
  assert.equal(h.kind, 'connector');
  assert.deepEqual(
    source.tools().map((t) => [t.toolId, t.derived?.safetyTier, t.derived?.replayPolicy, t.credentialRef ?? false]),
    [
      ['connector:tickets.createTicket', 'write', 'non-deterministic', false],
      ['connector:tickets.deleteTicket', 'write', 'idempotent', true],
      ['connector:tickets.getTicket', 'read', 'idempotent', false],
      ['connector:tickets.listTickets', 'read', 'idempotent', false],
      ['connector:tickets.updateTicket', 'write', 'idempotent', false],
    ],
  );
  const op = source.operation('connector:tickets.deleteTicket');
  assert.equal(op?.method, 'DELETE');
  assert.equal(op?.baseUrl, 'https://tickets.example.com/v1');
  assert.equal(source.operation('connector:tickets.nope'), undefined);
  const metrics = await ctx.metrics.registry.getMetricsAsJSON();
  const value = (name: string) => metrics.find((m) => m.name === name)?.values.find((v) => v.labels.source === 'connector:tickets')?.value;
  assert.equal(value('toolhost_source_refreshes_total'), 1);
  assert.equal(value('toolhost_source_tools'), 5);
  await source.stop();
});
