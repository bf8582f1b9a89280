// The admin API (docs/admin.md) on one real host: who reaches it (and that
// everyone else gets the unknown route's very answer), every verb on tenants,
// MCP sources and policy rules, 400/404/412/428, dryRun, masked secrets and
// the audit trail.
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parse } from 'yaml';
import { hashApiKey } from '../../src/auth/api-keys.js';
import { runConfigExport } from '../../src/cli/export-command.js';
import { startTestServer, tempDir, writeConfig, type TestServer } from '../helpers/server.js';

const root = new URL('../../', import.meta.url).pathname;
const EVERYTHING = join(root, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');
const SECRET = 'literal-secret-value-3e9d1c';

const dir = tempDir();
mkdirSync(join(dir, 'pack'));
writeFileSync(join(dir, 'pack', 'toolpack.yaml'), 'pack: t\nhandlers: ./h.mjs\ntools:\n  - typeId: t.upper\n    inputSchema: { type: object, properties: {} }\n  - typeId: t.lower\n    inputSchema: { type: object, properties: {} }\n');
writeFileSync(join(dir, 'pack', 'h.mjs'), "export const handlers = { 't.upper': () => ({}), 't.lower': () => ({}) };\n");
const configFile = writeConfig(
  {
    tenants: { a: { tools: ['*'] }, b: { tools: ['openwop:t.upper'] } },
    principals: [
      { id: 'pa', tenant: 'a', keyHash: hashApiKey('ka') },
      { id: 'pb-admin', tenant: 'b', keyHash: hashApiKey('kb'), scopes: ['toolhost:admin'] },
    ],
    admin: { keys: [{ id: 'ops', keyHash: hashApiKey('adm') }] },
    policy: { rules: [{ match: 'openwop:t.*', safetyTier: 'pure' }] },
    events: { file: 'events.sqlite' },
    sources: { nodePacks: [{ path: 'pack' }] },
  },
  dir,
);

interface Answer {
  status: number;
  headers: Headers;
  text: string;
  json(): any;
}

async function call(server: TestServer, method: string, path: string, init: { token?: string; body?: unknown; headers?: Record<string, string> } = {}): Promise<Answer> {
  const headers: Record<string, string> = { ...(init.headers ?? {}) };
  if (init.token !== undefined) headers.authorization = `Bearer ${init.token}`;
  if (init.body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(server.url + path, { method, headers, body: init.body === undefined ? undefined : JSON.stringify(init.body) });
  const text = await res.text();
  return { status: res.status, headers: res.headers, text, json: () => JSON.parse(text) };
}

const toolIds = async (server: TestServer, token: string) => ((await call(server, 'GET', '/tools', { token })).json() as { toolId: string }[]).map((t) => t.toolId);

describe('admin API', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer(configFile);
  });
  after(() => server.close());

  it('answers a non-admin exactly as an unknown route, and admin keys see no tenant tools', async () => {
    for (const token of ['ka', undefined, 'wrong']) {
      const unknown = await call(server, 'GET', '/admin/v2/nothing', { token });
      for (const [method, path] of [['GET', '/admin/v1/tenants'], ['GET', '/admin/v1/config'], ['DELETE', '/admin/v1/tenants/a'], ['PUT', '/admin/v1/policy/rules']]) {
        const answer = await call(server, method, path, { token, ...(method === 'PUT' ? { body: [] } : {}) });
        assert.equal(answer.status, unknown.status, `${method} ${path} as ${token}`);
        assert.equal(answer.text, unknown.text);
        assert.deepEqual([...answer.headers].filter(([k]) => k !== 'date'), [...unknown.headers].filter(([k]) => k !== 'date'));
      }
    }
    assert.equal((await call(server, 'GET', '/tools', { token: 'adm' })).status, 401);
    assert.equal((await call(server, 'GET', '/admin/v1/tenants', { token: 'adm' })).status, 200);
    // A tenant principal holding the admin scope is an admin and keeps its tenant's tools.
    assert.equal((await call(server, 'GET', '/admin/v1/tenants', { token: 'kb' })).status, 200);
    assert.deepEqual(await toolIds(server, 'kb'), ['openwop:t.upper']);
  });

  it('reads, replaces, creates and deletes tenants under If-Match', async () => {
    const list = (await call(server, 'GET', '/admin/v1/tenants', { token: 'adm' })).json();
    assert.deepEqual(list.items.map((i: { id: string }) => i.id), ['a', 'b']);
    const read = await call(server, 'GET', '/admin/v1/tenants/b', { token: 'adm' });
    assert.deepEqual(read.json(), { tools: ['openwop:t.upper'] });
    const etag = read.headers.get('etag')!;
    const next = { tools: ['openwop:t.*'] };
    assert.equal((await call(server, 'PUT', '/admin/v1/tenants/b', { token: 'adm', body: next })).status, 428);
    assert.equal((await call(server, 'PUT', '/admin/v1/tenants/b', { token: 'adm', body: next, headers: { 'if-match': '"stale"' } })).status, 412);
    const bad = await call(server, 'PUT', '/admin/v1/tenants/b', { token: 'adm', body: { tools: [7], extra: true }, headers: { 'if-match': etag } });
    assert.equal(bad.status, 400);
    assert.equal(bad.json().error, 'validation_error');
    const pointers = bad.json().details.problems.map((p: { pointer: string; in: string }) => `${p.in}:${p.pointer}`).sort();
    assert.deepEqual(pointers, ['body:/extra', 'body:/tools/0']);
    assert.deepEqual(await toolIds(server, 'kb'), ['openwop:t.upper'], 'a refused change changes nothing');

    const replaced = await call(server, 'PUT', '/admin/v1/tenants/b', { token: 'adm', body: next, headers: { 'if-match': etag } });
    assert.equal(replaced.status, 200);
    assert.notEqual(replaced.headers.get('etag'), etag);
    assert.deepEqual(await toolIds(server, 'kb'), ['openwop:t.lower', 'openwop:t.upper']);
    assert.equal((await call(server, 'PUT', '/admin/v1/tenants/b', { token: 'adm', body: next, headers: { 'if-match': etag } })).status, 412, 'the old ETag is stale now');

    const created = await call(server, 'PUT', '/admin/v1/tenants/c', { token: 'adm', body: { tools: [] }, headers: { 'if-none-match': '*' } });
    assert.equal(created.status, 201);
    assert.equal((await call(server, 'PUT', '/admin/v1/tenants/c', { token: 'adm', body: { tools: [] }, headers: { 'if-none-match': '*' } })).status, 412);
    const gone = await call(server, 'DELETE', '/admin/v1/tenants/c', { token: 'adm', headers: { 'if-match': created.headers.get('etag')! } });
    assert.equal(gone.status, 204);
    assert.equal((await call(server, 'GET', '/admin/v1/tenants/c', { token: 'adm' })).status, 404);
    // A tenant a principal still names cannot go: the problem points into the config.
    const aEtag = (await call(server, 'GET', '/admin/v1/tenants/a', { token: 'adm' })).headers.get('etag')!;
    const refused = await call(server, 'DELETE', '/admin/v1/tenants/a', { token: 'adm', headers: { 'if-match': aEtag } });
    assert.equal(refused.status, 400);
    assert.deepEqual(refused.json().details.problems.map((p: { pointer: string; in: string }) => `${p.in}:${p.pointer}`), ['config:/principals/0/tenant']);
  });

  it('previews and applies an MCP source; its literal env value is never echoed', async () => {
    const entry = { id: 'everything', transport: 'stdio', command: process.execPath, args: [EVERYTHING, 'stdio'], env: { API_TOKEN: SECRET, HOME_DIR: '${HOME}' } };
    const dry = await call(server, 'POST', '/admin/v1/sources/mcp?dryRun=true', { token: 'adm', body: entry });
    assert.equal(dry.status, 200);
    const added = dry.json().changes.a.added as string[];
    assert.ok(added.includes('mcp:everything.echo'), added.join());
    assert.equal(dry.json().changes.b, undefined, 'tenant b sees none of it');
    assert.equal((await call(server, 'GET', '/admin/v1/sources/mcp/everything', { token: 'adm' })).status, 404, 'a dry run applies nothing');

    const created = await call(server, 'POST', '/admin/v1/sources/mcp', { token: 'adm', body: entry });
    assert.equal(created.status, 201);
    assert.ok((await toolIds(server, 'ka')).includes('mcp:everything.echo'));
    const read = await call(server, 'GET', '/admin/v1/sources/mcp/everything', { token: 'adm' });
    assert.deepEqual(read.json().env, { API_TOKEN: '(masked)', HOME_DIR: '${HOME}' });
    // Written back as read, the masked value keeps the secret (the source is not even restarted).
    const running = server.running.host.sources.get('mcp:everything');
    const same = await call(server, 'PUT', '/admin/v1/sources/mcp/everything', { token: 'adm', body: read.json(), headers: { 'if-match': read.headers.get('etag')! } });
    assert.equal(same.status, 200);
    assert.equal(server.running.host.sources.get('mcp:everything'), running);

    const removed = await call(server, 'DELETE', '/admin/v1/sources/mcp/everything', { token: 'adm', headers: { 'if-match': same.headers.get('etag')! } });
    assert.equal(removed.status, 204);
    assert.ok(!(await toolIds(server, 'ka')).some((id) => id.startsWith('mcp:')));

    const texts = [created.text, read.text, same.text, (await call(server, 'GET', '/admin/v1/config', { token: 'adm' })).text, (await call(server, 'GET', '/admin/v1/audit', { token: 'adm' })).text, (await call(server, 'GET', '/metrics')).text, ...server.logs];
    for (const text of texts) assert.ok(!text.includes(SECRET));
  });

  it('changes the policy rules with a dry-run diff; every change is an audit record and a metric', async () => {
    const read = await call(server, 'GET', '/admin/v1/policy/rules', { token: 'adm' });
    const rules = [{ match: 'openwop:t.*', safetyTier: 'read' }];
    const dry = await call(server, 'PUT', '/admin/v1/policy/rules?dryRun=true', { token: 'adm', body: rules, headers: { 'if-match': read.headers.get('etag')! } });
    assert.deepEqual(dry.json().changes.a.reclassified.map((r: { toolId: string; before: string; after: string }) => `${r.toolId} ${r.before}->${r.after}`), [
      'openwop:t.lower pure/never->read/never',
      'openwop:t.upper pure/never->read/never',
    ]);
    const applied = await call(server, 'PUT', '/admin/v1/policy/rules', { token: 'adm', body: rules, headers: { 'if-match': read.headers.get('etag')! } });
    assert.equal(applied.status, 200);
    const tiers = ((await call(server, 'GET', '/tools', { token: 'ka' })).json() as { safetyTier: string }[]).map((t) => t.safetyTier);
    assert.deepEqual(tiers, ['read', 'read']);

    const audit = (await call(server, 'GET', '/admin/v1/audit', { token: 'adm' })).json().records as { who: string; action: string; resource: string; before: string | null; after: string | null }[];
    assert.deepEqual(audit.map((r) => `${r.who} ${r.action} ${r.resource}`), [
      'ops replace /admin/v1/tenants/b',
      'ops create /admin/v1/tenants/c',
      'ops delete /admin/v1/tenants/c',
      'ops create /admin/v1/sources/mcp',
      'ops replace /admin/v1/sources/mcp/everything',
      'ops delete /admin/v1/sources/mcp/everything',
      'ops replace /admin/v1/policy/rules',
    ]);
    assert.match(audit[0].before!, /^sha256:[0-9a-f]{64}$/);
    assert.equal(audit[2].after, null);
    const metrics = (await call(server, 'GET', '/metrics')).text;
    assert.match(metrics, /toolhost_admin_changes_total\{kind="tenants",action="create"\} 1/);
    assert.match(metrics, /toolhost_admin_changes_total\{kind="policy-rules",action="replace"\} 1/);
  });

  it('keeps the changes in the event store: `toolhost config export` prints the file with them over it', async () => {
    const exported = await runConfigExport(configFile);
    const config = parse(exported);
    assert.deepEqual(config.tenants, { a: { tools: ['*'] }, b: { tools: ['openwop:t.*'] } });
    assert.deepEqual(config.policy.rules, [{ match: 'openwop:t.*', safetyTier: 'read' }]);
    assert.deepEqual(config.sources.mcp ?? [], []);
    assert.ok(!exported.includes(SECRET));
  });
});
