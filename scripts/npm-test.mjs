// What `npm test` runs. First it builds dist/ with the catalog browser
// (`npm run build`, which type-checks ui/ as it compiles it; the CLI and
// packaging tests run the built dist/) unless dist/ is newer than
// everything it is built from (as right after `npm ci`). Then the type check
// of src/, test/, bench/ and scripts/ (`tsc --noEmit -p .`) and the fast test
// set (scripts/run-tests.mjs) run side by side: the type check is one core's
// work for about 14 s, and run before the tests it left the other core idle.
// The type check is incremental, its state kept in node_modules/.cache, so a
// second run on a contributor's checkout costs a third of the first. A
// failing type check is printed as soon as it ends; npm test then fails even
// when every test passes.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { distIsFresh } from './dist-fresh.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const npx = process.platform === 'win32' ? 'npx.cmd' : 'npx';
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

/** Runs a command with its output collected (`quiet`) or passed through; resolves to whether it succeeded and what it printed. */
function run(cmd, args, { quiet }) {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { cwd: root, stdio: quiet ? ['ignore', 'pipe', 'pipe'] : 'inherit' });
    let output = '';
    child.stdout?.on('data', (c) => (output += c));
    child.stderr?.on('data', (c) => (output += c));
    child.on('error', (err) => resolve({ ok: false, output: err.message }));
    child.on('close', (code) => resolve({ ok: code === 0, output }));
  });
}

const seconds = (since) => `${((Date.now() - since) / 1000).toFixed(1)} s`;

if (!distIsFresh(root)) {
  const started = Date.now();
  const built = await run(npm, ['run', '--silent', 'build'], { quiet: true });
  if (!built.ok) {
    process.stderr.write(`build (npm run build) failed:\n${built.output}\n`);
    process.exit(1);
  }
  console.log(`# build: ${seconds(started)}`);
}

const started = Date.now();
const typecheck = run(npx, ['tsc', '--noEmit', '-p', '.', '--incremental', '--tsBuildInfoFile', 'node_modules/.cache/toolhost-tsc/tsbuildinfo'], { quiet: true }).then((r) => {
  if (r.ok) console.log(`# type check: ${seconds(started)}`);
  else process.stderr.write(`type check (tsc --noEmit -p .) failed:\n${r.output}\n`);
  return r;
});
const tests = await run(process.execPath, ['scripts/run-tests.mjs', 'fast', ...process.argv.slice(2)], { quiet: false });
const checked = await typecheck;
process.exit(tests.ok && checked.ok ? 0 : 1);
