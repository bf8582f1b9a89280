// The documented rules: action names, parameters, schema conversion,
// include/exclude, media types, refusals, and the config schema.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { NAME_PATTERN } from '../../src/contract/tool-id.js';
import {
  ConnectorDocumentError,
  connectorSourceConfigSchema,
  convertOpenApiText,
  deriveName,
  sanitizeName,
  type ConnectorSourceConfig,
  type LoadedConnectorDocument,
} from '../../src/sources/connector/index.js';

const ok = { '200': { description: 'ok' } };

function oas(paths: Record<string, unknown>, extra: Record<string, unknown> = {}, version = '3.0.3'): Record<string, unknown> {
  return { openapi: version, info: { title: 't', version: '1' }, servers: [{ url: 'https://api.example.test/v1/' }], paths, ...extra };
}

async function load(d: Record<string, unknown>, config: Partial<ConnectorSourceConfig> = {}): Promise<LoadedConnectorDocument> {
  return convertOpenApiText({ id: 'c', document: 'doc.json', ...config }, JSON.stringify(d), '/virtual/doc.json');
}

function actions(l: LoadedConnectorDocument): Record<string, string> {
  return Object.fromEntries(l.operations.map((o) => [`${o.method} ${o.path}`, o.action]));
}

const tool = (l: LoadedConnectorDocument, action: string) => {
  const t = l.tools.find((x) => x.toolId === `connector:c.${action}`);
  assert.ok(t, `tool ${action} among ${l.tools.map((x) => x.toolId).join(', ')}`);
  return t as { inputSchema: any; outputSchema?: any; title?: string; description?: string };
};

test('action names: exact, sanitized, derived, collisions, stable under reordering', async () => {
  const long = 'x'.repeat(200);
  const paths: Record<string, unknown> = {
    '/a': { get: { operationId: 'list things', responses: ok } },
    '/b': { get: { operationId: 'list_things', responses: ok } },
    '/pets/{petId}': { get: { responses: ok }, parameters: [{ name: 'petId', in: 'path', required: true, schema: { type: 'string' } }] },
    '/': { post: { responses: ok } },
    '/c': { get: { operationId: '-weird', responses: ok } },
    '/d': { get: { operationId: '日本', responses: ok } },
    '/e': { get: { operationId: long, responses: ok } },
    '/f': { get: { operationId: 'dup', responses: ok }, put: { operationId: 'dup', responses: ok } },
  };
  const l = await load(oas(paths));
  assert.deepEqual(actions(l), {
    'GET /a': 'list_things_2',
    'GET /b': 'list_things',
    'GET /pets/{petId}': 'get_pets_petId',
    'POST /': 'post',
    'GET /c': '_-weird',
    'GET /d': 'get_d',
    'GET /e': 'x'.repeat(128),
    'GET /f': 'dup',
    'PUT /f': 'dup_2',
  });
  assert.ok(l.warnings.some((w) => w.includes('list_things_2')), 'a warning for the sanitized collision');
  assert.ok(l.warnings.some((w) => w.includes('dup_2')), 'a warning for the duplicate operationId');
  for (const o of l.operations) assert.match(o.action, NAME_PATTERN);
  // same names whatever the order of paths in the document
  const reversed = Object.fromEntries(Object.entries(paths).reverse());
  assert.deepEqual(actions(await load(oas(reversed))), actions(l));
  assert.equal(deriveName('get', '/pets/{petId}/photos.json'), 'get_pets_petId_photos_json');
  assert.equal(sanitizeName('a b/c.d'), 'a_b/c.d');
  assert.equal(sanitizeName('???'), undefined);
});

