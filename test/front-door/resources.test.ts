// Resources, templates, prompts and completions through /mcp with the real
// reference servers (everything, filesystem) and a fault-injecting one,
// spoken to with the SDK client: every page, every item compared with what
// the upstream answers directly, tenants that see some, none or part,
// colliding URIs, the size cap, subscriptions, an upstream killed mid-read,
// and the record of each read.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { McpError, ResourceListChangedNotificationSchema, ResourceUpdatedNotificationSchema, type Prompt, type Resource, type ResourceTemplate } from '@modelcontextprotocol/sdk/types.js';
import { InMemorySpanExporter } from '@opentelemetry/sdk-trace-base';
import { hashApiKey } from '../../src/auth/api-keys.js';
import { request, startTestServer, tempDir, writeConfig, type TestServer } from '../helpers/server.js';
import { connect, root } from './front-door-helpers.js';

const EVERYTHING = `${root}node_modules/@modelcontextprotocol/server-everything/dist/index.js`;
const FILESYSTEM = `${root}node_modules/@modelcontextprotocol/server-filesystem/dist/index.js`;
const FAULT = `${root}test/fixtures/resource-fault-server.mjs`;
const SHARED = 'demo://resource/static/document/features.md';
const SECRET = 'fault-secret-71c2e9aa';
const host = (server: string, uri: string) => `toolhost-mcp://${server}/${uri}`;
/** A content's text or blob, whichever it has. */
const textOf = (c: object) => (c as { text?: string }).text;
const blobOf = (c: object) => (c as { blob?: string }).blob;

