// .ci/check-clean, the CI's guard that the tests wrote nothing into the
// checkout: run on a throwaway git repository holding a copy of the script.
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { tempDir } from '../helpers/server.js';

const SCRIPT = new URL('../../.ci/check-clean', import.meta.url).pathname;

function repo(): { dir: string; check(): { status: number | null; stderr: string } } {
  const dir = tempDir('toolhost-check-clean-');
  const git = (...args: string[]) => execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.invalid', ...args], { cwd: dir, stdio: 'pipe' });
  git('init', '-q');
  mkdirSync(join(dir, '.ci'));
  copyFileSync(SCRIPT, join(dir, '.ci/check-clean'));
  writeFileSync(join(dir, '.gitignore'), 'node_modules\ndist/\ndata/\n');
  writeFileSync(join(dir, 'README.md'), 'readme\n');
  mkdirSync(join(dir, 'examples/demo'), { recursive: true });
  writeFileSync(join(dir, 'examples/demo/toolhost.yaml'), 'events: { file: data/events.sqlite }\n');
  git('add', '.');
  git('commit', '-qm', 'init');
  return {
    dir,
    check: () => {
      const r = spawnSync('bash', [join(dir, '.ci/check-clean')], { encoding: 'utf8' });
      return { status: r.status, stderr: r.stderr };
    },
  };
}

test('a clean checkout passes; node_modules/ and dist/ are allowed', () => {
  const r = repo();
  assert.deepEqual(r.check(), { status: 0, stderr: '' });
  mkdirSync(join(r.dir, 'node_modules/x'), { recursive: true });
  writeFileSync(join(r.dir, 'node_modules/x/index.js'), '');
  mkdirSync(join(r.dir, 'dist'));
  writeFileSync(join(r.dir, 'dist/main.js'), '');
  assert.deepEqual(r.check(), { status: 0, stderr: '' });
});

test('untracked, ignored and modified files fail the check, each listed', () => {
  const r = repo();
  mkdirSync(join(r.dir, 'examples/demo/data'));
  writeFileSync(join(r.dir, 'examples/demo/data/events.sqlite'), '');
  writeFileSync(join(r.dir, 'stray.txt'), '');
  writeFileSync(join(r.dir, 'README.md'), 'changed\n');
  const { status, stderr } = r.check();
  assert.equal(status, 1);
  assert.match(stderr, /^!! examples\/demo\/data\/$/m);
  assert.match(stderr, /^\?\? stray\.txt$/m);
  assert.match(stderr, /^ M README\.md$/m);
});
