// A hostile MCP upstream through the whole host (stdio and Streamable HTTP):
// schema patterns that take exponential time on a backtracking engine run in
// linear time, so the call and every other request are answered; a pattern
// the linear-time engine cannot run is reported per tool and loosened; the
// secrets the host gave the upstream (an env value, an Authorization header)
// never reach a caller, in any encoding, in a value or a key.
//
// No wall-clock assertion: "a"×33 + "!" takes a backtracking engine minutes
// (it doubles with every "a"; 27 already take seconds), so the bound is the
// test's own timeout.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { after, before, describe, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { hashApiKey } from '../../src/auth/api-keys.js';
import { connect } from '../front-door/front-door-helpers.js';
import { request, startTestServer, writeConfig, type TestServer } from '../helpers/server.js';
import { patient } from '../helpers/patience.js';
import { programArgs } from '../helpers/fixture-command.js';

const root = new URL('../../', import.meta.url).pathname;
const HOSTILE = `${root}test/fixtures/hostile-mcp.ts`;
const ENV_SECRET = 'env-leak-5b0c9e27d1f4';
const HEADER_SECRET = 'hdr-leak-7a3e51c90b2d';
const FAST = { connectTimeoutMs: patient(8000), pageTimeoutMs: 3000, backoff: { initialMs: 100, maxMs: 400 } };

let server: TestServer;
let client: Client;
let http: ChildProcess;
const names = new Map<string, string>();

type CallResult = { isError?: boolean; content: Array<{ type: string; text?: string }>; structuredContent?: unknown };
const call = (toolId: string, args: Record<string, unknown>) => client.callTool({ name: names.get(toolId)!, arguments: args }) as Promise<CallResult>;
const textOf = (r: CallResult) => r.content.map((c) => c.text ?? '').join('\n');

before(async () => {
  http = spawn(process.execPath, [...programArgs(HOSTILE), '--transport', 'http'], { stdio: ['ignore', 'pipe', 'ignore'] });
  const [chunk] = (await once(http.stdout!, 'data')) as [Buffer];
  const url = chunk.toString().trim().split('\n')[0];
  const file = writeConfig({
    tenants: { t: { tools: ['*'] } },
    principals: [{ id: 'p', tenant: 't', keyHash: hashApiKey('k') }],
    policy: { rules: [{ match: ['mcp:hx.*', 'mcp:hh.*'], safetyTier: 'read', replayPolicy: 'deterministic', egress: 'none' }] },
    sources: {
      mcp: [
        { id: 'hx', transport: 'stdio', command: process.execPath, args: [...programArgs(HOSTILE), '--transport', 'stdio'], cwd: root, env: { LEAK_SECRET: '${LEAK_SECRET}' }, ...FAST },
        { id: 'hh', transport: 'http', url, headers: { authorization: 'Bearer ${HH_TOKEN}' }, ...FAST },
      ],
    },
  });
  server = await startTestServer(file, { env: { ...process.env, LEAK_SECRET: ENV_SECRET, HH_TOKEN: HEADER_SECRET }, startDeadlineMs: patient(20_000) });
  client = await connect(server.url, 'k');
  const { tools } = await client.listTools();
  const ids = (await request(server.url, '/tools', { token: 'k' })).json() as Array<{ toolId: string }>;
  for (const { toolId } of ids) {
    const action = toolId.split('.').pop()!;
    const tool = tools.find((t) => t.name.endsWith(action) && t.name.includes(toolId.slice(4, 6)));
    if (tool) names.set(toolId, tool.name);
  }
  assert.equal(names.size, 8, `tools: ${tools.map((t) => t.name).join(', ')}`);
});

after(async () => {
  await client?.close();
  await server?.close();
  http?.kill('SIGKILL');
  const logs = server.logs.join('\n');
  assert.ok(!logs.includes(ENV_SECRET) && !logs.includes(HEADER_SECRET), 'a secret in the logs');
});

describe('patterns from an untrusted upstream run in linear time', { timeout: 30_000 }, () => {
  test('an input pattern with exponential backtracking: the call is refused and /healthz answers meanwhile', async () => {
    const [r, h] = await Promise.all([call('mcp:hx.pattern_in', { s: `${'a'.repeat(33)}!` }), request(server.url, '/healthz')]);
    assert.equal(h.status, 200);
    assert.equal(r.isError, true);
    assert.match(textOf(r), /must match pattern/);
    assert.equal((await call('mcp:hx.pattern_in', { s: 'aaaa' })).isError, undefined);
  });

  test('the same pattern in an outputSchema: the non-matching structuredContent is stopped, /healthz answers', async () => {
    const [r, h] = await Promise.all([call('mcp:hh.pattern_out', {}), request(server.url, '/healthz')]);
    assert.equal(h.status, 200);
    assert.equal(r.isError, true);
    assert.match(textOf(r), /outputSchema|structuredContent/);
  });

  test('a pattern RE2 cannot run (lookahead) is reported for its tool and loosened, never tightened', async () => {
    const warning = server.logs.find((l) => l.includes('mcp:hx.lookahead') && l.includes('linear-time engine'));
    assert.ok(warning, 'no catalog warning names the tool');
    assert.ok(warning.includes('/inputSchema/properties/s/pattern'), warning);
    // "y" does not match ^(?=x)x+$: accepted, since the pattern is not enforced.
    assert.equal((await call('mcp:hx.lookahead', { s: 'y' })).isError, undefined);
    // The rest of the schema still holds.
    assert.equal((await call('mcp:hx.lookahead', { s: 5 })).isError, true);
  });
});

describe('an upstream never hands a caller the secrets the host gave it', () => {
  const forms = (s: string) => [s, Buffer.from(s).toString('base64'), Buffer.from(s).toString('base64url'), encodeURIComponent(s)];

  for (const [id, secret] of [['mcp:hx.leak', ENV_SECRET], ['mcp:hh.leak', HEADER_SECRET]] as const) {
    test(`${id}: no form of the secret in the text, the structured values or the keys`, async () => {
      const r = await call(id, {});
      const whole = JSON.stringify(r);
      for (const form of forms(secret)) assert.ok(!whole.includes(form), `${form} reached the caller: ${whole}`);
      assert.match(textOf(r), /\[redacted\]/);
      const keys = Object.keys(r.structuredContent as object);
      assert.ok(keys.includes('[redacted]'), `keys: ${keys.join(', ')}`);
    });
  }
});
