// The compiled build, run the way a deployment runs it: `node bin/toolhost.js`
// on dist/ (made by `npm run build`, which `npm test` runs first), with the
// container's own entry command read from the Dockerfile.
import assert from 'node:assert/strict';
import { spawn, execFile } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, readFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { test } from 'node:test';
import { promisify } from 'node:util';
import { hashApiKey } from '../../src/auth/api-keys.js';
import { tempDir, writeConfig } from '../helpers/server.js';

const ROOT = new URL('../../', import.meta.url).pathname;
const BIN = join(ROOT, 'bin/toolhost.js');
const run = promisify(execFile);
const KEY = 'build-test-key';

function packageVersion(): string {
  return (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
}

/** A small config of the repository's text pack; its event log in a temp dir. */
function smallConfig(extra: Record<string, unknown> = {}): { file: string; dir: string } {
  const dir = tempDir('toolhost-build-');
  const file = writeConfig(
    {
      tenants: { acme: { tools: ['*'] } },
      principals: [{ id: 'agent', tenant: 'acme', keyHash: hashApiKey(KEY) }],
      events: { file: join(dir, 'events.sqlite') },
      sources: { nodePacks: [{ path: join(ROOT, 'examples/demo/packs/text') }], ...extra },
    },
    dir,
  );
  return { file, dir };
}

/** The Dockerfile's ENTRYPOINT + CMD, as the image runs them. */
function imageCommand(): string[] {
  const dockerfile = readFileSync(join(ROOT, 'Dockerfile'), 'utf8');
  const json = (instruction: string) => JSON.parse(new RegExp(`^${instruction}\\s+(\\[.*\\])\\s*$`, 'm').exec(dockerfile)![1]) as string[];
  return [...json('ENTRYPOINT'), ...json('CMD')];
}

test('the build exists and bin/toolhost.js runs it without a loader', () => {
  assert.ok(existsSync(join(ROOT, 'dist/cli/main.js')), 'dist/ is missing: npm test builds it first');
  assert.doesNotMatch(readFileSync(BIN, 'utf8'), /tsx/);
});

test('toolhost --version prints the package version', async () => {
  const { stdout } = await run(process.execPath, [BIN, '--version']);
  assert.equal(stdout.trim(), packageVersion());
});

test("the image's entry command serves a config on the built dist/ and prints the real URL in the banner", async () => {
  const { file, dir } = smallConfig();
  const banner = join(dir, 'banner.txt');
  writeConfig('Try: curl {url}/tools\n', dir, 'banner.txt');
  const [cmd, ...args] = imageCommand();
  assert.equal(cmd, 'node');
  const argv = [...args.map((a) => (a === '/etc/toolhost/toolhost.yaml' ? file : a)), '--banner', banner];
  const child = spawn(process.execPath, argv, { cwd: ROOT, env: { ...process.env, HOST: '127.0.0.1', PORT: '0', LOG_LEVEL: 'warn' }, stdio: ['ignore', 'pipe', 'pipe'] });
  try {
    let out = '';
    while (!/Try: curl \S+\/tools/.test(out)) {
      const [chunk] = await Promise.race([once(child.stdout!, 'data'), once(child, 'exit').then(() => assert.fail(`exited early: ${out}`))]);
      out += String(chunk);
    }
    const url = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out)![1];
    assert.doesNotMatch(url, /:0$/);
    assert.match(out, new RegExp(`Try: curl ${url.replace(/[.]/g, '\\.')}/tools`));
    const health = await fetch(`${url}/healthz`);
    assert.equal(health.status, 200);
    const tools = (await (await fetch(`${url}/tools`, { headers: { authorization: `Bearer ${KEY}` } })).json()) as Array<{ toolId: string }>;
    assert.ok(tools.some((t) => t.toolId === 'openwop:text.uppercase'));
    // The served process exports its own metrics beside the host's.
    const metrics = await (await fetch(`${url}/metrics`)).text();
    assert.match(metrics, /^process_cpu_seconds_total /m);
    assert.match(metrics, /^toolhost_http_requests_total/m);
  } finally {
    child.kill('SIGTERM');
    if (child.exitCode === null) await once(child, 'exit');
  }
});

test('serve on a port in use: one line, exit 2, and no source started', async () => {
  const blocker = createServer();
  await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
  const port = (blocker.address() as AddressInfo).port;
  const marker = join(tempDir(), 'spawned');
  // An MCP source whose command leaves a mark: it must never run.
  const { file } = smallConfig({ mcp: [{ id: 'probe', transport: 'stdio', command: process.execPath, args: ['-e', `require('node:fs').writeFileSync(${JSON.stringify(marker)}, 'x')`] }] });
  try {
    const result = await run(process.execPath, [BIN, 'serve', '--config', file, '--host', '127.0.0.1', '--port', String(port)]).then(
      () => assert.fail('serve started on a port in use'),
      (err: { code: number; stderr: string; stdout: string }) => err,
    );
    assert.equal(result.code, 2);
    assert.equal(result.stderr, `toolhost: port ${port} is in use; pass --port or set PORT\n`);
    assert.equal(existsSync(marker), false, 'an upstream was spawned before the port was checked');
  } finally {
    blocker.close();
  }
});

test('an unknown log level is refused in one line', async () => {
  const { file } = smallConfig();
  const result = await run(process.execPath, [BIN, 'serve', '--config', file, '--port', '0'], { env: { ...process.env, LOG_LEVEL: 'loud' } }).then(
    () => assert.fail('serve accepted LOG_LEVEL=loud'),
    (err: { code: number; stderr: string }) => err,
  );
  assert.equal(result.code, 2);
  assert.match(result.stderr, /^toolhost: unknown log level "loud"; use one of fatal, error, warn, info, debug, trace, silent\n$/);
});