test('parameters: merge, skip rules, collisions, path params required, body', async () => {
  const l = await load(
    oas({
      '/items/{id}/{extra}': {
        parameters: [
          { name: 'id', in: 'path', required: true, description: 'path-item level', schema: { type: 'string' } },
          { name: 'limit', in: 'query', schema: { type: 'integer' } },
        ],
        post: {
          operationId: 'op',
          parameters: [
            { name: 'id', in: 'path', description: 'operation level', schema: { type: 'integer' } },
            { name: 'id', in: 'query', required: true, schema: { type: 'string' } },
            { name: 'ID', in: 'header', schema: { type: 'string' } },
            { name: 'body', in: 'query', schema: { type: 'string' } },
            { name: 'session', in: 'cookie', required: true, schema: { type: 'string' } },
            { name: 'Accept', in: 'header', schema: { type: 'string' } },
            { name: 'content-type', in: 'header', schema: { type: 'string' } },
            { name: 'Authorization', in: 'header', schema: { type: 'string' } },
          ],
          requestBody: { required: true, description: 'the item', content: { 'application/json': { schema: { type: 'object' } } } },
          responses: ok,
        },
      },
    }),
  );
  const s = tool(l, 'op').inputSchema;
  assert.deepEqual(Object.keys(s.properties), ['id', 'extra', 'limit', 'query:id', 'query:body', 'ID', 'body']);
  assert.deepEqual(s.properties.id, { type: 'integer', description: 'operation level' });
  assert.deepEqual(s.properties.extra, { type: 'string' }, 'undeclared template variable');
  assert.deepEqual(s.properties.body, { type: 'object', description: 'the item' });
  assert.deepEqual(s.required, ['id', 'extra', 'query:id', 'body']);
  assert.equal(s.additionalProperties, false);
  const op = l.operations[0];
  assert.deepEqual(
    op.parameters.map((p) => [p.in, p.name, p.property]),
    [
      ['path', 'id', 'id'],
      ['path', 'extra', 'extra'],
      ['query', 'limit', 'limit'],
      ['query', 'id', 'query:id'],
      ['query', 'body', 'query:body'],
      ['header', 'ID', 'ID'],
    ],
  );
  // the configured auth header/query is never an argument either
  const withAuth = await load(
    oas({ '/x': { get: { operationId: 'x', parameters: [{ name: 'api_key', in: 'query', schema: { type: 'string' } }, { name: 'q', in: 'query', schema: { type: 'string' } }], responses: ok } } }),
    { auth: { type: 'query', name: 'api_key', secret: { env: 'K' } } },
  );
  assert.deepEqual(Object.keys(tool(withAuth, 'x').inputSchema.properties), ['q']);
});

