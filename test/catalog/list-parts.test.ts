// A refresh that changes a few tools of a large catalog does not join its
// list bodies: they are held as runs of the previous build's entry bytes and
// the changed entries' own bytes (list-body.ts), written to the socket part
// by part and compressed as one stream (body.ts). Over HTTP every answer is
// byte for byte what a catalog built from scratch gives: the identity bytes
// and their Content-Length, the ETags, and the gzip and br bytes (compared
// with zlib's one-shot compression of the joined list at the same settings).
import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { test } from 'node:test';
import { brotliCompressSync, constants as zlibConstants, gzipSync } from 'node:zlib';
import { LARGE_BODY_BYTES } from '../../src/catalog/body.js';
import { appOver, generated, storeOf } from './generated-store.js';

interface Raw {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  bytes: Buffer;
}

/** The answer as sent (no decompression, unlike fetch). */
function get(url: string, headers: Record<string, string>): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, bytes: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

const gzipOf = (b: Buffer) => gzipSync(b, { level: b.length >= LARGE_BODY_BYTES ? 1 : 6 });
const brOf = (b: Buffer) =>
  brotliCompressSync(b, { params: { [zlibConstants.BROTLI_PARAM_QUALITY]: b.length >= LARGE_BODY_BYTES ? 3 : 5, [zlibConstants.BROTLI_PARAM_SIZE_HINT]: b.length } });

test('after a refresh of a few tools, the lists are parts of the previous list, and every answer has the bytes of a fresh build', async () => {
  const key = 'list-parts-key';
  let tools = generated(3000);
  const store = storeOf(() => tools);
  const app = appOver(store, key);
  const caller = { tenant: 't', scopes: new Set<string>() };
  try {
    await app.listen({ host: '127.0.0.1', port: 0 });
    const address = app.server.address();
    assert.ok(address !== null && typeof address === 'object');
    const url = `http://127.0.0.1:${address.port}`;
    const auth = { authorization: `Bearer ${key}` };
    const first = store.initialBuild();
    await first.whenCompacted();
    for (const path of ['/tools', '/tools?view=compact']) {
      for (const encoding of ['identity', 'gzip', 'br']) assert.equal((await get(`${url}${path}`, { ...auth, 'accept-encoding': encoding })).status, 200);
    }

    // Tools at the start, in the middle and at the end change; the rest are the previous list's bytes.
    tools = tools.map((t, i) => (i === 0 || i === 1700 || i === 2999 ? { ...t, description: `changed ${i}` } : t));
    const next = await new Promise<ReturnType<typeof store.current>>((resolve) => {
      const off = store.onSwap((n) => {
        off();
        resolve(n);
      });
      store.scheduleRebuild();
    });
    await next.whenCompacted();
    const fresh = storeOf(() => tools).initialBuild();
    await fresh.whenCompacted();
    for (const [kind, path] of [['standard', '/tools'], ['compact', '/tools?view=compact']] as const) {
      const expected = fresh.viewFor(caller)[kind];
      const body = next.viewFor(caller)[kind];
      assert.equal(body.etag, expected.etag);
      // The runs of the build before (a run per slab of entry bytes, entry-slabs.test.ts); each changed
      // entry splits a run into the run before it, a comma, the entry, a comma and the run after it.
      const before = first.viewFor(caller)[kind].parts.length;
      assert.ok(body.parts.length > 1 && body.parts.length <= before + 4 * 3, `the ${kind} list is ${body.parts.length} parts (${before} before the refresh), not one joined buffer`);
      const bytes = expected.bytes;
      assert.ok(bytes.length >= LARGE_BODY_BYTES, 'large enough to be compressed on the thread pool');
      const answers = {
        identity: await get(`${url}${path}`, { ...auth, 'accept-encoding': 'identity' }),
        gzip: await get(`${url}${path}`, { ...auth, 'accept-encoding': 'gzip' }),
        br: await get(`${url}${path}`, { ...auth, 'accept-encoding': 'br' }),
      };
      assert.ok(answers.identity.bytes.equals(bytes), `${kind}: identity bytes`);
      assert.equal(answers.identity.headers['content-length'], String(bytes.length));
      assert.equal(answers.identity.headers.etag, expected.etag);
      assert.ok(answers.gzip.bytes.equals(gzipOf(bytes)), `${kind}: gzip bytes`);
      assert.equal(answers.gzip.headers['content-length'], String(answers.gzip.bytes.length));
      assert.equal(answers.gzip.headers.etag, expected.tagFor('gzip'));
      assert.ok(answers.br.bytes.equals(brOf(bytes)), `${kind}: br bytes`);
      assert.equal(answers.br.headers.etag, expected.tagFor('br'));
      const revalidated = await get(`${url}${path}`, { ...auth, 'if-none-match': expected.etag });
      assert.equal(revalidated.status, 304);
    }
  } finally {
    await app.close();
  }
});
