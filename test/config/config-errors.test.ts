// Broken config files fail at start with the file, the place inside it and
// what is wrong, every problem at once.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { promisify } from 'node:util';
import pino from 'pino';
import { startHost } from '../../src/host/host.js';
import { ConfigError } from '../../src/util/validated-yaml.js';
import { demoConfig, tempDir, writeConfig } from '../helpers/server.js';
import { patient } from '../helpers/patience.js';

const KEY_HASH = `sha256:${'a'.repeat(64)}`;
const silent = pino({ level: 'silent' });

function pack(dir: string, name: string, manifest: string, handlers = "export const handlers = { 'x.one': () => 1 };\n"): void {
  mkdirSync(join(dir, name), { recursive: true });
  writeFileSync(join(dir, name, 'toolpack.yaml'), manifest);
  writeFileSync(join(dir, name, 'handlers.mjs'), handlers);
}

const goodManifest = 'pack: p\nhandlers: ./handlers.mjs\ntools:\n  - typeId: x.one\n';

async function expectConfigError(file: string): Promise<string[]> {
  try {
    const host = await startHost(file, { logger: silent });
    await host.stop();
  } catch (err) {
    assert.ok(err instanceof ConfigError, `expected ConfigError, got ${String(err)}`);
    return err.problems;
  }
  assert.fail('the config was accepted');
}

interface Case {
  name: string;
  text: string;
  setup?: (dir: string) => void;
  /** Each pattern must appear in one problem line. */
  expect: RegExp[];
}

