// `npm run bench -- --quick` as a smoke test: the whole benchmark (generated
// upstream, toolhost, baseline, bare fastify, autocannon, build and refresh)
// runs end to end on a small catalog and prints its tables. No timing is
// asserted: CI machines differ and are loaded.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

test('npx tsx bench/run.ts --quick completes and prints its tables', { timeout: 240_000 }, async () => {
  const child = spawn('npx', ['tsx', 'bench/run.ts', '--quick'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  assert.equal(code, 0, `bench failed:\n${stderr.slice(-4000)}`);
  assert.match(stdout, /### Throughput/);
  assert.match(stdout, /\| GET \/tools\/\{id\} standard \|/);
  assert.match(stdout, /\| GET \/tools without credential \(401\) \|/);
  assert.match(stdout, /### Latency, build, refresh, memory/);
  assert.match(stdout, /list_changed to served/);
  // Every scenario answered with the status it expects (the bench logs any other).
  assert.doesNotMatch(stderr, /unexpected \{/);
});