test('OpenAPI 3.0 schemas become JSON Schema 2020-12', async () => {
  const l = await load(
    oas(
      {
        '/t': {
          post: {
            operationId: 't',
            requestBody: { required: true, content: { 'application/json': { schema: { $ref: '#/components/schemas/T' } } } },
            responses: {
              '201': { description: 'made', content: { 'application/json': { schema: { $ref: '#/components/schemas/T' } } } },
            },
          },
        },
      },
      {
        components: {
          schemas: {
            T: {
              type: 'object',
              required: ['id', 'name', 'secret'],
              discriminator: { propertyName: 'kind' },
              xml: { name: 't' },
              externalDocs: { url: 'https://x' },
              'x-internal': true,
              properties: {
                id: { type: 'integer', readOnly: true },
                name: { type: 'string', nullable: true, example: 'Rex', 'x-order': 1 },
                secret: { type: 'string', writeOnly: true },
                kind: { type: 'string', enum: ['a', 'b'], nullable: true },
                score: { type: 'number', minimum: 5, exclusiveMinimum: true, maximum: 10, exclusiveMaximum: false },
                parent: { allOf: [{ $ref: '#/components/schemas/Base' }], nullable: true },
                password: { type: 'string', example: 'hunter2', default: 'hunter2' },
                'x-not-an-extension': { type: 'string' },
                discriminator: { type: 'string' },
              },
            },
            Base: { type: 'object', properties: { v: { type: 'string' } } },
          },
        },
      },
    ),
  );
  const t = tool(l, 't');
  const body = t.inputSchema.properties.body;
  assert.deepEqual(body, {
    type: 'object',
    required: ['name', 'secret'],
    properties: {
      id: { type: 'integer', readOnly: true },
      name: { type: ['string', 'null'], examples: ['Rex'] },
      secret: { type: 'string', writeOnly: true },
      kind: { type: ['string', 'null'], enum: ['a', 'b', null] },
      score: { type: 'number', maximum: 10, exclusiveMinimum: 5 },
      parent: { anyOf: [{ allOf: [{ type: 'object', properties: { v: { type: 'string' } } }] }, { type: 'null' }] },
      password: { type: 'string' },
      'x-not-an-extension': { type: 'string' },
      discriminator: { type: 'string' },
    },
  });
  // response: readOnly stays required, writeOnly is not
  assert.deepEqual(t.outputSchema.required, ['id', 'name']);
  assert.equal(t.outputSchema.type, 'object');
  const ajv = new Ajv2020({ strict: false, logger: false });
  const v = ajv.compile(t.inputSchema);
  assert.ok(v({ body: { name: null, secret: 's', kind: null, score: 5.5 } }), JSON.stringify(v.errors));
  assert.ok(!v({ body: { name: 'a', secret: 's', score: 5 } }), 'exclusive minimum');
  assert.ok(!v({ body: { name: 'a', secret: 's' }, extra: 1 }), 'no unknown arguments');
});

test('circular schemas are kept as local $defs and stay resolvable', async () => {
  const l = await load(
    oas(
      {
        '/tree': {
          put: {
            operationId: 'putTree',
            requestBody: { content: { 'application/json': { schema: { $ref: '#/components/schemas/Node' } } } },
            responses: { '200': { description: 'ok', content: { 'application/json': { schema: { $ref: '#/components/schemas/Node' } } } } },
          },
        },
      },
      {
        components: {
          schemas: {
            Node: { type: 'object', required: ['name'], properties: { name: { type: 'string' }, children: { type: 'array', items: { $ref: '#/components/schemas/Node' } } } },
          },
        },
      },
    ),
  );
  const t = tool(l, 'putTree');
  assert.ok(t.inputSchema.$defs?.Node, 'Node in $defs');
  assert.equal(JSON.stringify(t.inputSchema).includes('#/components/'), false);
  const ajv = new Ajv2020({ strict: false, logger: false });
  const v = ajv.compile(t.inputSchema);
  assert.ok(v({ body: { name: 'a', children: [{ name: 'b', children: [{ name: 'c' }] }] } }));
  assert.ok(!v({ body: { name: 'a', children: [{ children: [] }] } }), 'nested nodes are checked too');
  assert.equal(t.outputSchema.type, 'object', 'a top-level circular type is lifted into an object output schema');
  assert.ok(ajv.compile(t.outputSchema)({ name: 'r', children: [{ name: 's' }] }));
});

test('output schemas: first 2xx JSON object response, none for arrays or non-JSON', async () => {
  const json = (schema: unknown) => ({ content: { 'application/json': { schema } }, description: 'd' });
  const l = await load(
    oas({
      '/a': { get: { operationId: 'arr', responses: { '200': json({ type: 'array', items: { type: 'string' } }) } } },
      '/b': { get: { operationId: 'obj', responses: { '404': json({ type: 'object' }), '201': json({ properties: { a: { type: 'string' } } }), '202': json({ type: 'string' }) } } },
      '/c': { get: { operationId: 'txt', responses: { '200': { description: 'd', content: { 'text/plain': { schema: { type: 'string' } } } } } } },
      '/d': { get: { operationId: 'range', responses: { '2XX': json({ type: 'object', properties: { r: { type: 'integer' } } }) } } },
    }),
  );
  assert.equal(tool(l, 'arr').outputSchema, undefined);
  assert.deepEqual(tool(l, 'obj').outputSchema, { type: 'object', properties: { a: { type: 'string' } } });
  assert.equal(tool(l, 'txt').outputSchema, undefined);
  assert.deepEqual(tool(l, 'range').outputSchema, { type: 'object', properties: { r: { type: 'integer' } } });
});

