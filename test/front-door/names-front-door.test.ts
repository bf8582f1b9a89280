// MCP names by meaning over the real front door (docs/mcp.md "Names"): the
// official SDK client lists, over Streamable HTTP, a catalog whose toolIds
// are too long for 64 characters (two connectors describing the same API, in
// the manner of GitHub's operation names) beside an MCP server whose
// `mcpPrefix` is "": every name is unique, inside the MCP grammar, readable
// (no hash), and calls reach the tool it names.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { hashApiKey } from '../../src/auth/api-keys.js';
import { startTestServer, tempDir, writeConfig, type TestServer } from '../helpers/server.js';
import { connect, FIXTURE, listAll, root } from './front-door-helpers.js';
import { programArgs } from '../helpers/fixture-command.js';

const GROUPS = ['actions', 'code-security', 'enterprise-team-memberships'];
const VERBS = ['list', 'get', 'set', 'delete'];
const TAILS = [
  'selected-repositories-enabled-github-actions-organization',
  'self-hosted-runner-group-repository-access-for-enterprise',
  'default-workflow-permissions-for-authenticated-user',
];

function document(): string {
  const paths: string[] = [];
  let n = 0;
  for (const group of GROUPS) {
    for (const verb of VERBS) {
      for (const tail of TAILS) {
        paths.push(`  /p${n++}:\n    get:\n      operationId: ${group}/${verb}-${tail}\n      responses: { '200': { description: ok } }`);
      }
    }
  }
  return `openapi: 3.0.3\ninfo: { title: long, version: '1' }\nservers: [{ url: 'http://127.0.0.1:9' }]\npaths:\n${paths.join('\n')}\n`;
}

let server: TestServer;
let client: Client;

before(async () => {
  const dir = tempDir();
  writeFileSync(join(dir, 'long.yaml'), document());
  const config = writeConfig(
    {
      tenants: { a: { tools: ['*'] } },
      principals: [{ id: 'pa', tenant: 'a', keyHash: hashApiKey('ka') }],
      sources: {
        connectors: [
          { id: 'github', document: 'long.yaml', watch: false },
          { id: 'ghe', document: 'long.yaml', watch: false },
        ],
        mcp: [{ id: 'fx', transport: 'stdio', command: process.execPath, args: [...programArgs(FIXTURE), '--transport', 'stdio'], cwd: root, mcpPrefix: '' }],
      },
    },
    dir,
  );
  server = await startTestServer(config);
  client = await connect(server.url, 'ka');
});

after(async () => {
  await client?.close();
  await server?.close();
});

test('long toolIds get unique, valid, readable names; mcpPrefix "" leaves the server\'s own names', async () => {
  const { tools } = await listAll(client);
  const names = tools.map((t) => t.name);
  const operations = names.filter((n) => /workflow-perm|selected-repo|runner-group/.test(n));
  assert.equal(operations.length, 2 * GROUPS.length * VERBS.length * TAILS.length, 'every operation of both connectors is listed');
  assert.equal(new Set(names).size, names.length, 'names are unique');
  for (const name of names) {
    assert.match(name, /^[A-Za-z0-9_-]{1,64}$/);
    assert.doesNotMatch(name, /_[0-9a-f]{8}$/, `${name} is hashed`);
  }
  assert.ok(names.includes('echo'), 'the MCP server with mcpPrefix "" keeps its own tool names');
  // Two connectors with the same operations: each name still says which one it is.
  for (const name of names.filter((n) => /runner-group/.test(n))) assert.match(name, /^(github|ghe)_/);
});

test('a shortened name calls the tool it names', async () => {
  const echo = await client.callTool({ name: 'echo', arguments: { message: 'hi' } });
  assert.deepEqual(echo.structuredContent, { message: 'hi' });
  const { tools } = await listAll(client);
  const name = tools.map((t) => t.name).find((n) => n.startsWith('ghe_') && n.includes('list-self-hosted'))!;
  assert.ok(name, 'a ghe operation is listed');
  // The connector's API is unreachable: an error result, not "Unknown tool", proves the name resolved.
  const result = await client.callTool({ name, arguments: {} });
  assert.equal(result.isError, true);
  assert.doesNotMatch(JSON.stringify(result.content), /Unknown tool/);
});
