// Black-box tests of the catalog endpoints against the demo config (seed
// "The catalog", "The descriptor"; CONTRACT.md endpoint, auth and error rows).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ACME_KEY, demoConfig, GLOBEX_KEY, request, startTestServer, type HttpResult, type TestServer } from '../helpers/server.js';
import { errorsOf, validateCapabilitiesV2, validateCompactV1, validateV1, validateV2 } from '../helpers/schemas.js';

let server: TestServer;
before(async () => {
  server = await startTestServer(demoConfig());
});
after(async () => server.close());

const get = (path: string, token?: string, headers?: Record<string, string>) => request(server.url, path, { token, headers });

function assertEnvelope(res: HttpResult, status: number, code: string): Record<string, unknown> {
  assert.equal(res.status, status, res.text);
  assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
  const body = res.json();
  assert.equal(body.error, code);
  assert.equal(typeof body.message, 'string');
  assert.ok(body.message.length > 0);
  assert.deepEqual(Object.keys(body).filter((k) => !['error', 'message', 'details'].includes(k)), []);
  assert.doesNotMatch(res.text, /\bat .*\.(ts|js):\d+/, 'stack trace in body');
  return body;
}

const byteOrder = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

describe('GET /tools', () => {
  test('is a bare array sorted by toolId, every descriptor valid v2 and (minus annotations) v1', async () => {
    const res = await get('/tools', ACME_KEY);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('openwop-version'), '2.0');
    const list = res.json();
    assert.ok(Array.isArray(list));
    assert.ok(list.length >= 8);
    const ids = list.map((d: { toolId: string }) => d.toolId);
    assert.deepEqual(ids, [...ids].sort(byteOrder));
    assert.equal(new Set(ids).size, ids.length, 'toolIds unique');
    for (const d of list) {
      assert.ok(validateV2(d), `${d.toolId}: ${errorsOf(validateV2)}`);
      const { annotations: _a, ...v1 } = d;
      assert.ok(validateV1(v1), `${d.toolId}: ${errorsOf(validateV1)}`);
      assert.ok(d.annotations, `${d.toolId} has annotations`);
    }
    const tiers = new Set(list.map((d: { safetyTier: string }) => d.safetyTier));
    assert.deepEqual([...tiers].sort(), ['exec', 'pure', 'read', 'write']);
  });

  test('an unchanged catalog reads identically, with a strong ETag and 304 revalidation', async () => {
    const a = await get('/tools', ACME_KEY);
    const b = await get('/tools', ACME_KEY);
    assert.equal(a.text, b.text);
    const etag = a.headers.get('etag');
    assert.match(etag ?? '', /^"[^"]+"$/);
    const c = await get('/tools', ACME_KEY, { 'if-none-match': etag! });
    assert.equal(c.status, 304);
    assert.equal(c.text, '');
    const d = await get('/tools', ACME_KEY, { 'if-none-match': '"something-else"' });
    assert.equal(d.status, 200);
  });

  test('each tenant sees only its tools; globex sees fewer than acme', async () => {
    const acme = (await get('/tools', ACME_KEY)).json().map((d: { toolId: string }) => d.toolId);
    const globex = (await get('/tools', GLOBEX_KEY)).json().map((d: { toolId: string }) => d.toolId);
    assert.ok(globex.length < acme.length);
    for (const id of globex) assert.ok(acme.includes(id));
    assert.ok(!globex.includes('openwop:notes.save'));
    assert.ok(!globex.includes('x-host-acme-run-command'));
    // A workflow whose step the caller cannot see is invisible too (not a way around the allowlist).
    assert.ok(acme.includes('workflow:shout-and-save'));
    assert.ok(!globex.includes('workflow:shout-and-save'));
    assert.ok(globex.includes('workflow:count-words'));
  });

  test('gzip and br are served when accepted, and decode to the same bytes', async () => {
    const plain = await get('/tools', ACME_KEY, { 'accept-encoding': 'identity' });
    assert.equal(plain.headers.get('content-encoding'), null);
    for (const enc of ['gzip', 'br']) {
      const res = await fetch(`${server.url}/tools`, { headers: { authorization: `Bearer ${ACME_KEY}`, 'accept-encoding': enc } });
      assert.equal(res.headers.get('content-encoding'), enc);
      assert.equal(await res.text(), plain.text); // fetch decodes
      assert.notEqual(res.headers.get('etag'), plain.headers.get('etag'));
    }
  });

  test('HEAD answers like GET without a body', async () => {
    const res = await request(server.url, '/tools', { token: ACME_KEY, method: 'HEAD' });
    assert.equal(res.status, 200);
    assert.equal(res.text, '');
  });
});

