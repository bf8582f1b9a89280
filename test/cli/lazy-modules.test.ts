// The commands that need no config stay quick: `toolhost --help` and
// `toolhost hash-key` do not load TypeBox (the config's definition, some 200
// modules), which only the commands that read or print a config load; and a
// host with a SQLite event log and no `redis:` loads neither the PostgreSQL
// nor the Redis driver (about half a second of CPU at every start). Every
// module the built CLI resolves is recorded by a module hook in a temp dir,
// and every CommonJS module it loaded (require's cache) when it exits.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { test } from 'node:test';
import { promisify } from 'node:util';
import { tempDir } from '../helpers/server.js';

const ROOT = new URL('../../', import.meta.url).pathname;
const BIN = join(ROOT, 'bin/toolhost.js');
const run = promisify(execFile);

const HOOKS = `import { appendFileSync } from 'node:fs';
export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  appendFileSync(process.env.TOOLHOST_TEST_MODULE_LOG, resolved.url + '\\n');
  return resolved;
}
`;

const REGISTER = `import { appendFileSync } from 'node:fs';
import { createRequire, register } from 'node:module';
import { pathToFileURL } from 'node:url';
register(HOOKS_URL);
const cache = createRequire(import.meta.url).cache;
process.on('exit', () => appendFileSync(process.env.TOOLHOST_TEST_MODULE_LOG, Object.keys(cache).map((f) => pathToFileURL(f).href + '\\n').join('')));
`;

/** The modules `node bin/toolhost.js ...args` resolves or loads; `mayFail`: a non-zero exit is expected (an unreachable Redis fails `validate`). */
async function modulesLoadedBy(args: string[], mayFail = false): Promise<string[]> {
  const dir = tempDir('toolhost-modules-');
  writeFileSync(join(dir, 'hooks.mjs'), HOOKS);
  writeFileSync(join(dir, 'register.mjs'), REGISTER.replace('HOOKS_URL', JSON.stringify(pathToFileURL(join(dir, 'hooks.mjs')).href)));
  const log = join(dir, 'modules.log');
  writeFileSync(log, '');
  await run(process.execPath, ['--import', pathToFileURL(join(dir, 'register.mjs')).href, BIN, ...args], { env: { ...process.env, TOOLHOST_TEST_MODULE_LOG: log, REDIS_URL: 'redis://127.0.0.1:1' } }).catch((err: { code?: number }) => {
    if (!mayFail || typeof err.code !== 'number') throw err;
  });
  return readFileSync(log, 'utf8').split('\n').filter((l) => l !== '');
}

const typebox = (modules: string[]) => modules.filter((m) => m.includes('/@sinclair/typebox/'));

test('`toolhost --help` and `toolhost hash-key` load no TypeBox module', async () => {
  for (const args of [['--help'], ['hash-key', 'k']]) {
    const modules = await modulesLoadedBy(args);
    assert.ok(modules.some((m) => m.endsWith('/dist/cli/main.js')), `the hook saw the CLI load (${args.join(' ')})`);
    assert.deepEqual(typebox(modules), [], args.join(' '));
  }
});

test('`toolhost config-schema` does load TypeBox (the hook sees it)', async () => {
  assert.ok(typebox(await modulesLoadedBy(['config-schema'])).length > 0);
});

const drivers = (modules: string[]) => modules.filter((m) => /\/node_modules\/(pg|ioredis)\//.test(m));

test('a host on SQLite with no `redis:` loads neither the PostgreSQL nor the Redis driver; with `redis:` it loads ioredis', async () => {
  const dir = tempDir();
  const base = { tenants: { t: { tools: ['*'] } }, events: { file: join(dir, 'events.sqlite') }, sources: { nodePacks: [{ path: join(ROOT, 'examples/demo/packs/text') }] } };
  const plain = join(dir, 'plain.yaml');
  writeFileSync(plain, JSON.stringify(base));
  const modules = await modulesLoadedBy(['validate', '--config', plain, '--wait', '2']);
  assert.ok(modules.some((m) => m.includes('/node_modules/better-sqlite3/')), 'the exit hook saw the CommonJS modules');
  assert.deepEqual(drivers(modules), []);
  const withRedis = join(dir, 'redis.yaml');
  writeFileSync(withRedis, JSON.stringify({ ...base, redis: { url: { env: 'REDIS_URL' }, connectTimeoutMs: 100 } }));
  assert.ok(drivers(await modulesLoadedBy(['validate', '--config', withRedis, '--wait', '2'], true)).some((m) => m.includes('/ioredis/')));
});
