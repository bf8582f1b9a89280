// The package as a user gets it: `npm pack` (of the build `npm test` made
// first), installed with `npm install -g --prefix TMP` from the npm cache
// `npm ci` filled, then the installed `toolhost`: --version, `serve` on the
// shipped demo, and `connect` against it, listing the demo's tools. Nothing
// is built on the way (the installed copy has no .git: prepare skips it).
// The one step this machine cannot do as a user's would: better-sqlite3's
// install script downloads a prebuilt addon (offline here it compiles for
// minutes), so the install runs without scripts and the test copies the
// addon the checkout's `npm ci` built, which is what the download provides.
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { tempDir } from '../helpers/server.js';

const ROOT = new URL('../../', import.meta.url).pathname;
const run = promisify(execFile);
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const ADDON = 'node_modules/better-sqlite3/build/Release/better_sqlite3.node';
const stops: (() => void)[] = [];
after(() => stops.forEach((s) => s()));

test('npm pack installs and runs with no build step: --version, serve on the demo, connect against it', { timeout: 240_000 }, async () => {
  const dir = tempDir('toolhost-pack-');
  const packed = JSON.parse((await run(npm, ['pack', '--ignore-scripts', '--json', '--pack-destination', dir], { cwd: ROOT })).stdout) as { filename: string; files: { path: string }[] }[];
  const files = packed[0]!.files.map((f) => f.path);
  // Only what runs: the build, the UI, the schema, the examples, the command.
  assert.ok(files.includes('dist/cli/main.js') && files.includes('dist/ui/index.html') && files.includes('toolhost.schema.json') && files.includes('examples/demo/toolhost.yaml') && files.includes('bin/toolhost.js'));
  assert.deepEqual(files.filter((f) => /^(src|test|ui|bench)\//.test(f) || (f.startsWith('scripts/') && f !== 'scripts/prepare.mjs') || f.startsWith('examples/demo/data/')), []);

  const prefix = join(dir, 'prefix');
  const install = await run(npm, ['install', '-g', '--prefix', prefix, join(dir, packed[0]!.filename), '--prefer-offline', '--ignore-scripts', '--no-audit', '--no-fund'], { cwd: dir, maxBuffer: 1 << 24 });
  assert.doesNotMatch(install.stderr, /EBADENGINE/, 'no dependency refuses this Node');
  const home = join(prefix, process.platform === 'win32' ? '' : 'lib', 'node_modules', 'toolhost');
  mkdirSync(join(home, 'node_modules/better-sqlite3/build/Release'), { recursive: true });
  copyFileSync(join(ROOT, ADDON), join(home, ADDON));
  const bin = join(prefix, 'bin', 'toolhost');
  assert.ok(!existsSync(join(home, '.git')) && !readdirSync(home).includes('src'));

  // The installed copy's prepare (were a client to run it) builds nothing.
  const builtAt = statSync(join(home, 'dist/cli/main.js')).mtimeMs;
  const prepare = await run(process.execPath, [join(home, 'scripts/prepare.mjs')], { cwd: home });
  assert.equal(prepare.stdout + prepare.stderr, '');
  assert.equal(statSync(join(home, 'dist/cli/main.js')).mtimeMs, builtAt);

  const version = await run(bin, ['--version']);
  assert.equal(version.stdout.trim(), (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version);

  // The shipped demo, served from the installed copy on a free port.
  const host = spawn(bin, ['serve', '--config', join(home, 'examples/demo/toolhost.yaml'), '--port', '0'], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, TICKETS_API_TOKEN: 'demo' } });
  stops.push(() => host.kill());
  let out = '';
  host.stdout.on('data', (d: Buffer) => void (out += d.toString()));
  while (!/listening on (http:\/\/\S+)/.test(out)) {
    if (host.exitCode !== null) assert.fail(`serve exited: ${out}`);
    await once(host.stdout, 'data');
  }
  const url = /listening on (http:\/\/\S+)/.exec(out)![1]!;

  const client = new Client({ name: 'package-test', version: '1.0.0' });
  await client.connect(new StdioClientTransport({ command: bin, args: ['connect', '--url', `${url}/mcp`, '--token-env', 'TOOLHOST_TOKEN'], env: { ...(process.env as Record<string, string>), TOOLHOST_TOKEN: 'acme-demo-key' } }));
  stops.push(() => void client.close());
  const { tools } = await client.listTools();
  assert.ok(tools.some((t) => /text_uppercase/.test(t.name)), tools.map((t) => t.name).join(', '));
  const result = await client.callTool({ name: tools.find((t) => /text_uppercase/.test(t.name))!.name, arguments: { text: 'packed' } });
  assert.deepEqual(result.structuredContent, { text: 'PACKED' });
});
