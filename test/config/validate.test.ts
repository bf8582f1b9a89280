// `toolhost validate` refuses what would pass silently at start: a source that
// did not load (with its stderr), an unset connector secret, a tenant glob or
// policy rule that matches no tool; and shows one caller's effective tools.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { test } from 'node:test';
import { promisify } from 'node:util';
import { hashApiKey } from '../../src/auth/api-keys.js';
import { DEFAULT_VALIDATE_WAIT_MS, runValidate } from '../../src/cli/validate-command.js';
import { programArgs } from '../helpers/fixture-command.js';
import { patient } from '../helpers/patience.js';
import { tempDir, writeConfig } from '../helpers/server.js';

const ROOT = new URL('../../', import.meta.url).pathname;
const TEXT_PACK = join(ROOT, 'examples/demo/packs/text');
const TICKETS = join(ROOT, 'examples/demo/openapi/tickets.yaml');

function config(extra: Record<string, unknown> = {}, tools = ['*']): string {
  return writeConfig({
    tenants: { acme: { tools } },
    principals: [{ id: 'agent', tenant: 'acme', scopes: ['s1'], keyHash: hashApiKey('validate-key') }],
    ...extra,
    sources: { nodePacks: [{ path: TEXT_PACK }], ...((extra.sources as object | undefined) ?? {}) },
  });
}

const lineOf = (output: string, kind: string) => output.split('\n').find((l) => l.includes(`[${kind}]`));

test('a clean config is valid with exit code 0', async () => {
  const r = await runValidate(config(), { env: {} });
  assert.equal(r.exitCode, 0, r.output);
  assert.match(r.output, /\nvalid\n$/);
});

test('a connector whose OpenAPI file is missing is an error', async () => {
  const r = await runValidate(config({ sources: { connectors: [{ id: 'gone', document: join(tempDir(), 'missing.yaml') }] } }), { env: {} });
  assert.equal(r.exitCode, 1, r.output);
  assert.match(lineOf(r.output, 'source-failed') ?? '', /error \[source-failed\]: source connector:gone is failed/);
});

test('an MCP command that does not exist is an error', async () => {
  const r = await runValidate(config({ sources: { mcp: [{ id: 'ghost', transport: 'stdio', command: join(tempDir(), 'no-such-command') }] } }), { env: {} });
  assert.equal(r.exitCode, 1, r.output);
  assert.match(lineOf(r.output, 'source-failed') ?? '', /source mcp:ghost is (failed|connecting|stale)/);
});

test('an MCP server that crashes at start: the error shows the last lines of its stderr', async () => {
  const crash = "console.error('starting'); console.error('fatal: cannot open /var/db/tools.db'); process.exit(3)";
  const r = await runValidate(config({ sources: { mcp: [{ id: 'crashy', transport: 'stdio', command: process.execPath, args: ['-e', crash] }] } }), { env: {} });
  assert.equal(r.exitCode, 1, r.output);
  assert.match(r.output, /source mcp:crashy is \w+[^\n]*\n\s+its stderr ended with:\n\s+starting\n\s+fatal: cannot open \/var\/db\/tools\.db/);
});

test('an unset connector secret is an error unless demoted to a warning', async () => {
  const file = config({ sources: { connectors: [{ id: 'tickets', document: TICKETS, auth: { type: 'bearer', secret: { env: 'VALIDATE_TEST_TOKEN' } } }] } });
  const unset = await runValidate(file, { env: {} });
  assert.equal(unset.exitCode, 1, unset.output);
  assert.match(lineOf(unset.output, 'secret-unset') ?? '', /error \[secret-unset\]: .*\/sources\/connectors\/0\/auth\/secret: .*VALIDATE_TEST_TOKEN is not set/);
  const demoted = await runValidate(file, { env: {}, warnings: ['secret-unset'] });
  assert.equal(demoted.exitCode, 0, demoted.output);
  assert.match(lineOf(demoted.output, 'secret-unset') ?? '', /^ {2}warning /);
  const set = await runValidate(file, { env: { VALIDATE_TEST_TOKEN: 't' } });
  assert.equal(lineOf(set.output, 'secret-unset'), undefined);
});

