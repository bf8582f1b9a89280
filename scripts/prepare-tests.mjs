// What `npm test` does before its first test: type-checks src/, test/,
// bench/ and scripts/ (`tsc --noEmit -p .`) and builds dist/ with the
// catalog browser (`npm run build`, which type-checks ui/ as it compiles
// it; the CLI and packaging tests run the built dist/) unless dist/ is
// newer than everything it is built from (as right after `npm ci`). The
// two are independent and each mostly uses one core, so they run side by
// side. Prints a failing step's output and exits 1 when either fails.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { distIsFresh } from './dist-fresh.mjs';

const npx = process.platform === 'win32' ? 'npx.cmd' : 'npx';
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const steps = [
  { name: 'type check (tsc --noEmit -p .)', cmd: npx, args: ['tsc', '--noEmit', '-p', '.'] },
  { name: 'build (npm run build)', cmd: npm, args: ['run', '--silent', 'build'] },
].filter((step) => !step.name.startsWith('build') || !distIsFresh(fileURLToPath(new URL('..', import.meta.url))));

function run({ name, cmd, args }) {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (c) => (output += c));
    child.stderr.on('data', (c) => (output += c));
    child.on('error', (err) => resolve({ name, ok: false, output: err.message }));
    child.on('close', (code) => resolve({ name, ok: code === 0, output }));
  });
}

const started = Date.now();
const results = await Promise.all(steps.map(run));
for (const r of results.filter((x) => !x.ok)) process.stderr.write(`${r.name} failed:\n${r.output}\n`);
if (results.some((r) => !r.ok)) process.exit(1);
console.log(`${steps.map((s) => s.name.split(' (')[0]).join(' and ')}: ${((Date.now() - started) / 1000).toFixed(1)} s`);
