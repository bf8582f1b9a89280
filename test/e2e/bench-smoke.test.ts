// `npm run bench -- --smoke`: the whole benchmark (generated upstream,
// toolhost, baseline, bare fastify, autocannon, build and refresh, transport
// floor) runs end to end on a tiny catalog, a few requests per connection and
// scenario, and its report has every row, each well-formed. No figure is asserted: they mean
// nothing at this size, and the machine is shared. The measuring runs
// (`--quick`, the full run) are started by hand; see docs/benchmarks.md.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** The smoke run's catalog: 100 tools; tenants see all of them, the `crm_*` tenth, and 50. */
const LISTS = [50, 10, 100].flatMap((n) => ['standard', 'compact'].flatMap((view) => ['identity', 'gzip', 'br'].map((enc) => `GET /tools ${n} ${view} ${enc}`)));
const SCENARIOS = [
  'GET /tools/{id} standard',
  'GET /tools/{id} compact',
  ...LISTS,
  'GET /tools 10 If-None-Match (304)',
  'GET /tools/{id} If-None-Match (304)',
  'GET /tools without credential (401)',
  'GET /tools/{id} invisible (404)',
];
const TARGETS = [
  /^GET \/tools\/\{id\}: p99 < 5 ms/,
  /^cold start: process start to the standard view served/,
  /^cold start: process start to both views served/,
  /^start: the upstream's first page answered to both views served/,
  /^cold build, snapshot/,
  /^cold build including/,
  /^one-tool refresh in a 100-tool catalog/,
  /^… the same rebuild inside the running host/,
  /^… then the 3 tenants' list bodies again/,
  /^list_changed to served/,
  /^… changes 200 ms apart/,
  /^… the transport's floor/,
  /^RSS, all tools loaded/,
  /^… after 1 s idle/,
  /^… and every per-tool body compressed too/,
  /^… after 2 list_changed refreshes/,
];

// The proxies (supergateway, mcp-proxy) are left out of the smoke run: they measure, they check no wiring of toolhost's.
const CALL_ROWS = [
  'echo, direct over stdio (SDK client)',
  'echo through /mcp, raw keep-alive HTTP client',
  'echo through /mcp, SDK client (Streamable HTTP)',
  'echo through /mcp, raw keep-alive HTTP client, events.synchronous: normal',
  'echo through /mcp, raw keep-alive HTTP client, events.writeAhead: changes',
  'node-pack tool through /mcp, 1 raw client',
  'node-pack tool through /mcp, 1 raw client, events.writeAhead: changes',
  'node-pack tool through /mcp, 2 raw clients',
  'echo through /mcp, 2 raw clients',
];
/** The call rows with a target of their own (the others are held against the proxies in the Targets table, or show an option). */
const JUDGED_CALLS = new Set([CALL_ROWS[1], CALL_ROWS[2], CALL_ROWS[5], CALL_ROWS[7]]);

/** The rows of the markdown table under `heading`, as cells. */
function tableUnder(report: string, heading: string): string[][] {
  const lines = report.split('\n');
  const at = lines.indexOf(heading);
  assert.ok(at >= 0, `no "${heading}" in the report`);
  const table = lines.slice(at + 2).filter((_, i, all) => all.slice(0, i + 1).every((l) => l.startsWith('|')));
  assert.ok(table.length >= 2, `"${heading}": no table`);
  assert.match(table[1], /^\| ---( \| ---)* \|$/);
  return table.slice(2).map((row) => row.slice(2, -2).split(' | '));
}

const COUNT = /^[\d,]+$/;
const MS_RANGE = /^[\d,]+\.\d\d \([\d,]+\.\d\d–[\d,]+\.\d\d\)$/;
// Every connection makes its requests, however loaded the machine: a rate of 0 means nothing was answered.
const MEDIAN_RANGE = /^[1-9][\d,]* \([1-9][\d,]*–[1-9][\d,]*\)$/;
// A CPU ratio of runs this short may divide by zero (CPU time is read in 10 ms ticks): n/a is well-formed.
const RATIO = /^(n\/a|[\d,]+\.\d\d) \((n\/a|[\d,]+\.\d\d)–(n\/a|[\d,]+\.\d\d)\)$|^n\/a$/;