describe('GET /tools/{toolId}', () => {
  test('returns the same descriptor as the list, for a percent-encoded id', async () => {
    const list = (await get('/tools', ACME_KEY)).json();
    for (const d of list) {
      const res = await get(`/tools/${encodeURIComponent(d.toolId)}`, ACME_KEY);
      assert.equal(res.status, 200, d.toolId);
      assert.deepEqual(res.json(), d);
    }
    const raw = await get('/tools/openwop:text.uppercase', ACME_KEY);
    assert.equal(raw.status, 200);
    assert.equal(raw.json().toolId, 'openwop:text.uppercase');
  });

  test('unknown and unauthorized ids give byte-identical 404s with the same headers', async () => {
    const unknown = await get(`/tools/${encodeURIComponent('openwop:no.such.tool')}`, GLOBEX_KEY);
    const invisible = await get(`/tools/${encodeURIComponent('openwop:notes.save')}`, GLOBEX_KEY);
    const invisibleWf = await get(`/tools/${encodeURIComponent('workflow:shout-and-save')}`, GLOBEX_KEY);
    const garbage = await get('/tools/not%20an%20id', GLOBEX_KEY);
    for (const r of [unknown, invisible, invisibleWf, garbage]) {
      assertEnvelope(r, 404, 'not_found');
      assert.equal(r.text, unknown.text);
      assert.doesNotMatch(r.text, /scope/i);
      const strip = (h: Headers) => [...h.entries()].filter(([k]) => !['date', 'content-length'].includes(k));
      assert.deepEqual(strip(r.headers), strip(unknown.headers));
    }
    // The same id is there for acme: the 404 did not come from a broken route.
    assert.equal((await get(`/tools/${encodeURIComponent('openwop:notes.save')}`, ACME_KEY)).status, 200);
  });

  test('a malformed percent-encoding is a 400 envelope, not a crash', async () => {
    assertEnvelope(await get('/tools/%E0%A4%A', ACME_KEY), 400, 'validation_error');
  });
});

describe('views', () => {
  test('any view but exactly "compact" gives the standard view with 200', async () => {
    const standard = (await get('/tools', ACME_KEY)).text;
    for (const q of ['?view=standard', '?view=COMPACT', '?view=foo', '?view=compact&view=compact', '?view=', '?views=compact']) {
      const res = await get(`/tools${q}`, ACME_KEY);
      assert.equal(res.status, 200, q);
      assert.equal(res.text, standard, q);
    }
    const one = await get('/tools/openwop%3Atext.uppercase?view=foo', ACME_KEY);
    assert.equal(one.json().annotations.readOnlyHint, true);
  });

  test('?view=compact gives { tools } with the standard view\'s toolId set, for each caller', async () => {
    for (const key of [ACME_KEY, GLOBEX_KEY]) {
      const standard = (await get('/tools', key)).json().map((d: { toolId: string }) => d.toolId);
      const compact = (await get('/tools?view=compact', key)).json();
      assert.deepEqual(Object.keys(compact), ['tools']);
      assert.deepEqual(compact.tools.map((d: { toolId: string }) => d.toolId), standard);
      for (const d of compact.tools) {
        assert.ok(validateCompactV1(d), `${d.toolId}: ${errorsOf(validateCompactV1)}`);
        const one = await get(`/tools/${encodeURIComponent(d.toolId)}?view=compact`, key);
        assert.deepEqual(one.json(), d);
      }
    }
    const hidden = await get(`/tools/${encodeURIComponent('openwop:notes.save')}?view=compact`, GLOBEX_KEY);
    assertEnvelope(hidden, 404, 'not_found');
  });
});

describe('authentication', () => {
  test('missing credential: 401 with WWW-Authenticate: Bearer', async () => {
    for (const path of ['/tools', '/tools/openwop%3Atext.uppercase', '/tools?view=compact']) {
      const res = await get(path);
      assertEnvelope(res, 401, 'unauthenticated');
      assert.match(res.headers.get('www-authenticate') ?? '', /^Bearer/);
    }
  });

  test('unknown or malformed credential: 401 invalid_token, credential not echoed', async () => {
    const res = await get('/tools', 'wrong-key-123');
    assertEnvelope(res, 401, 'unauthenticated');
    assert.match(res.headers.get('www-authenticate') ?? '', /error="invalid_token"/);
    assert.doesNotMatch(res.text, /wrong-key-123/);
    const basic = await get('/tools', undefined, { authorization: 'Basic YWJjOmRlZg==' });
    assertEnvelope(basic, 401, 'unauthenticated');
    assert.match(basic.headers.get('www-authenticate') ?? '', /^Bearer/);
  });
});

