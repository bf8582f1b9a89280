// `auth.keysFile` (docs/auth.md "Key file"): API keys added, revoked, removed
// and expired while the host runs, through plain writes and atomic renames;
// a broken edit keeps the last good keys and logs where it is broken; a broken
// file at start stops the host.
import assert from 'node:assert/strict';
import { renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { stringify } from 'yaml';
import { hashApiKey } from '../../src/auth/api-keys.js';
import { request, startTestServer, tempDir, writeConfig } from '../helpers/server.js';
import { eventually } from './jwt-fixture.js';

type Entry = { id: string; tenant: string; keyHash: string; scopes?: string[]; expiresAt?: string; revoked?: boolean };
const entry = (id: string, key: string, extra: Partial<Entry> = {}): Entry => ({ id, tenant: 'acme', keyHash: hashApiKey(key), ...extra });

function setUp(initial: Entry[]) {
  const dir = tempDir();
  const keysFile = join(dir, 'keys.yaml');
  writeFileSync(keysFile, stringify({ principals: initial }));
  const configFile = writeConfig(
    {
      auth: { keysFile: 'keys.yaml', defaultRateLimit: false },
      tenants: { acme: { tools: ['*'] }, globex: { tools: ['*'] } },
      principals: [{ id: 'inline', tenant: 'globex', keyHash: hashApiKey('inline-key') }],
      sources: { hostExtensions: [{ vendor: 'a', name: 'one', command: ['true'] }] },
    },
    dir,
  );
  let n = 0;
  return {
    dir,
    keysFile,
    configFile,
    /** Replaces the file atomically (write a sibling, rename over). */
    replace(entries: Entry[]): void {
      const tmp = join(dir, `.keys.yaml.${++n}.tmp`);
      writeFileSync(tmp, stringify({ principals: entries }));
      renameSync(tmp, keysFile);
    },
  };
}

const status = async (url: string, token: string) => (await request(url, '/tools', { token })).status;

test('keys are added, revoked, removed and expired without a restart', async () => {
  const env = setUp([entry('one', 'key-1')]);
  const server = await startTestServer(env.configFile);
  try {
    const url = server.url;
    assert.equal(await status(url, 'key-1'), 200);
    assert.equal(await status(url, 'key-2'), 401);
    assert.equal(await status(url, 'inline-key'), 200);

    // Add (plain in-place write).
    writeFileSync(env.keysFile, stringify({ principals: [entry('one', 'key-1'), entry('two', 'key-2')] }));
    assert.ok(await eventually(async () => (await status(url, 'key-2')) === 200), 'added key accepted');
    assert.ok(server.logs.some((l) => l.includes('API keys reloaded from keys file')));

    // Revoke with `revoked: true` (atomic rename).
    env.replace([entry('one', 'key-1', { revoked: true }), entry('two', 'key-2')]);
    assert.ok(await eventually(async () => (await status(url, 'key-1')) === 401), 'revoked key refused');
    const revoked = await request(url, '/tools', { token: 'key-1' });
    assert.equal(revoked.json().message, 'unknown or revoked API key');
    assert.match(revoked.headers.get('www-authenticate') ?? '', /error="invalid_token"/);

    // Remove the hash entirely.
    env.replace([entry('two', 'key-2')]);
    assert.ok(await eventually(async () => (await status(url, 'key-1')) === 401));
    assert.equal(await status(url, 'key-2'), 200);

    // Expire: an expiresAt already past, and one that passes while we wait.
    // Ten seconds: enough for the reload below on a busy machine (a hang guard, not a measurement).
    const soon = new Date(Date.now() + 10_000).toISOString();
    env.replace([entry('two', 'key-2', { expiresAt: '2020-01-01T00:00:00Z' }), entry('three', 'key-3', { expiresAt: soon })]);
    assert.ok(await eventually(async () => (await status(url, 'key-2')) === 401));
    const expired = await request(url, '/tools', { token: 'key-2' });
    assert.equal(expired.json().message, 'API key expired');
    assert.equal(await status(url, 'key-3'), 200);
    assert.ok(await eventually(async () => (await status(url, 'key-3')) === 401), 'key-3 expires on its own');
    assert.equal((await request(url, '/tools', { token: 'key-3' })).json().message, 'API key expired');

    // Inline principals are untouched by keys-file reloads.
    assert.equal(await status(url, 'inline-key'), 200);
  } finally {
    await server.close();
  }
});

test('a broken edit keeps the last good keys and logs file:line:col of each problem', async () => {
  const env = setUp([entry('one', 'key-1')]);
  const server = await startTestServer(env.configFile);
  try {
    const url = server.url;
    // A schema problem (a malformed hash) first; cross-references are checked once the schema holds.
    writeFileSync(
      env.keysFile,
      ['principals:', '  - id: one', '    tenant: nobody', `    keyHash: ${hashApiKey('key-1')}`, '  - id: inline', '    tenant: acme', '    keyHash: sha256:nothex', ''].join('\n'),
    );
    assert.ok(await eventually(async () => server.logs.some((l) => l.includes('keys file rejected'))));
    const line = server.logs.find((l) => l.includes('keys file rejected'))!;
    assert.match(line, /keys\.yaml:7:5: \/principals\/1\/keyHash: is not a key hash/);
    assert.equal(await status(url, 'key-1'), 200, 'last good keys still served');

    writeFileSync(
      env.keysFile,
      ['principals:', '  - id: one', '    tenant: acme', `    keyHash: ${hashApiKey('key-1')}`, '  - id: inline', '    tenant: acme', `    keyHash: ${hashApiKey('key-9')}`, '  - id: lost', '    tenant: nobody', `    keyHash: ${hashApiKey('key-8')}`, ''].join('\n'),
    );
    assert.ok(await eventually(async () => server.logs.some((l) => /keys\.yaml:5:\d+: \/principals\/1\/id: principal id \\"inline\\" already used/.test(l))));
    assert.ok(server.logs.some((l) => /keys\.yaml:9:\d+: \/principals\/2\/tenant: unknown tenant \\"nobody\\"/.test(l)));
    assert.equal(await status(url, 'key-9'), 401);

    writeFileSync(env.keysFile, 'principals:\n  - id: [unclosed\n');
    assert.ok(await eventually(async () => server.logs.some((l) => /keys\.yaml:\d+:\d+: invalid YAML/.test(l))));
    assert.equal(await status(url, 'key-1'), 200);

    // Fixing the file takes effect again.
    env.replace([entry('one', 'key-1'), entry('nine', 'key-9')]);
    assert.ok(await eventually(async () => (await status(url, 'key-9')) === 200));
    assert.ok(server.logs.every((l) => !l.includes('key-1') && !l.includes('key-9')), 'no key material in logs');
  } finally {
    await server.close();
  }
});

test('a missing or broken keys file stops the start, naming its place', async () => {
  const env = setUp([]);
  writeFileSync(env.keysFile, 'principals:\n  - id: x\n    tenant: acme\n');
  await assert.rejects(startTestServer(env.configFile), (err: Error) => /keys\.yaml:2:\d+: \/principals\/0: missing required key "keyHash"/.test(err.message));
  const missing = writeConfig({ auth: { keysFile: 'nope.yaml' }, tenants: { acme: { tools: ['*'] } } });
  await assert.rejects(startTestServer(missing), (err: Error) => /nope\.yaml: cannot read keys file: ENOENT/.test(err.message));
});
