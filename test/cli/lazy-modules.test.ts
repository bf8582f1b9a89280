// The commands that need no config stay quick: `toolhost --help` and
// `toolhost hash-key` do not load TypeBox (the config's definition, some 200
// modules), which only the commands that read or print a config load. Every
// module the built CLI resolves is recorded by a module hook in a temp dir.
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

/** The modules `node bin/toolhost.js ...args` resolves. */
async function modulesLoadedBy(args: string[]): Promise<string[]> {
  const dir = tempDir('toolhost-modules-');
  writeFileSync(join(dir, 'hooks.mjs'), HOOKS);
  writeFileSync(join(dir, 'register.mjs'), `import { register } from 'node:module';\nregister(${JSON.stringify(pathToFileURL(join(dir, 'hooks.mjs')).href)});\n`);
  const log = join(dir, 'modules.log');
  writeFileSync(log, '');
  await run(process.execPath, ['--import', pathToFileURL(join(dir, 'register.mjs')).href, BIN, ...args], { env: { ...process.env, TOOLHOST_TEST_MODULE_LOG: log } });
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