const cases: Case[] = [
  { name: 'bad YAML', text: 'tenants:\n  acme: { tools: [a\n', expect: [/toolhost\.yaml:\d+:\d+: invalid YAML/] },
  { name: 'unknown key', text: 'tenants:\n  acme:\n    tools: ["*"]\n    toolz: []\n', expect: [/toolhost\.yaml:4:5: \/tenants\/acme\/toolz: unknown key "toolz"/] },
  { name: 'missing tenants', text: 'principals: []\n', expect: [/toolhost\.yaml:1:1: \/: missing required key "tenants"/] },
  {
    name: 'bad glob',
    text: 'tenants:\n  acme:\n    tools: ["openwop:[abc"]\n',
    expect: [/toolhost\.yaml:3:\d+: \/tenants\/acme\/tools\/0: does not match/],
  },
  {
    name: 'principal of an unknown tenant, and a bad key hash, both reported',
    text: `tenants:\n  acme: { tools: ["*"] }\nprincipals:\n  - { id: a, tenant: acme, keyHash: "md5:xyz" }\n  - { id: b, tenant: nobody, keyHash: "${KEY_HASH}" }\n`,
    expect: [/:4:\d+: \/principals\/0\/keyHash: is not a key hash/, /:5:\d+: \/principals\/1\/tenant: unknown tenant "nobody"/],
  },
  {
    name: 'a schema problem and a cross-reference problem in one pass',
    text: `tenants:\n  acme: { tools: ["*"], toolz: [] }\nprincipals:\n  - { id: b, tenant: nobody, keyHash: "${KEY_HASH}" }\n`,
    expect: [/:2:\d+: \/tenants\/acme\/toolz: unknown key "toolz"; did you mean "tools"\?/, /:4:\d+: \/principals\/0\/tenant: unknown tenant "nobody"/],
  },
  {
    name: 'did you mean, for a misspelt key at any depth',
    text: 'servr: { port: 1 }\ntenants:\n  acme: { tools: ["*"], mcpveiw: compact }\n',
    expect: [/:1:1: \/servr: unknown key "servr"; did you mean "server"\?/, /:3:\d+: \/tenants\/acme\/mcpveiw: unknown key "mcpveiw"; did you mean "mcpView"\?/],
  },
  {
    name: 'no suggestion when nothing is close',
    text: 'tenants:\n  acme: { tools: ["*"], colour: blue }\n',
    expect: [/\/tenants\/acme\/colour: unknown key "colour"$/],
  },
  {
    name: 'an API key pasted where its hash belongs: a hint, and the key is not echoed',
    text: 'tenants:\n  acme: { tools: ["*"] }\nprincipals:\n  - { id: a, tenant: acme, keyHash: "sk-live-pasted-raw-key" }\n',
    expect: [/:4:\d+: \/principals\/0\/keyHash: is not a key hash .*run `toolhost hash-key`/],
  },
  {
    name: 'unknown tenant referenced by a principal',
    text: `tenants:\n  acme: { tools: ["*"] }\nprincipals:\n  - { id: b, tenant: nobody, keyHash: "${KEY_HASH}" }\n`,
    expect: [/toolhost\.yaml:4:\d+: \/principals\/0\/tenant: unknown tenant "nobody"/],
  },
  {
    name: 'exec as a default for node-pack',
    text: 'tenants:\n  acme: { tools: ["*"] }\npolicy:\n  defaults:\n    node-pack: { safetyTier: exec }\n',
    expect: [/:5:\d+: \/policy\/defaults\/node-pack\/safetyTier: must be one of "pure", "read", "write"/],
  },
  {
    name: 'exec rule on a node-pack tool',
    text: 'tenants:\n  acme: { tools: ["*"] }\npolicy:\n  rules:\n    - { match: "openwop:*", safetyTier: exec }\nsources:\n  nodePacks: [{ path: p }]\n',
    setup: (dir) => pack(dir, 'p', goodManifest),
    expect: [/openwop:x\.one .*policy rule #1 sets safetyTier exec, which only host-extension tools may have/],
  },
  {
    name: 'duplicate toolId across packs',
    text: 'tenants:\n  acme: { tools: ["*"] }\nsources:\n  nodePacks: [{ path: p }, { path: q }]\n',
    setup: (dir) => {
      pack(dir, 'p', goodManifest);
      pack(dir, 'q', goodManifest.replace('pack: p', 'pack: q'));
    },
    expect: [/duplicate toolId openwop:x\.one: declared by .*p\/toolpack\.yaml:4:\d+: \/tools\/0 and by .*q\/toolpack\.yaml:4:\d+: \/tools\/0/],
  },
  {
    name: 'missing handler',
    text: 'tenants:\n  acme: { tools: ["*"] }\nsources:\n  nodePacks: [{ path: p }]\n',
    setup: (dir) => pack(dir, 'p', goodManifest + '  - typeId: x.two\n'),
    expect: [/toolpack\.yaml:5:\d+: \/tools\/1\/typeId: handler module \.\/handlers\.mjs exports no function "x\.two"/],
  },
  {
    name: 'missing pack manifest',
    text: 'tenants:\n  acme: { tools: ["*"] }\nsources:\n  nodePacks: [{ path: nowhere }]\n',
    expect: [/toolhost\.yaml:4:\d+: \/sources\/nodePacks\/0\/path: pack manifest .*nowhere.* does not exist/],
  },
  {
    name: 'workflow step naming a tool that does not exist',
    text: 'tenants:\n  acme: { tools: ["*"] }\nsources:\n  workflows: [{ path: wf.yaml }]\n',
    setup: (dir) => writeFileSync(join(dir, 'wf.yaml'), 'id: w\nsteps:\n  - tool: openwop:not.there\n'),
    expect: [/workflow:w .*wf\.yaml.*step calls openwop:not\.there, which is not in the catalog/],
  },
  {
    name: 'workflow cycle',
    text: 'tenants:\n  acme: { tools: ["*"] }\nsources:\n  workflows: [{ path: wfs }]\n',
    setup: (dir) => {
      mkdirSync(join(dir, 'wfs'));
      writeFileSync(join(dir, 'wfs', 'a.yaml'), 'id: a\nsteps:\n  - tool: workflow:b\n');
      writeFileSync(join(dir, 'wfs', 'b.yaml'), 'id: b\nsteps:\n  - tool: workflow:a\n');
    },
    expect: [/workflow cycle: workflow:a -> workflow:b -> workflow:a/],
  },
  {
    name: 'invalid pack manifest key',
    text: 'tenants:\n  acme: { tools: ["*"] }\nsources:\n  nodePacks: [{ path: p }]\n',
    setup: (dir) => pack(dir, 'p', 'pack: p\nhandlers: ./handlers.mjs\ntools:\n  - typeId: x.one\n    safetyTier: pure\n'),
    expect: [/toolpack\.yaml:5:5: \/tools\/0\/safetyTier: unknown key "safetyTier"/],
  },
  {
    name: 'search embeddings: a URL that is not http(s), a key written in the file, a timeout out of range',
    text: 'tenants:\n  acme: { tools: ["*"] }\nsearch:\n  embeddings:\n    url: "ftp://models.local/v1/embeddings"\n    model: m\n    apiKey: "sk-pasted-key"\n    timeoutMs: 0\n',
    expect: [/toolhost\.yaml:5:\d+: \/search\/embeddings\/url: /, /toolhost\.yaml:7:\d+: \/search\/embeddings\/apiKey: /, /toolhost\.yaml:8:\d+: \/search\/embeddings\/timeoutMs: /],
  },
  {
    name: 'search embeddings: the key\'s environment variable unset',
    text: 'tenants:\n  acme: { tools: ["*"] }\nsearch:\n  embeddings: { url: "http://127.0.0.1:9/v1/embeddings", model: m, apiKey: { env: TOOLHOST_TEST_UNSET_EMBEDDINGS_KEY } }\n',
    expect: [/toolhost\.yaml: search\.embeddings\.apiKey: environment variable TOOLHOST_TEST_UNSET_EMBEDDINGS_KEY is not set/],
  },
  {
    name: 'duplicate YAML key',
    text: 'tenants:\n  acme: { tools: ["*"] }\n  acme: { tools: [] }\n',
    expect: [/toolhost\.yaml:3:\d+: invalid YAML: Map keys must be unique/],
  },
  {
    name: 'host extension with a vendor outside the grammar',
    text: 'tenants:\n  acme: { tools: ["*"] }\nsources:\n  hostExtensions:\n    - { vendor: "Ac-me", name: run, command: [ls] }\n',
    expect: [/:5:\d+: \/sources\/hostExtensions\/0\/vendor: does not match/],
  },
];

for (const c of cases) {
  test(`config error: ${c.name}`, async () => {
    const dir = tempDir();
    c.setup?.(dir);
    const file = writeConfig(c.text, dir);
    const problems = await expectConfigError(file);
    for (const re of c.expect) assert.ok(problems.some((p) => re.test(p)), `no problem matches ${re}:\n${problems.join('\n')}`);
    assert.ok(!problems.some((p) => p.includes('sk-live-pasted-raw-key')), 'a pasted key was echoed');
  });
}

test('all problems of a file are reported at once', async () => {
  const file = writeConfig('tenants:\n  acme:\n    tools: ["*"]\n    extra: 1\nprincipals:\n  - { id: a, tenant: acme }\nbogus: true\n');
  const problems = await expectConfigError(file);
  assert.ok(problems.length >= 3, problems.join('\n'));
});

test('the CLI exits 2 and prints the problems with their places', async () => {
  const file = writeConfig('tenants:\n  acme:\n    tools: ["*"]\n    toolz: []\n');
  const run = promisify(execFile);
  const cli = new URL('../../src/cli/main.ts', import.meta.url).pathname;
  const result = await run(process.execPath, ['--import', 'tsx', cli, 'validate', '--config', file]).then(
    () => assert.fail('validate accepted a broken file'),
    (err: { code: number; stderr: string }) => err,
  );
  assert.equal(result.code, 2);
  assert.match(result.stderr, /toolhost\.yaml:4:5: \/tenants\/acme\/toolz: unknown key "toolz"/);
});

test('validate passes on the demo as shipped (no variable to set) and prints per-tenant tool counts', async () => {
  const run = promisify(execFile);
  const cli = new URL('../../src/cli/main.ts', import.meta.url).pathname;
  // A copy: validate starts the host, which opens the config's event log.
  const env: NodeJS.ProcessEnv = { ...process.env, CI: '' };
  delete env.TICKETS_API_TOKEN;
  const { stdout } = await run(process.execPath, ['--import', 'tsx', cli, 'validate', '--config', demoConfig(), '--wait', String(patient(30_000) / 1000)], { env });
  assert.match(stdout, /\nvalid\n$/);
  assert.match(stdout, /tenant acme: \d+ tools \(.*node-pack \d+.*\)/);
  assert.match(stdout, /tenant globex: \d+ tools/);
});