async function all<T>(first: (cursor?: string) => Promise<{ nextCursor?: string } & Record<string, unknown>>, key: string): Promise<{ items: T[]; pages: number }> {
  const items: T[] = [];
  let cursor: string | undefined;
  let pages = 0;
  do {
    const page = await first(cursor);
    pages++;
    items.push(...(page[key] as T[]));
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  return { items, pages };
}

async function rpcError(p: Promise<unknown>): Promise<{ code: number; message: string }> {
  try {
    await p;
  } catch (err) {
    if (err instanceof McpError) return { code: err.code, message: err.message };
    throw err;
  }
  throw new Error('expected an error');
}

describe('MCP resources and prompts', () => {
  let server: TestServer;
  let direct: Client;
  let acme: Client;
  const spans = new InMemorySpanExporter();

  before(async () => {
    const dir = tempDir();
    const configFile = writeConfig(
      {
        tenants: {
          acme: { tools: ['mcp:everything.toggle-subscriber-updates'], resources: ['mcp:everything:*', 'mcp:fault:*', 'mcp:fs:*'], prompts: ['mcp:everything.*'] },
          globex: { tools: ['mcp:everything.echo'] },
          initech: { tools: [], resources: ['mcp:everything:demo://resource/static/document/a*'], prompts: ['mcp:everything.simple-prompt'] },
        },
        principals: [
          { id: 'acme-1', tenant: 'acme', keyHash: hashApiKey('ka') },
          { id: 'globex-1', tenant: 'globex', keyHash: hashApiKey('kg') },
          { id: 'initech-1', tenant: 'initech', keyHash: hashApiKey('ki') },
        ],
        events: { file: `${dir}/events.sqlite` },
        mcp: { pageSize: 2, maxResourceBytes: 32 * 1024, callTimeoutMs: 20_000 },
        sources: {
          mcp: [
            { id: 'everything', transport: 'stdio', command: process.execPath, args: [EVERYTHING, 'stdio'] },
            { id: 'fs', transport: 'stdio', command: process.execPath, args: [FILESYSTEM, dir] },
            { id: 'fault', transport: 'stdio', command: process.execPath, args: [FAULT], env: { FAULT_SECRET: '${FAULT_SECRET}' }, backoff: { initialMs: 60_000 } },
          ],
        },
      },
      dir,
    );
    server = await startTestServer(configFile, { env: { ...process.env, FAULT_SECRET: SECRET }, spanExporter: spans });
    direct = new Client({ name: 'direct', version: '1' });
    await direct.connect(new StdioClientTransport({ command: process.execPath, args: [EVERYTHING, 'stdio'] }));
    acme = await connect(server.url, 'ka');
  });

  after(async () => {
    await Promise.all([direct?.close(), acme?.close()]);
    await server?.close();
  });

  test('every page of resources, templates and prompts, each item as the upstream has it under a host name', async () => {
    const caps = acme.getServerCapabilities();
    assert.deepEqual(caps?.resources, { listChanged: true, subscribe: true });
    assert.deepEqual(caps?.prompts, { listChanged: true });
    assert.ok(caps?.completions);
    const resources = await all<Resource>((cursor) => acme.listResources({ cursor }), 'resources');
    const upstream = (await direct.listResources()).resources;
    assert.ok(resources.pages > 2, 'read through several pages');
    const fromEverything = resources.items.filter((r) => r.uri.startsWith('toolhost-mcp://everything/'));
    assert.deepEqual(
      fromEverything.map((r) => r._meta?.['toolhost/upstreamUri']).sort(),
      upstream.map((r) => r.uri).sort(),
    );
    for (const r of fromEverything) {
      const original = upstream.find((u) => u.uri === r._meta?.['toolhost/upstreamUri'])!;
      assert.equal(r.uri, host('everything', original.uri));
      assert.equal(r.name, original.name);
      assert.equal(r.mimeType, original.mimeType);
      const [mine, theirs] = await Promise.all([acme.readResource({ uri: r.uri }), direct.readResource({ uri: original.uri })]);
      assert.deepEqual(
        mine.contents.map((c) => ({ ...c, uri: c._meta?.['toolhost/upstreamUri'], _meta: undefined })),
        theirs.contents.map((c) => ({ ...c, _meta: undefined })),
      );
    }
    assert.equal(resources.items.filter((r) => r.uri.startsWith('toolhost-mcp://fs/')).length, 0, 'the filesystem server offers no resources');

    const templates = await all<ResourceTemplate>((cursor) => acme.listResourceTemplates({ cursor }), 'resourceTemplates');
    const upstreamTemplates = (await direct.listResourceTemplates()).resourceTemplates;
    assert.deepEqual(templates.items.map((t) => t.uriTemplate).sort(), upstreamTemplates.map((t) => host('everything', t.uriTemplate)).sort());
    // A template expands to a host URI that reads the upstream expansion, blobs with their MIME type.
    const blob = await acme.readResource({ uri: host('everything', 'demo://resource/dynamic/blob/7') });
    const theirBlob = await direct.readResource({ uri: 'demo://resource/dynamic/blob/7' });
    assert.equal(blob.contents[0].mimeType, theirBlob.contents[0].mimeType);
    assert.match(Buffer.from(String(blobOf(blob.contents[0])), 'base64').toString(), /^Resource 7: This is a base64 blob/);

    const prompts = await all<Prompt>((cursor) => acme.listPrompts({ cursor }), 'prompts');
    const upstreamPrompts = (await direct.listPrompts()).prompts;
    assert.ok(prompts.pages > 1);
    assert.deepEqual(prompts.items.map((p) => p.name).sort(), upstreamPrompts.map((p) => `everything.${p.name}`).sort());
    for (const p of upstreamPrompts) {
      const args = Object.fromEntries((p.arguments ?? []).map((a) => [a.name, a.name === 'resourceType' ? 'Text' : a.name === 'resourceId' ? '3' : 'Engineering']));
      const [mine, theirs] = await Promise.all([acme.getPrompt({ name: `everything.${p.name}`, arguments: args }), direct.getPrompt({ name: p.name, arguments: args })]);
      const unhost = JSON.stringify(mine.messages).replaceAll('toolhost-mcp://everything/', '');
      assert.equal(unhost.replace(/created at [^"]*/g, ''), JSON.stringify(theirs.messages).replace(/created at [^"]*/g, ''));
    }
  });

  test('completions for prompt arguments and template variables', async () => {
    const byPrompt = await acme.complete({ ref: { type: 'ref/prompt', name: 'everything.completable-prompt' }, argument: { name: 'department', value: 'S' } });
    assert.deepEqual(byPrompt.completion.values, ['Sales', 'Support']);
    const inContext = await acme.complete({ ref: { type: 'ref/prompt', name: 'everything.completable-prompt' }, argument: { name: 'name', value: '' }, context: { arguments: { department: 'Sales' } } });
    assert.deepEqual(inContext.completion.values, ['David', 'Eve', 'Frank']);
    const byTemplate = await acme.complete({ ref: { type: 'ref/resource', uri: host('everything', 'demo://resource/dynamic/text/{resourceId}') }, argument: { name: 'resourceId', value: '12' } });
    assert.deepEqual(byTemplate.completion.values, ['12']);
  });

  test('two servers with the same URI: both listed, both readable, each its own', async () => {
    const mine = await acme.readResource({ uri: host('fault', SHARED) });
    const theirs = await acme.readResource({ uri: host('everything', SHARED) });
    assert.equal(textOf(mine.contents[0]), 'the fault server has a features.md too');
    assert.notEqual(textOf(theirs.contents[0]), textOf(mine.contents[0]));
    assert.equal(theirs.contents[0].uri, host('everything', SHARED));
  });

  test('contents pass through the scrubbing of the secrets a server was given', async () => {
    const read = await acme.readResource({ uri: host('fault', 'fault://secret') });
    assert.equal(textOf(read.contents[0]), 'the token is [redacted]');
  });

  test('a read over the size cap is refused with the sizes', async () => {
    const err = await rpcError(acme.readResource({ uri: host('fault', 'fault://big') }));
    assert.equal(err.code, -32004);
    assert.match(err.message, /65536 bytes, over the host's limit of 32768 bytes/);
  });

  test('tool search and the MCP search mode find the resources and prompts the caller sees, and only those', async () => {
    const search = (key: string, q: string) => request(server.url, `/tool-search?q=${encodeURIComponent(q)}`, { token: key }).then((r) => r.json());
    const found = await search('ka', 'team department promote');
    assert.equal(found.items[0].kind, 'prompt');
    assert.equal(found.items[0].id, 'everything.completable-prompt');
    const docs = await search('ka', 'features');
    assert.deepEqual(docs.items.map((i: { id: string }) => i.id).sort(), [host('everything', SHARED), host('fault', SHARED)]);
    assert.equal((await search('kg', 'features')).items, undefined, 'globex sees no resources, so none are found');
    assert.deepEqual((await search('ki', 'features')).items, undefined);
    assert.deepEqual((await search('ki', 'architecture')).items.map((i: { id: string }) => i.id), [host('everything', 'demo://resource/static/document/architecture.md')]);
    const agent = await connect(server.url, 'ka', { path: '/mcp?mode=search' });
    try {
      const answer = await agent.callTool({ name: 'search_tools', arguments: { query: 'dynamic blob resource' } });
      const items = (answer.structuredContent as { items: { kind: string; id: string }[] }).items;
      assert.equal(items[0].kind, 'template');
      assert.equal(items[0].id, host('everything', 'demo://resource/dynamic/blob/{resourceId}'));
    } finally {
      await agent.close();
    }
  });

  test('a tenant without rules sees nothing and is offered nothing', async () => {
    const globex = await connect(server.url, 'kg');
    try {
      const caps = globex.getServerCapabilities();
      assert.equal(caps?.resources, undefined);
      assert.equal(caps?.prompts, undefined);
      assert.equal(caps?.completions, undefined);
      assert.equal((await rpcError(globex.listResources())).code, -32601);
      assert.equal((await rpcError(globex.readResource({ uri: host('everything', SHARED) }))).code, -32601);
      assert.equal((await rpcError(globex.listPrompts())).code, -32601);
    } finally {
      await globex.close();
    }
  });

  test('an invisible item and an unknown one get one identical error', async () => {
    const initech = await connect(server.url, 'ki');
    try {
      const listed = (await initech.listResources()).resources.map((r) => r.uri);
      assert.deepEqual(listed, [host('everything', 'demo://resource/static/document/architecture.md')]);
      assert.deepEqual((await initech.listResourceTemplates()).resourceTemplates, []);
      const invisible = await rpcError(initech.readResource({ uri: host('everything', SHARED) }));
      const unknown = await rpcError(initech.readResource({ uri: host('everything', 'demo://resource/static/document/nothing.md') }));
      const otherServer = await rpcError(initech.readResource({ uri: host('fault', 'fault://pid') }));
      const notOurs = await rpcError(initech.readResource({ uri: 'file:///etc/passwd' }));
      const viaTemplate = await rpcError(initech.readResource({ uri: host('everything', 'demo://resource/dynamic/text/1') }));
      for (const e of [unknown, otherServer, notOurs, viaTemplate]) assert.deepEqual(e, invisible);
      assert.equal(invisible.code, -32002);
      // A URI the rules allow that no listed resource or visible template has: the same answer.
      assert.deepEqual(await rpcError(acme.readResource({ uri: host('everything', 'demo://resource/static/document/nothing.md') })), invisible);
      const hidden = await rpcError(initech.getPrompt({ name: 'everything.args-prompt', arguments: { city: 'x' } }));
      assert.deepEqual(await rpcError(initech.getPrompt({ name: 'everything.no-such-prompt' })), hidden);
      assert.deepEqual((await initech.listPrompts()).prompts.map((p) => p.name), ['everything.simple-prompt']);
      const completion = await initech.complete({ ref: { type: 'ref/prompt', name: 'everything.completable-prompt' }, argument: { name: 'department', value: 'S' } }).catch(() => undefined);
      assert.deepEqual(completion?.completion.values ?? [], []);
    } finally {
      await initech.close();
    }
  });

  test('a subscription update reaches exactly the session that subscribed', async () => {
    const other = await connect(server.url, 'ka');
    const doc = (name: string) => host('everything', `demo://resource/static/document/${name}.md`);
    const [a, b, last] = [doc('architecture'), doc('startup'), doc('extension')];
    const got: Record<string, string[]> = { acme: [], other: [] };
    let seen: () => void = () => {};
    // The upstream sends its updates in the order of subscription; each session's stream keeps that order, so `last` arriving at both means all did.
    const done = new Promise<void>((resolve) => (seen = () => got.acme.includes(last) && got.other.includes(last) && resolve()));
    acme.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => void (got.acme.push(n.params.uri), seen()));
    other.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => void (got.other.push(n.params.uri), seen()));
    try {
      await acme.subscribeResource({ uri: a });
      await other.subscribeResource({ uri: b });
      await acme.subscribeResource({ uri: last });
      await other.subscribeResource({ uri: last });
      assert.equal((await rpcError(other.subscribeResource({ uri: host('everything', 'demo://nothing') }))).code, -32002);
      // The everything server sends updates of the URIs its client subscribed to once this tool is called.
      await acme.callTool({ name: 'mcp:everything.toggle-subscriber-updates', arguments: {} });
      await done;
      assert.deepEqual(got, { acme: [a, last], other: [b, last] });
      await acme.callTool({ name: 'mcp:everything.toggle-subscriber-updates', arguments: {} });
      await acme.unsubscribeResource({ uri: a });
    } finally {
      await other.close();
    }
  });

  test('a server\'s list_changed reaches a session that sees the change, with the new item listed', async () => {
    const changed = new Promise<void>((resolve) => acme.setNotificationHandler(ResourceListChangedNotificationSchema, () => resolve()));
    await acme.readResource({ uri: host('fault', 'fault://add') });
    await changed;
    const listed = await all<Resource>((cursor) => acme.listResources({ cursor }), 'resources');
    assert.ok(listed.items.some((r) => r.uri === host('fault', 'fault://added')));
  });

  test('every read and get is recorded content-free, counted, and the log holds no contents', async () => {
    const events = await server.running.host.events!.readAfterSerialized('acme', -1, 10_000);
    const items = events.filter((e) => e.type === 'mcp.resource.read' || e.type === 'mcp.prompt.get').map((e) => JSON.parse(e.json));
    const big = items.find((e) => e.payload.itemId === 'mcp:fault:fault://big');
    assert.deepEqual(Object.keys(big.payload).sort(), ['bytes', 'durationMs', 'itemId', 'sessionId', 'status']);
    assert.equal(big.payload.status, 'refused');
    assert.equal(big.principal, 'acme-1');
    const shared = items.find((e) => e.payload.itemId === `mcp:fault:${SHARED}`);
    assert.equal(shared.payload.bytes, Buffer.byteLength('the fault server has a features.md too'));
    assert.ok(items.some((e) => e.type === 'mcp.prompt.get' && e.payload.itemId === 'mcp:everything.args-prompt' && e.payload.status === 'ok'));
    const all = events.map((e) => e.json).join('\n');
    assert.ok(!all.includes('features.md too') && !all.includes(SECRET));
    const initech = await server.running.host.events!.readAfterSerialized('initech', -1, 10_000);
    assert.ok(initech.some((e) => e.type === 'mcp.resource.read' && JSON.parse(e.json).payload.itemId === '(unknown)'));
    const span = spans.getFinishedSpans().find((s) => s.name === 'resources/read' && s.attributes['toolhost.item_id'] === 'mcp:fault:fault://big');
    assert.deepEqual(span?.attributes, { 'toolhost.tenant': 'acme', 'toolhost.item_id': 'mcp:fault:fault://big', 'toolhost.source': 'mcp:fault', 'toolhost.outcome': 'refused', 'toolhost.bytes': 0 });
    assert.ok(spans.getFinishedSpans().some((s) => s.name === 'prompts/get' && s.attributes['toolhost.outcome'] === 'ok'));
    const metrics = (await request(server.url, '/metrics')).text;
    assert.match(metrics, /toolhost_mcp_item_requests_total\{kind="resource",source="mcp:fault",outcome="refused"\} 1/);
    assert.match(metrics, /toolhost_mcp_item_requests_total\{kind="prompt",source="mcp:everything",outcome="ok"\} \d+/);
  });

  test('an upstream killed mid-read: the read fails clearly, the last good lists stay', async () => {
    const pid = Number(textOf((await acme.readResource({ uri: host('fault', 'fault://pid') })).contents[0]));
    const hanging = rpcError(acme.readResource({ uri: host('fault', 'fault://hang') }));
    // The fault server says on stderr that it holds the read; the host logs its stderr lines.
    await until(() => server.logs.some((l) => l.includes('holding fault://hang')));
    process.kill(pid, 'SIGKILL');
    const err = await hanging;
    assert.equal(err.code, -32603);
    assert.match(err.message, /mcp server fault closed the connection|not connected/);
    const listed = await all<Resource>((cursor) => acme.listResources({ cursor }), 'resources');
    assert.ok(listed.items.some((r) => r.uri === host('fault', 'fault://big')), 'the last good list is still served');
    assert.equal((await rpcError(acme.readResource({ uri: host('fault', 'fault://pid') }))).code, -32603);
  });
});

async function until(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((r) => setTimeout(r, 10));
}
