// A connector whose document finishes loading after the host's start
// deadline is served once it loads, and until then /readyz names it as not
// in the served catalog. The load is held back as on a busy machine: every
// thread of libuv's pool (which runs the connector's file reads) is kept
// waiting on a named pipe until the test opens the pipe's other end, so the
// document cannot be read before the test says so; the start deadline is a
// short timer of the host's own.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { closeSync, openSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { hashApiKey } from '../../src/auth/api-keys.js';
import { request, startTestServer, tempDir, writeConfig, type TestServer } from '../helpers/server.js';
import { patient } from '../helpers/patience.js';

const DOCUMENT = `openapi: 3.0.3
info: { title: late, version: '1' }
servers: [{ url: 'http://127.0.0.1:1' }]
paths:
  /ping:
    get:
      operationId: ping
      responses: { '200': { description: ok } }
`;

let server: TestServer;
let pipes: string[] = [];
let held: Promise<unknown>[] = [];

before(async () => {
  const dir = tempDir();
  writeFileSync(join(dir, 'late.yaml'), DOCUMENT);
  const threads = Number(process.env.UV_THREADPOOL_SIZE ?? 4);
  pipes = Array.from({ length: threads }, (_, i) => join(dir, `hold-${i}`));
  for (const p of pipes) execFileSync('mkfifo', [p]);
  // Each open of a pipe without a writer blocks one pool thread until the test opens the writing end.
  held = pipes.map((p) => readFile(p));
  const file = writeConfig(
    {
      tenants: { t: { tools: ['*'] } },
      principals: [{ id: 'p', tenant: 't', keyHash: hashApiKey('k') }],
      sources: { connectors: [{ id: 'late', document: 'late.yaml', watch: false }] },
    },
    dir,
  );
  server = await startTestServer(file, { startDeadlineMs: 200 });
});

after(async () => {
  release();
  await Promise.all(held);
  await server?.close();
});

function release(): void {
  for (const p of pipes.splice(0)) closeSync(openSync(p, 'w'));
}

async function until<T>(what: string, probe: () => Promise<T | undefined>, ms = 15_000): Promise<T> {
  const end = Date.now() + patient(ms);
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > end) assert.fail(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

const toolIds = async () => ((await request(server.url, '/tools', { token: 'k' })).json() as Array<{ toolId: string }>).map((d) => d.toolId);

test('a connector loaded after the start deadline is served, and /readyz names it until then', async () => {
  const early = (await request(server.url, '/readyz')).json();
  assert.deepEqual(early.notServed, ['connector:late']);
  assert.equal(early.status, 'degraded');
  assert.deepEqual(await toolIds(), []);

  release();
  await until('the late connector served', async () => ((await toolIds()).includes('connector:late.ping') ? true : undefined));
  const ready = (await request(server.url, '/readyz')).json();
  assert.deepEqual(ready.notServed, []);
  assert.equal(ready.status, 'ready');
});