test('a tenant glob and a policy rule that match no tool: warnings, errors under --strict', async () => {
  const file = config({ policy: { rules: [{ match: ['openwop:text.*', 'openwop:txet.*'], safetyTier: 'pure' }] } }, ['openwop:text.*', 'mcp:nothing.*']);
  const lenient = await runValidate(file, { env: {} });
  assert.equal(lenient.exitCode, 0, lenient.output);
  assert.match(lineOf(lenient.output, 'glob-unmatched') ?? '', /warning \[glob-unmatched\]: .*:\d+:\d+: \/tenants\/acme\/tools\/1: "mcp:nothing\.\*" matches no tool/);
  assert.match(lineOf(lenient.output, 'rule-unmatched') ?? '', /warning \[rule-unmatched\]: .*\/policy\/rules\/0\/match\/1: "openwop:txet\.\*" matches no tool/);
  assert.equal(lenient.output.split('\n').filter((l) => l.includes('matches no tool')).length, 2, 'a glob that matches was reported');
  const strict = await runValidate(file, { env: {}, strict: true });
  assert.equal(strict.exitCode, 1);
  assert.match(strict.output, /invalid: 2 errors/);
  const promoted = await runValidate(file, { env: {}, errors: ['rule-unmatched'] });
  assert.match(promoted.output, /invalid: 1 error\n/);
});

test('--principal and --key print the effective tools with tier and approval', async () => {
  const file = config({ policy: { rules: [{ match: 'openwop:text.uppercase', safetyTier: 'pure', approval: 'always' }, { match: 'openwop:text.word-count', scopes: ['s2'] }] } });
  const byId = await runValidate(file, { env: {}, principal: 'agent' });
  assert.equal(byId.exitCode, 0, byId.output);
  assert.match(byId.output, /principal agent \(tenant acme, scopes: s1\): 1 tools\n/);
  assert.match(byId.output, /openwop:text\.uppercase\s+pure\s+always/);
  assert.doesNotMatch(byId.output, /openwop:text\.word-count\s/, 'a tool that needs a scope the principal lacks was listed');
  const byKey = await runValidate(file, { env: {}, key: 'validate-key' });
  assert.match(byKey.output, /principal agent \(tenant acme/);
  const unknown = await runValidate(file, { env: {}, principal: 'nobody' });
  assert.equal(unknown.exitCode, 1);
  assert.match(unknown.output, /error: no principal "nobody" in the config/);
});

test('the CLI is strict when $CI is set, and takes --warn', async () => {
  const run = promisify(execFile);
  const file = config({}, ['openwop:text.*', 'mcp:nothing.*']);
  const bin = join(ROOT, 'bin/toolhost.js');
  const plain = await run(process.execPath, [bin, 'validate', '--config', file], { env: { ...process.env, CI: '' } });
  assert.match(plain.stdout, /warning \[glob-unmatched\]/);
  const inCi = await run(process.execPath, [bin, 'validate', '--config', file], { env: { ...process.env, CI: 'true' } }).then(
    () => assert.fail('CI=true accepted an unmatched glob'),
    (err: { code: number; stdout: string }) => err,
  );
  assert.equal(inCi.code, 1);
  assert.match(inCi.stdout, /error \[glob-unmatched\]/);
  const demoted = await run(process.execPath, [bin, 'validate', '--config', file, '--warn', 'glob-unmatched'], { env: { ...process.env, CI: 'true' } });
  assert.match(demoted.stdout, /\nvalid\n$/);
});

test('a source slower to start than --wait is reported; a longer wait lets it finish starting', async () => {
  // The fixture MCP server, started only after a pause: a slow upstream on a busy machine.
  const fixture = join(ROOT, 'test/fixtures/mcp-fixture/server.ts');
  const slow = `setTimeout(() => import(${JSON.stringify(programArgs(fixture)[0])}), 2500)`;
  const file = config({ sources: { mcp: [{ id: 'slow', transport: 'stdio', command: process.execPath, args: ['-e', slow], cwd: ROOT }] } });
  const impatient = await runValidate(file, { env: {}, waitMs: 500 });
  assert.equal(impatient.exitCode, 1, impatient.output);
  assert.match(lineOf(impatient.output, 'source-failed') ?? '', /source mcp:slow is (connecting|stale)/);
  // The default wait (30 s) on a quiet machine; stretched here with the test's other deadlines.
  const waited = await runValidate(file, { env: {}, waitMs: patient(DEFAULT_VALIDATE_WAIT_MS) });
  assert.equal(waited.exitCode, 0, waited.output);
  assert.match(waited.output, /tenant acme: \d+ tools \(mcp 6, node-pack 2\)/);
  const run = promisify(execFile);
  const refused = await run(process.execPath, [join(ROOT, 'bin/toolhost.js'), 'validate', '--config', file, '--wait', '0']).then(
    () => assert.fail('--wait 0 accepted'),
    (err: { code: number; stderr: string }) => err,
  );
  assert.equal(refused.stderr.trim().split('\n').length, 1, refused.stderr);
  assert.match(refused.stderr, /--wait.*seconds above 0/);
});
