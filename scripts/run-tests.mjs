// Runs one test set (`fast` for `npm test`, `e2e` for `npm run test:e2e`)
// with node's test runner, in fewer processes than files. Each test process
// pays the import of the host's modules and packages before its first case;
// most files then run for less than that. So test files run together in one
// process, CHUNK at a time in folder order, and the runner keeps two such
// processes busy. A file that must have a process to itself (it changes
// process-wide state, or other files' timing would bend its own) is named in
// ALONE. Extra arguments are passed to `node --test` (e.g.
// `--test-reporter=tap`). Each file of a group is imported inside a suite
// named after it, so its top-level before()/after() run around its own tests
// only, and a failing hook fails that file's tests, not its neighbours'.
//
// Each group is bundled into one plain JavaScript file (scripts/
// node-bundle.mjs) and run by node without a loader: through tsx, a process
// spent about 2 s more CPU resolving and compiling a few hundred TypeScript
// modules one by one, a sixth of the suite's CPU. The bundles carry source
// maps (node runs with --enable-source-maps), so a failure still names the
// test file and line. They are written below node_modules/.cache, where the
// packages they import resolve, and removed after the run.
//
// A process ends when its tests have (--test-force-exit: a handle a failed
// test left open cannot hold the run). No runner-wide --test-timeout: on
// node 20 it times the whole group file, not each test.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';
import { nodeBundleOptions, ownImportMetaUrl } from './node-bundle.mjs';
import { testFiles } from './test-files.mjs';

const CHUNK = 8;
/** The end-to-end files each start several processes of their own: one file per process is no dearer. */
const E2E_CHUNK = 1;
const ALONE = new Set([
  // Starts, kills, freezes and resumes its Redis from top-level hooks and across tests; three replicas' timing decides its figures.
  'test/auth/shared-rate-limit.test.ts',
]);
/** Folders whose files take longest run first, so no long group starts last. */
const FIRST = ['test/bench', 'test/cli', 'test/front-door', 'test/events', 'test/http', 'test/compact', 'test/e2e', 'test/ui'];

const [set, ...runnerArgs] = process.argv.slice(2);
if (set !== 'fast' && set !== 'e2e') {
  console.error('usage: node scripts/run-tests.mjs fast|e2e [node --test options]');
  process.exit(2);
}
const files = testFiles(set);
const root = new URL('../', import.meta.url).pathname;

function groups() {
  const alone = files.filter((f) => ALONE.has(f)).map((f) => [f]);
  const folderOf = (file) => file.slice(0, file.lastIndexOf('/'));
  const rank = (file) => (FIRST.includes(folderOf(file)) ? FIRST.indexOf(folderOf(file)) : FIRST.length);
  const ordered = files.filter((f) => !ALONE.has(f)).sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
  const chunk = set === 'e2e' ? E2E_CHUNK : CHUNK;
  const out = [...alone];
  for (let i = 0; i < ordered.length; i += chunk) out.push(ordered.slice(i, i + chunk));
  return out;
}

mkdirSync(join(root, 'node_modules/.cache'), { recursive: true });
const dir = mkdtempSync(join(root, 'node_modules/.cache/toolhost-test-groups-'));
const sources = groups().map((group, i) => {
  const name = `${String(i).padStart(2, '0')}-${group[0].replace(/^test\//, '').replace(/[/.]/g, '_')}${group.length > 1 ? `+${group.length - 1}` : ''}`;
  const suites = group.map((f) => `describe(${JSON.stringify(f)}, async () => { await import(${JSON.stringify(join(root, f))}); });`);
  const file = join(dir, `${name}.entry.mjs`);
  writeFileSync(file, [`import { describe } from 'node:test';`, ...suites].join('\n') + '\n');
  return file;
});
let status = 1;
try {
  const started = Date.now();
  const { metafile } = await build({ ...nodeBundleOptions, plugins: [ownImportMetaUrl], entryPoints: sources, outdir: dir, outExtension: { '.js': '.test.mjs' }, entryNames: '[name]', metafile: true });
  const entries = Object.keys(metafile.outputs).map((f) => join(root, f));
  console.log(`# bundled ${entries.length} test processes in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  const result = spawnSync(process.execPath, ['--enable-source-maps', '--test', '--test-concurrency=2', '--test-force-exit', ...runnerArgs, ...entries], { stdio: 'inherit', cwd: root });
  status = result.status ?? 1;
} finally {
  rmSync(dir, { recursive: true, force: true });
}
process.exit(status);
