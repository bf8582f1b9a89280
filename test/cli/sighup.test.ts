// `toolhost serve` reloads its config on SIGHUP (docs/config.md "Changing a
// running host"): the built command, its file watch turned off, sees an edit
// only once it is sent the signal.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { test } from 'node:test';
import { hashApiKey } from '../../src/auth/api-keys.js';
import { waitFor } from '../events/helpers.js';
import { tempDir, writeConfig } from '../helpers/server.js';

const ROOT = new URL('../../', import.meta.url).pathname;
const BIN = join(ROOT, 'bin/toolhost.js');
const KEY = 'sighup-test-key';

const configOf = (tools: string[]) => ({
  server: { watchConfig: false },
  tenants: { acme: { tools } },
  principals: [{ id: 'agent', tenant: 'acme', keyHash: hashApiKey(KEY) }],
  sources: { nodePacks: [{ path: join(ROOT, 'examples/demo/packs/text') }] },
});

test('SIGHUP applies an edit the file watch was told not to see', async () => {
  const dir = tempDir('toolhost-sighup-');
  const file = writeConfig(configOf(['openwop:text.uppercase']), dir);
  const child = spawn(process.execPath, [BIN, 'serve', '--config', file, '--host', '127.0.0.1', '--port', '0', '--log-format', 'json'], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (c: Buffer) => (output += c.toString()));
  try {
    await waitFor(() => /listening on http/.test(output), 20_000, 'the host listening');
    const base = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(output)![1];
    const count = async () => ((await (await fetch(`${base}/tools`, { headers: { authorization: `Bearer ${KEY}` } })).json()) as unknown[]).length;
    assert.equal(await count(), 1);
    writeConfig(configOf(['openwop:text.*']), dir);
    // The watch is off: the signal is what applies the edit.
    child.kill('SIGHUP');
    await waitFor(() => output.includes('"msg":"config reloaded"'), 10_000, 'the reload after SIGHUP');
    assert.ok((await count()) > 1);
    assert.match(output, /"reason":"SIGHUP"/);
  } finally {
    child.kill('SIGTERM');
    await once(child, 'exit');
  }
});