test('title and description come from summary and description', async () => {
  const l = await load(
    oas({
      '/a': { get: { operationId: 'both', summary: 'Short', description: 'Long text', responses: ok } },
      '/b': { get: { operationId: 'sum', summary: 'Only summary', responses: ok } },
      '/c': { get: { operationId: 'none', responses: ok } },
    }),
  );
  assert.deepEqual([tool(l, 'both').title, tool(l, 'both').description], ['Short', 'Long text']);
  assert.deepEqual([tool(l, 'sum').title, tool(l, 'sum').description], ['Only summary', 'Only summary']);
  assert.ok(!('title' in tool(l, 'none')) && !('description' in tool(l, 'none')));
});

test('include and exclude by operationId glob and tag; exclusion wins', async () => {
  const d = oas({
    '/p': { get: { operationId: 'listPets', tags: ['pets'], responses: ok }, post: { operationId: 'createPet', tags: ['pets', 'admin'], responses: ok } },
    '/u': { get: { operationId: 'listUsers', tags: ['users'], responses: ok }, delete: { responses: ok } },
  });
  const ids = (l: LoadedConnectorDocument) => l.operations.map((o) => o.action);
  assert.deepEqual(ids(await load(d)), ['createPet', 'delete_u', 'listPets', 'listUsers']);
  assert.deepEqual(ids(await load(d, { include: { operations: ['list*'] } })), ['listPets', 'listUsers']);
  assert.deepEqual(ids(await load(d, { include: { tags: ['pets'] } })), ['createPet', 'listPets']);
  assert.deepEqual(ids(await load(d, { include: { operations: ['listUsers', 'delete_*'], tags: ['pets'] } })), ['createPet', 'delete_u', 'listPets', 'listUsers']);
  assert.deepEqual(ids(await load(d, { include: { tags: ['pets'] }, exclude: { tags: ['admin'] } })), ['listPets']);
  assert.deepEqual(ids(await load(d, { exclude: { operations: ['*Pet*'] } })), ['delete_u', 'listUsers']);
  const l = await load(d, { exclude: { operations: ['*Pet*'] } });
  assert.equal(l.skipped.length, 2);
});

test('operation globs speak the config\'s one dialect: `*` crosses `/` as in tenant allowlists', async () => {
  // GitHub-style operationIds hold `/`: a path-glob dialect made `["*"]` select nothing.
  const d = oas({
    '/r': { get: { operationId: 'repos/get', responses: ok }, delete: { operationId: 'repos/delete', responses: ok } },
    '/i': { get: { operationId: 'issues/list-for-repo', responses: ok } },
  });
  const ids = (l: LoadedConnectorDocument) => l.operations.map((o) => o.action).sort();
  const all = ids(await load(d));
  assert.equal(all.length, 3);
  assert.deepEqual(ids(await load(d, { include: { operations: ['*'] } })), all);
  assert.deepEqual(ids(await load(d, { include: { operations: ['*/*'] } })), all);
  assert.equal((await load(d, { include: { operations: ['repos*'] } })).operations.length, 2);
  assert.equal((await load(d, { exclude: { operations: ['*delete*'] } })).operations.length, 2);
  assert.equal((await load(d, { include: { operations: ['issues/list-for-rep?'] } })).operations.length, 1);
});

