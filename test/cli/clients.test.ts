// `toolhost clients`: each client's snippet against that client's documented
// format (test/vendor/mcp-clients/config-shapes.json, written from the pages
// docs/clients.md cites), for any server name, variable and URL; the
// credential is never in a snippet, only a reference the client expands.
// The Claude Desktop entry is also run for real, in test/cli/connect.test.ts.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { promisify } from 'node:util';
import { Ajv } from 'ajv';
import fc from 'fast-check';
import { CLIENT_IDS, clientConfigs, type ClientConfig, type ClientId } from '../../src/cli/clients-command.js';

const ROOT = new URL('../../', import.meta.url).pathname;
const run = promisify(execFile);
const SHAPES = JSON.parse(readFileSync(join(ROOT, 'test/vendor/mcp-clients/config-shapes.json'), 'utf8')) as Record<string, Record<string, unknown>>;
const ajv = new Ajv({ allErrors: true, strict: false });
const validators = Object.fromEntries(CLIENT_IDS.map((id) => [id, ajv.compile(SHAPES[id]!)]));

/** The TOML Codex's snippet uses and nothing more: `[a.b]` tables and `key = "basic string"` lines; anything else is refused. */
function parseTomlSubset(text: string): Record<string, unknown> {
  const root: Record<string, unknown> = {};
  let table = root;
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    const header = /^\[([A-Za-z0-9_-]+(?:\.[A-Za-z0-9_-]+)*)\]$/.exec(line);
    if (header) {
      table = root;
      for (const key of header[1]!.split('.')) table = (table[key] ??= {}) as Record<string, unknown>;
      continue;
    }
    const pair = /^([A-Za-z0-9_-]+) = ("(?:[^"\\\u0000-\u001f]|\\["\\/bfnrt]|\\u[0-9A-Fa-f]{4})*")$/.exec(line);
    assert.ok(pair, `not TOML this check knows: ${line}`);
    table[pair[1]!] = JSON.parse(pair[2]!);
  }
  return root;
}

/** The snippet as the client reads it. */
function parsed(c: ClientConfig): Record<string, unknown> {
  if (c.format === 'toml') return parseTomlSubset(c.text);
  const value = JSON.parse(c.text) as Record<string, unknown>;
  assert.deepEqual(value, c.value);
  return value;
}

/** The one server entry of a parsed snippet. */
function entry(id: ClientId, doc: Record<string, unknown>, name: string): Record<string, unknown> {
  const key = id === 'vscode' ? 'servers' : id === 'codex' ? 'mcp_servers' : 'mcpServers';
  const servers = doc[key] as Record<string, Record<string, unknown>>;
  assert.deepEqual(Object.keys(servers), [name]);
  return servers[name]!;
}

function checkAgainstDocs(c: ClientConfig, opts: { url: string; tokenEnv: string; name: string }) {
  const doc = parsed(c);
  const validate = validators[c.id]!;
  assert.ok(validate(doc), `${c.name}: ${ajv.errorsText(validate.errors)}\n${c.text}`);
  const server = entry(c.id, doc, opts.name);
  const variable = SHAPES[c.id]!['x-variable'] as string | undefined;
  if (c.via === 'http' && variable !== undefined) {
    const auth = (server.headers as Record<string, string>).Authorization!;
    const ref = auth.replace(/^Bearer /, '');
    assert.match(ref, new RegExp(variable), `${c.name} expands ${ref}`);
    if (c.id === 'vscode') {
      const ids = ((doc.inputs ?? []) as { id: string; password?: boolean }[]).filter((i) => i.password === true).map((i) => i.id);
      assert.ok(ids.includes(/^\$\{input:(.+)\}$/.exec(ref)![1]!), 'the header names a declared password input');
    } else {
      assert.ok(ref.includes(opts.tokenEnv), `${c.name} reads ${opts.tokenEnv}`);
    }
  }
  if (c.id === 'codex') assert.equal(server.bearer_token_env_var, opts.tokenEnv);
  if (c.id === 'claude-desktop') {
    const args = server.args as string[];
    assert.deepEqual(args.slice(1), ['connect', '--url', opts.url, '--token-env', opts.tokenEnv]);
    assert.deepEqual(Object.keys(server.env as object), [opts.tokenEnv]);
  }
  const url = c.id === 'claude-desktop' ? (server.args as string[])[3] : (server.url ?? server.serverUrl);
  assert.equal(url, opts.url);
}

describe('each client gets its documented format', () => {
  const opts = { url: 'https://tools.example.com/mcp', tokenEnv: 'TOOLHOST_TOKEN', name: 'toolhost' };
  const configs = clientConfigs(opts);

  test('six clients, remote Streamable HTTP with a header where the client can send one, the bridge where it cannot', () => {
    assert.deepEqual(configs.map((c) => c.id), [...CLIENT_IDS]);
    assert.deepEqual(configs.filter((c) => c.via === 'bridge').map((c) => c.id), ['claude-desktop']);
  });

  for (const c of configs) test(c.name, () => checkAgainstDocs(c, opts));

  test('for any server name, variable and URL (property)', () => {
    const name = fc.stringMatching(/^[A-Za-z][A-Za-z0-9_-]{0,20}$/);
    const tokenEnv = fc.stringMatching(/^[A-Z_][A-Z0-9_]{0,20}$/);
    const url = fc.tuple(fc.constantFrom('http', 'https'), fc.domain(), fc.option(fc.integer({ min: 1, max: 65535 }), { nil: undefined }), fc.constantFrom('/mcp', '/tools/mcp', '/mcp?mode=search'));
    fc.assert(
      fc.property(name, tokenEnv, url, (n, env, [scheme, host, port, path]) => {
        const endpoint = new URL(`${scheme}://${host}${port === undefined ? '' : `:${port}`}${path}`).href;
        const o = { url: endpoint, tokenEnv: env, name: n };
        for (const c of clientConfigs(o)) checkAgainstDocs(c, o);
      }),
      { numRuns: 60 },
    );
  });

  test('a URL naming only the host gets /mcp', () => {
    for (const c of clientConfigs({ ...opts, url: 'http://127.0.0.1:8080' })) assert.match(c.text, /http:\/\/127\.0\.0\.1:8080\/mcp/);
  });
});

describe('toolhost clients on the command line', () => {
  test('--json prints the same configurations; a bad --url is one line', async () => {
    const bin = join(ROOT, 'bin/toolhost.js');
    const [ok, bad] = await Promise.all([
      run(process.execPath, [bin, 'clients', '--json', '--url', 'https://tools.example.com/mcp']),
      run(process.execPath, [bin, 'clients', '--url', 'ftp://nope']).then(
        () => assert.fail('accepted an ftp URL'),
        (err: { code: number; stderr: string }) => err,
      ),
    ]);
    assert.deepEqual(JSON.parse(ok.stdout), clientConfigs({ url: 'https://tools.example.com/mcp', tokenEnv: 'TOOLHOST_TOKEN', name: 'toolhost', bin }));
    assert.equal(bad.code, 2);
    assert.equal(bad.stderr, 'toolhost: --url must be an http:// or https:// URL, e.g. https://tools.example.com/mcp\n');
  });
});