test('npm run bench -- --smoke runs every part and reports every row, well-formed', { timeout: 180_000 }, async () => {
  const child = spawn(process.execPath, ['--import', 'tsx', 'bench/run.ts', '--smoke'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  assert.equal(code, 0, `bench failed:\n${stderr.slice(-4000)}`);
  // Every scenario answered with the status it expects, without errors (the bench logs anything else).
  assert.doesNotMatch(stderr, /unexpected \{/);
  assert.doesNotMatch(stdout, /NaN|undefined/);

  const throughput = tableUnder(stdout, '### Throughput (audit off, rate limits off)');
  assert.deepEqual(throughput.map((r) => r[0]), SCENARIOS);
  for (const [name, conns, host, base, ratio, cpuRatio, floorRatio, target, verdict] of throughput) {
    assert.match(conns, COUNT, name);
    assert.match(host, MEDIAN_RANGE, `${name}: toolhost req/s`);
    assert.match(base, MEDIAN_RANGE, `${name}: baseline req/s`);
    assert.match(ratio, RATIO, `${name}: ratio`);
    assert.match(cpuRatio, RATIO, `${name}: CPU ratio`);
    // Bare fastify serves the small answers only.
    if (/\((304|401|404)\)|\{id\}/.test(name)) assert.match(floorRatio, RATIO, `${name}: bare fastify ratio`);
    else assert.equal(floorRatio, '—', name);
    assert.match(target, /^(—|≥ 0\.\d+)$/, `${name}: target`);
    assert.match(verdict, target === '—' ? /^$/ : /^(met|\*\*missed\*\*)$/, `${name}: verdict`);
  }

  // tools/call through /mcp beside the direct call (bench/calls.ts): every row, each with figures; verdicts only when measuring.
  const calls = tableUnder(stdout, '### tools/call through /mcp (bench/calls.ts)');
  assert.deepEqual(calls.map((r) => r[0]), CALL_ROWS);
  for (const [name, p50, p99, rate, cpu, events, target, verdict] of calls) {
    assert.match(p50, MS_RANGE, `${name}: p50`);
    assert.match(p99, MS_RANGE, `${name}: p99`);
    assert.match(rate, MEDIAN_RANGE, `${name}: calls/s`);
    if (name.includes('direct')) assert.deepEqual([cpu, events, target], ['—', '—', '—'], name);
    else {
      assert.match(cpu, MS_RANGE, `${name}: CPU per call`);
      // Four events per call: opened, called, returned, closed; events.synchronous: normal and events.writeAhead: changes record every call too.
      assert.equal(events, '4.00', `${name}: events per call`);
      if (JUDGED_CALLS.has(name)) assert.match(target, /^(< 1 ms added p50|≥ [23],000 calls\/s)/, `${name}: target`);
      else assert.equal(target, '—', name);
    }
    assert.equal(verdict, '', `${name}: a smoke run judges nothing`);
  }

  // The issue's targets, one row each: the small answers with the audit line on, the lists, and the rest.
  const goals = tableUnder(stdout, '### Targets');
  const SMALL = SCENARIOS.filter((s) => /\{id\}|\((304|401|404)\)/.test(s));
  assert.deepEqual(
    goals.slice(0, SMALL.length).map((r) => r[0]),
    SMALL.map((s) => `${s}, audit line on (the default): req/s ÷ baseline`),
  );
  for (const name of LISTS.filter((l) => !l.startsWith('GET /tools 50 '))) assert.ok(goals.some((r) => r[0] === `${name}: req/s ÷ baseline`), name);
  for (const goal of [/^GET \/tools\/\{id\}: p99/, /^start: process start to the standard view/, /^start: process start to both views/, /^start: the upstream's first tools\/list page answered to both views served/, /^cold build of the snapshot/, /^list_changed to served/, /^RSS, both views served, list bodies compressed$/, /^RSS, both views served, list bodies compressed, after 1 s idle$/, /^echo through \/mcp, raw .*: p50 added over the direct call$/, /^echo through \/mcp, raw .*: calls\/s ÷ the direct call's$/, /^node-pack tool .*: calls\/s, events recorded$/, /^node-pack tool .*2 raw clients: toolhost CPU per call/, /^echo, 1 raw client, events\.synchronous: full: calls\/s ÷ the faster proxy's$/, /^echo, 1 raw client, events\.synchronous: normal: calls\/s ÷ the faster proxy's$/, /^echo, 2 raw clients .*: calls\/s ÷ the faster proxy's$/, /^echo, 1 raw client .*: p99 ÷ the lower of the proxies' p99$/, /^idle MCP sessions: JS heap per open idle session/, /^idle MCP sessions: timers per open idle session/]) {
    assert.ok(goals.some((r) => goal.test(r[0])), String(goal));
  }
  for (const [name, wanted, measured, load, verdict] of goals) {
    assert.match(wanted, /^(≥|<) [\d,.]+(×| ms| MB| KiB| calls\/s| timers) \((median|worst)\)$/, `${name}: wanted`);
    assert.match(measured, /^(not measured|n\/a|-?[\d,.]+) – (n\/a|-?[\d,.]+) – (n\/a|-?[\d,.]+)(×| ms| MB| KiB| calls\/s| timers) \(\d+\)$|^not measured$/, `${name}: measured`);
    assert.match(load, /^[\d.]+ – [\d.]+ – [\d.]+$/, `${name}: load average`);
    assert.match(verdict, measured === 'not measured' ? /^$/ : /^(met|\*\*missed\*\*)$/, `${name}: verdict`);
  }

  const targets = tableUnder(stdout, '### Latency, build, refresh, memory');
  assert.equal(targets.length, TARGETS.length, targets.map((r) => r[0]).join('\n'));
  targets.forEach((row, i) => {
    assert.equal(row.length, 3, row.join(' | '));
    assert.match(row[0], TARGETS[i]);
    assert.match(row[1], /\d/, `${row[0]}: no figure`);
  });
});