test('request body media types: JSON, form, text; unsupported ones', async () => {
  const l = await load(
    oas({
      '/form': { post: { operationId: 'form', requestBody: { content: { 'application/x-www-form-urlencoded': { schema: { type: 'object' } } } }, responses: ok } },
      '/vnd': { post: { operationId: 'vnd', requestBody: { content: { 'application/xml': {}, 'application/vnd.api+json': { schema: { type: 'object' } } } }, responses: ok } },
      '/up': { post: { operationId: 'up', requestBody: { required: true, content: { 'multipart/form-data': { schema: { type: 'object' } } } }, responses: ok } },
      '/opt': { post: { operationId: 'opt', requestBody: { content: { 'application/octet-stream': {} } }, responses: ok } },
    }),
  );
  const op = (a: string) => l.operations.find((o) => o.action === a);
  assert.deepEqual(op('form')?.body, { property: 'body', mediaType: 'application/x-www-form-urlencoded', encoding: 'form', required: false });
  assert.deepEqual(op('vnd')?.body, { property: 'body', mediaType: 'application/vnd.api+json', encoding: 'json', required: false });
  assert.equal(op('up'), undefined, 'a required multipart body cannot be sent: skipped');
  assert.ok(l.skipped.some((s) => s.path === '/up' && /multipart\/form-data/.test(s.reason)));
  assert.equal(op('opt')?.body, undefined, 'an optional unsupported body is left out');
  assert.deepEqual(Object.keys(tool(l, 'opt').inputSchema.properties), []);
});

test('base URL: config, then operation, path item and document servers with variables', async () => {
  const d = oas(
    {
      '/a': { get: { operationId: 'a', servers: [{ url: 'https://op.example.test/' }], responses: ok } },
      '/b': { servers: [{ url: 'https://{env}.example.test', variables: { env: { default: 'path' } } }], get: { operationId: 'b', responses: ok } },
      '/c': { get: { operationId: 'c', responses: ok } },
    },
  );
  const base = (l: LoadedConnectorDocument) => l.operations.map((o) => o.baseUrl);
  assert.deepEqual(base(await load(d)), ['https://op.example.test', 'https://path.example.test', 'https://api.example.test/v1']);
  assert.deepEqual(base(await load(d, { baseUrl: 'http://localhost:9/api/' })), ['http://localhost:9/api', 'http://localhost:9/api', 'http://localhost:9/api']);
  const relative = await load(oas({ '/c': { get: { operationId: 'c', responses: ok } } }, { servers: [{ url: '/v2' }] }));
  assert.equal(relative.operations[0].baseUrl, undefined);
  assert.ok(relative.warnings.some((w) => /not an absolute http\(s\) URL/.test(w)));
});

test('refusals are clear', async () => {
  const refuse = async (text: string, re: RegExp) => {
    await assert.rejects(convertOpenApiText({ id: 'c', document: 'd.yaml' }, text, '/v/d.yaml'), (err: unknown) => {
      assert.ok(err instanceof ConnectorDocumentError);
      assert.match(err.message, re);
      assert.ok(!err.message.includes('\n'));
      return true;
    });
  };
  await refuse('openapi: 3.0.0\ninfo: [unclosed', /^d\.yaml: not valid YAML: /);
  await refuse('{"openapi": ', /^d\.yaml: not valid JSON: /);
  await refuse('swagger: "2.0"\ninfo: {title: t, version: "1"}\npaths: {}\n', /Swagger 2\.0 documents are not supported/);
  await refuse('openapi: 3.2.0\ninfo: {title: t, version: "1"}\npaths: {}\n', /unsupported OpenAPI version "3\.2\.0" \(supported: 3\.0\.x, 3\.1\.x\)/);
  await refuse('openapi: 3.0.3\ninfo: {title: t, version: "1"}\n', /no "paths" object/);
  await refuse('- a\n- b\n', /not an OpenAPI document/);
  await refuse(
    JSON.stringify(oas({ '/a': { get: { responses: { '200': { description: 'd', content: { 'application/json': { schema: { $ref: '#/components/schemas/Nope' } } } } } } } })),
    /cannot resolve references: Missing \$ref pointer "#\/components\/schemas\/Nope"/,
  );
  // later patch versions load
  const later = await convertOpenApiText({ id: 'c', document: 'd' }, JSON.stringify(oas({ '/a': { get: { responses: ok } } }, {}, '3.1.9')), '/v/d.json');
  assert.equal(later.version, '3.1');
});

