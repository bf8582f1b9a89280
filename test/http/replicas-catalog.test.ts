// Replicas behind a load balancer serve one catalog (docs/deploy.md "Redis",
// CONTRACT.md "Endpoints"): two hosts started from the same config with the
// same upstreams answer GET /tools and GET /tools/{toolId} with the same
// bytes (identity, gzip, br), the same ETags, for both views and each demo
// tenant, and a client revalidating at the other replica gets 304. Bytes are
// compared raw, before any decoding.
import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { after, before, test } from 'node:test';
import { readFileSync, writeFileSync } from 'node:fs';
import { parse, stringify } from 'yaml';
import { ACME_KEY, demoConfig, GLOBEX_KEY, startTestServer, type TestServer } from '../helpers/server.js';

interface Raw {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  bytes: Buffer;
}

/** One GET without decoding anything. */
function rawGet(base: string, path: string, headers: Record<string, string>): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(base + path, { headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, bytes: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

/** Headers that describe the representation; `date` and the connection's own are left out. */
function representation(headers: Raw['headers']): Record<string, unknown> {
  const skip = new Set(['date', 'connection', 'keep-alive']);
  return Object.fromEntries(Object.entries(headers).filter(([k]) => !skip.has(k)).sort(([a], [b]) => a.localeCompare(b)));
}

/** The standard list is an array of descriptors, the compact one `{ tools: [...] }`. */
function toolsOf(list: Raw): { toolId: string }[] {
  const body = JSON.parse(list.bytes.toString());
  return Array.isArray(body) ? body : body.tools;
}

let first: TestServer;
let second: TestServer;
/** The demo config without rate limits: the test reads every tool several times over, faster than a caller's limit allows. */
function unlimitedDemoConfig(): string {
  const file = demoConfig();
  const config = parse(readFileSync(file, 'utf8'));
  config.auth = { ...config.auth, defaultRateLimit: false };
  writeFileSync(file, stringify(config));
  return file;
}

before(async () => {
  // Each from its own copy of the demo config (its own event log), as two machines would be.
  [first, second] = await Promise.all([startTestServer(unlimitedDemoConfig()), startTestServer(unlimitedDemoConfig())]);
});
after(async () => {
  await Promise.all([first?.close(), second?.close()]);
});

const TENANTS = [
  ['acme', ACME_KEY],
  ['globex', GLOBEX_KEY],
] as const;
const VIEWS = ['', '?view=compact'];
const ENCODINGS = ['identity', 'gzip', 'br'];

async function sameAtBoth(path: string, token: string, encoding: string): Promise<Raw> {
  const headers = { authorization: `Bearer ${token}`, 'accept-encoding': encoding };
  const [a, b] = await Promise.all([rawGet(first.url, path, headers), rawGet(second.url, path, headers)]);
  assert.equal(a.status, 200, `${path} (${encoding})`);
  assert.equal(b.status, a.status, `${path} (${encoding})`);
  assert.ok(a.bytes.equals(b.bytes), `${path} (${encoding}): byte-identical at both replicas`);
  assert.deepEqual(representation(b.headers), representation(a.headers), `${path} (${encoding}): same headers`);
  assert.ok(typeof a.headers.etag === 'string' && a.headers.etag.length > 0);
  // Revalidating at the other replica with what one replica gave: 304, the same ETag, no body.
  const revalidated = await rawGet(second.url, path, { ...headers, 'if-none-match': a.headers.etag as string });
  assert.equal(revalidated.status, 304, `${path} (${encoding}): 304 at the other replica`);
  assert.equal(revalidated.headers.etag, a.headers.etag);
  assert.equal(revalidated.bytes.length, 0);
  return a;
}

test('two replicas serve byte-identical lists with the same ETags; revalidating at the other gets 304', async () => {
  for (const [tenant, token] of TENANTS) {
    for (const view of VIEWS) {
      for (const encoding of ENCODINGS) {
        const list = await sameAtBoth(`/tools${view}`, token, encoding);
        if (encoding === 'identity') assert.ok(toolsOf(list).length > 0, `${tenant} sees tools`);
      }
    }
  }
});

test('two replicas answer every visible tool by id with the same bytes and ETag, in both views', async () => {
  for (const [tenant, token] of TENANTS) {
    const list = await rawGet(first.url, '/tools', { authorization: `Bearer ${token}`, 'accept-encoding': 'identity' });
    const ids = toolsOf(list).map((t) => t.toolId);
    assert.ok(ids.length > 3, `${tenant}: a few tools at least`);
    for (const id of ids) {
      for (const view of VIEWS) await sameAtBoth(`/tools/${encodeURIComponent(id)}${view}`, token, 'identity');
    }
    await sameAtBoth(`/tools/${encodeURIComponent(ids[0])}`, token, 'gzip');
  }
});