describe('methods, versions and errors', () => {
  test('other methods on the catalog endpoints: 405 with Allow', async () => {
    for (const method of ['POST', 'PUT', 'DELETE', 'PATCH']) {
      for (const path of ['/tools', '/tools/openwop%3Atext.uppercase']) {
        const res = await request(server.url, path, { method, token: ACME_KEY });
        assertEnvelope(res, 405, 'toolhost.method_not_allowed');
        assert.equal(res.headers.get('allow'), 'GET, HEAD');
        assert.equal(res.headers.get('openwop-version'), '2.0');
      }
    }
  });

  test('an unserved OpenWOP-Version major: 406 with details.protocolVersions', async () => {
    for (const v of ['1.0', '3', 'banana']) {
      const res = await get('/tools', ACME_KEY, { 'openwop-version': v });
      const body = assertEnvelope(res, 406, 'protocol_version_unsupported');
      assert.deepEqual((body.details as { protocolVersions: string[] }).protocolVersions, ['2.0']);
    }
    for (const v of ['2', '2.0', '2.1']) assert.equal((await get('/tools', ACME_KEY, { 'openwop-version': v })).status, 200, v);
    // Every kind of route refuses it before anything else: the catalog's (gate inline), the others (gate hook), unknown ones.
    for (const [path, method] of [['/tools/openwop%3Atext.uppercase', 'GET'], ['/tools', 'HEAD'], ['/tools', 'POST'], ['/healthz', 'GET'], ['/.well-known/openwop', 'GET'], ['/nope', 'GET']]) {
      const res = await request(server.url, path, { method, token: ACME_KEY, headers: { 'openwop-version': '3.0' } });
      assert.equal(res.status, 406, `${method} ${path}`);
      assert.equal(res.headers.get('openwop-version'), '2.0');
    }
    // Without a credential too: the version is checked before authentication.
    assert.equal((await get('/tools', undefined, { 'openwop-version': '3.0' })).status, 406);
  });

  test('every response carries OpenWOP-Version: 2.0, including errors and unknown routes', async () => {
    for (const r of [await get('/nope'), await get('/tools'), await get('/healthz'), await get('/.well-known/openwop')]) {
      assert.equal(r.headers.get('openwop-version'), '2.0');
    }
    assertEnvelope(await get('/nope'), 404, 'not_found');
  });
});

describe('discovery and health', () => {
  test('GET /.well-known/openwop: v2 record listing only the projected sources, ETag and 304', async () => {
    const res = await get('/.well-known/openwop');
    assert.equal(res.status, 200);
    const doc = res.json();
    assert.ok(validateCapabilitiesV2(doc), errorsOf(validateCapabilitiesV2));
    assert.deepEqual(doc.protocolVersions, ['2.0']);
    assert.equal(doc.preferredVersion, '2.0');
    assert.equal(doc.implementation.name, 'toolhost');
    const tc = doc.toolCatalog;
    // v2 declares toolCatalog experimental: the record claims no more, and says until when.
    assert.equal(tc.status, 'experimental');
    assert.equal(tc.since, '2.0');
    const until = /^(\d+)\.(\d+)$/.exec(tc.until);
    if (until !== null) assert.ok(Number(until[1]) > 2 || (Number(until[1]) === 2 && Number(until[2]) > 0), `until ${tc.until} is not after 2.0`);
    else assert.ok(/^\d{4}-\d{2}-\d{2}$/.test(tc.until) && tc.until >= new Date().toISOString().slice(0, 10), `until ${tc.until} is in the past`);
    assert.equal(tc.compactView, true);
    assert.equal('supported' in tc, false);
    const list = (await get('/tools', ACME_KEY)).json();
    assert.deepEqual([...tc.sources].sort(), [...new Set(list.map((d: { source: string }) => d.source))].sort());
    const etag = res.headers.get('etag')!;
    assert.equal((await get('/.well-known/openwop', undefined, { 'if-none-match': etag })).status, 304);
  });

  test('healthz and readyz answer with per-source state', async () => {
    assert.equal((await get('/healthz')).status, 200);
    const ready = await get('/readyz');
    assert.equal(ready.status, 200);
    const body = ready.json();
    assert.equal(body.status, 'ready');
    assert.ok(body.sources.every((s: { state: string }) => s.state === 'connected'));
  });
});

describe('the demo\'s MCP resources and prompts', () => {
  test('acme is offered the everything server\'s resources, templates and prompts; globex none', async () => {
    const { Client } = await import('@modelcontextprotocol/sdk/client/index.js');
    const { StreamableHTTPClientTransport } = await import('@modelcontextprotocol/sdk/client/streamableHttp.js');
    const open = async (key: string) => {
      const client = new Client({ name: 'demo', version: '1' });
      await client.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${key}` } } }));
      return client;
    };
    const [acme, globex] = await Promise.all([open(ACME_KEY), open(GLOBEX_KEY)]);
    try {
      const resources = (await acme.listResources()).resources;
      assert.ok(resources.length > 0 && resources.every((r) => r.uri.startsWith('toolhost-mcp://everything/')));
      assert.ok((await acme.listResourceTemplates()).resourceTemplates.length > 0);
      assert.ok((await acme.listPrompts()).prompts.some((p) => p.name === 'everything.simple-prompt'));
      const caps = globex.getServerCapabilities();
      assert.deepEqual([caps?.resources, caps?.prompts, caps?.completions], [undefined, undefined, undefined]);
    } finally {
      await Promise.all([acme.close(), globex.close()]);
    }
  });
});