test('config schema: accepts references to secrets, refuses secrets and bad ids', () => {
  const ajv = new Ajv2020({ strict: true, allErrors: true });
  const validate = ajv.compile(connectorSourceConfigSchema);
  const good: ConnectorSourceConfig[] = [
    { id: 'tickets', document: 'openapi/tickets.yaml' },
    {
      id: 'gh_api-2',
      document: 'gh.json',
      baseUrl: 'https://api.github.com',
      include: { operations: ['repos/*'], tags: ['repos'] },
      exclude: { operations: ['*delete*'] },
      auth: { type: 'bearer', secret: { env: 'GITHUB_TOKEN' } },
      watch: false,
      debounceMs: 500,
    },
    { id: 'k', document: 'k.yaml', auth: { type: 'header', name: 'X-Api-Key', secret: { file: 'secrets/k.txt' } } },
    { id: 'q', document: 'q.yaml', auth: { type: 'query', name: 'api_key', secret: { env: 'Q' } } },
    { id: 'b', document: 'b.yaml', auth: { type: 'basic', secret: { env: 'B' } } },
  ];
  for (const g of good) assert.ok(validate(g), `${g.id}: ${JSON.stringify(validate.errors)}`);
  const bad: unknown[] = [
    { id: 'Tickets', document: 'a' },
    { id: 'a.b', document: 'a' },
    { id: 'a' },
    { id: 'a', document: 'a', extra: 1 },
    { id: 'a', document: 'a', auth: { type: 'bearer', secret: 'sk-live-123' } },
    { id: 'a', document: 'a', auth: { type: 'bearer', secret: { value: 'sk-live-123' } } },
    { id: 'a', document: 'a', auth: { type: 'bearer', secret: { env: 'A', file: 'b' } } },
    { id: 'a', document: 'a', auth: { type: 'header', secret: { env: 'A' } } },
    { id: 'a', document: 'a', auth: { type: 'digest', secret: { env: 'A' } } },
    { id: 'a', document: 'a', baseUrl: 'ftp://x' },
    { id: 'a', document: 'a', debounceMs: -1 },
    { id: 'a', document: 'a', include: { paths: ['/x'] } },
  ];
  for (const b of bad) assert.ok(!validate(b), `refused: ${JSON.stringify(b)}`);
});

test('a schema graph that would expand exponentially is cut off, looser, with a warning', async () => {
  // L0 has 10 properties referencing L1, each with 10 referencing L2, ... : 10^9 nodes once inlined
  const schemas: Record<string, unknown> = { L9: { type: 'string' } };
  for (let i = 8; i >= 0; i--) {
    schemas[`L${i}`] = { type: 'object', properties: Object.fromEntries(Array.from({ length: 10 }, (_, k) => [`p${k}`, { $ref: `#/components/schemas/L${i + 1}` }])) };
  }
  const t0 = performance.now();
  const l = await load(
    oas(
      { '/big': { post: { operationId: 'big', requestBody: { content: { 'application/json': { schema: { $ref: '#/components/schemas/L0' } } } }, responses: ok } } },
      { components: { schemas } },
    ),
  );
  assert.ok(performance.now() - t0 < 5000, 'bounded time');
  assert.ok(l.warnings.some((w) => /POST \/big input schema: more than 20000 schema nodes/.test(w)), l.warnings.join('\n'));
  const schema = tool(l, 'big').inputSchema;
  assert.ok(JSON.stringify(schema).length < 5_000_000);
  const v = new Ajv2020({ strict: false, logger: false }).compile(schema);
  assert.ok(v({ body: { p0: { p1: { p2: {} } } } }));
});
