// Shared set-up for the relay and tool-error tests: a host with a pack whose
// handlers report progress or break their outputSchema, a workflow of two
// pack steps, the fixture MCP server with its relay tools (progress, log,
// ask, sample, shaped, late, fire) isolated per tenant (fx) and shared by
// tenants (fxs), and server-everything; two tenants, and clients made with
// the official SDK Client over Streamable HTTP.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CreateMessageRequestSchema, ElicitRequestSchema, LoggingMessageNotificationSchema, type LoggingMessageNotification } from '@modelcontextprotocol/sdk/types.js';
import { hashApiKey } from '../../src/auth/api-keys.js';
import { startTestServer, tempDir, writeConfig, type TestServer } from '../helpers/server.js';
import { FIXTURE, root } from './front-door-helpers.js';
import { patient } from '../helpers/patience.js';
import { programArgs } from '../helpers/fixture-command.js';

export const EVERYTHING = `${root}node_modules/@modelcontextprotocol/server-everything/dist/index.js`;
export const FX_SECRET = 'fx-secret-7c2d9e41ab';

const HANDLERS = `
export const handlers = {
  'r.count': async ({ to }, { progress }) => {
    for (let i = 1; i <= to; i++) { progress(i, to, 'counted ' + i); await new Promise((r) => setTimeout(r, 5)); }
    return { counted: to };
  },
  'r.bad': () => ({ counted: 'lots' }),
};
`;

const MANIFEST = `pack: r
handlers: ./handlers.mjs
tools:
  - typeId: r.count
    inputSchema: { type: object, properties: { to: { type: integer, minimum: 0, maximum: 50 } }, required: [to], additionalProperties: false }
    outputSchema: { type: object, properties: { counted: { type: integer } }, required: [counted] }
  - typeId: r.bad
    inputSchema: { type: object, properties: {} }
    outputSchema: { type: object, properties: { counted: { type: integer } }, required: [counted] }
`;

/** With `httpFixture` (the fixture's URL over Streamable HTTP, --relay-tools): also served as fxh, shared by tenants. */
export async function startRelayWorld(httpFixture?: string): Promise<TestServer> {
  const dir = tempDir();
  mkdirSync(join(dir, 'pack'));
  writeFileSync(join(dir, 'pack', 'toolpack.yaml'), MANIFEST);
  writeFileSync(join(dir, 'pack', 'handlers.mjs'), HANDLERS);
  mkdirSync(join(dir, 'wf'));
  writeFileSync(join(dir, 'wf', 'count3.yaml'), 'id: count3\ninputSchema: { type: object, properties: {} }\nsteps:\n  - tool: openwop:r.count\n    with: { to: 2 }\n  - tool: openwop:r.count\n    with: { to: 3 }\n  - tool: openwop:r.count\n    with: { to: 1 }\n');
  const fast = { connectTimeoutMs: patient(20_000), debounceMs: 20 };
  const file = writeConfig(
    {
      tenants: { a: { tools: ['*'] }, b: { tools: ['mcp:fx.*', 'mcp:fxs.*', 'mcp:fxh.*'] } },
      principals: [
        { id: 'pa', tenant: 'a', keyHash: hashApiKey('ka') },
        { id: 'pb', tenant: 'b', keyHash: hashApiKey('kb') },
      ],
      events: { file: join(dir, 'events.sqlite') },
      mcp: { callTimeoutMs: 5000 },
      sources: {
        nodePacks: [{ path: 'pack' }],
        workflows: [{ path: 'wf' }],
        mcp: [
          { id: 'fx', transport: 'stdio', command: process.execPath, args: [...programArgs(FIXTURE), '--transport', 'stdio', '--relay-tools'], cwd: root, env: { FX_SECRET: '${FX_SECRET}' }, callTimeoutMs: 1000, isolation: 'tenant', ...fast },
          { id: 'fxs', transport: 'stdio', command: process.execPath, args: [...programArgs(FIXTURE), '--transport', 'stdio', '--relay-tools'], cwd: root, ...fast },
          ...(httpFixture === undefined ? [] : [{ id: 'fxh', transport: 'http', url: httpFixture, ...fast }]),
          { id: 'everything', transport: 'stdio', command: process.execPath, args: [EVERYTHING, 'stdio'], ...fast },
        ],
      },
    },
    dir,
  );
  return startTestServer(file, { env: { ...process.env, FX_SECRET }, startDeadlineMs: patient(20_000) });
}

export interface RelayClient {
  client: Client;
  /** Every notifications/message this client received, in order. */
  logs: LoggingMessageNotification['params'][];
  /** Elicitation requests this client was sent. */
  asked: unknown[];
}

/** A client of `key`; with `answers`, it declares elicitation and sampling and answers them. */
export async function relayClient(url: string, key: string, answers = false, path = '/mcp'): Promise<RelayClient> {
  const client = new Client({ name: 'relay-test', version: '1.0.0' }, { capabilities: answers ? { elicitation: {}, sampling: {} } : {} });
  const made: RelayClient = { client, logs: [], asked: [] };
  client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void made.logs.push(n.params));
  if (answers) {
    client.setRequestHandler(ElicitRequestSchema, async (req) => {
      made.asked.push(req.params);
      return { action: 'accept', content: { name: 'Ada' } };
    });
    client.setRequestHandler(CreateMessageRequestSchema, async () => ({ role: 'assistant', content: { type: 'text', text: 'sampled text' }, model: 'test-model' }));
  }
  await client.connect(new StreamableHTTPClientTransport(new URL(`${url}${path}`), { requestInit: { headers: { authorization: `Bearer ${key}` } } }));
  return made;
}
