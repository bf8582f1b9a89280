// Shared set-up for the MCP front-door tests: a host with one tool of every
// source (a pack, a host extension, the fixture MCP server, a connector on a
// local HTTP API, workflows), two tenants, and an event log in a temp dir.
import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer, type Server as HttpServer } from 'node:http';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { hashApiKey } from '../../src/auth/api-keys.js';
import { tempDir, writeConfig } from '../helpers/server.js';
import { programArgs } from '../helpers/fixture-command.js';

export const root = new URL('../../', import.meta.url).pathname;
export const FIXTURE = `${root}test/fixtures/mcp-fixture/server.ts`;
export const CANARY_ARG = 'canary-argument-5d1e';
export const CANARY_RESULT = 'canary-result-8f3b';

const HANDLERS = `
export const handlers = {
  't.upper': ({ text }) => ({ text: String(text).toUpperCase(), note: '${CANARY_RESULT}' }),
  't.fail': () => { throw new Error('the pack tool broke'); },
  't.wait': ({ ms }, { signal }) => new Promise((resolve, reject) => {
    const timer = setTimeout(() => resolve({ waited: ms }), ms);
    signal.addEventListener('abort', () => { clearTimeout(timer); reject(signal.reason); });
  }),
};
`;

const MANIFEST = `pack: t
handlers: ./handlers.mjs
tools:
  - typeId: t.upper
    title: Upper
    inputSchema: { type: object, properties: { text: { type: string } }, required: [text], additionalProperties: false }
    outputSchema: { type: object, properties: { text: { type: string }, note: { type: string } } }
  - typeId: t.fail
    inputSchema: { type: object, properties: {} }
  - typeId: t.wait
    inputSchema: { type: object, properties: { ms: { type: integer, minimum: 0 } }, required: [ms] }
`;

/** A tiny local API for the connector: GET /items/{id} echoes, POST /items creates. */
export async function startApi(): Promise<{ server: HttpServer; url: string; seen: { auth?: string; traceparent?: string }[] }> {
  const seen: { auth?: string; traceparent?: string }[] = [];
  const server = createServer((req, res) => {
    seen.push({ auth: req.headers.authorization, traceparent: req.headers.traceparent as string | undefined });
    const m = /^\/items\/([^/?]+)/.exec(req.url ?? '');
    res.setHeader('content-type', 'application/json');
    if (req.method === 'GET' && m) res.end(JSON.stringify({ id: decodeURIComponent(m[1]), name: 'widget' }));
    else {
      res.statusCode = 404;
      res.end('{"error":"no"}');
    }
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const address = server.address() as { port: number };
  return { server, url: `http://127.0.0.1:${address.port}`, seen };
}

const OPENAPI = (baseUrl: string) => `openapi: 3.0.3
info: { title: items, version: '1' }
servers: [{ url: ${baseUrl} }]
paths:
  /items/{id}:
    get:
      operationId: getItem
      summary: Get an item
      security: [{ bearer: [] }]
      parameters:
        - { name: id, in: path, required: true, schema: { type: string } }
      responses:
        '200':
          description: ok
          content: { application/json: { schema: { type: object, properties: { id: { type: string }, name: { type: string } } } } }
components:
  securitySchemes:
    bearer: { type: http, scheme: bearer }
`;

export interface FrontDoorWorld {
  configFile: string;
  dir: string;
  eventsFile: string;
  env: NodeJS.ProcessEnv;
}

export const API_SECRET = 'api-secret-0c4f7e21';

export function writeWorld(apiUrl: string, extra: Record<string, unknown> = {}): FrontDoorWorld {
  const dir = tempDir();
  mkdirSync(join(dir, 'pack'));
  writeFileSync(join(dir, 'pack', 'toolpack.yaml'), MANIFEST);
  writeFileSync(join(dir, 'pack', 'handlers.mjs'), HANDLERS);
  writeFileSync(join(dir, 'items.yaml'), OPENAPI(apiUrl));
  mkdirSync(join(dir, 'wf'));
  writeFileSync(join(dir, 'wf', 'shout.yaml'), 'id: shout\ninputSchema: { type: object, properties: { text: { type: string } }, required: [text] }\nsteps:\n  - tool: openwop:t.upper\n    with: { text: { $input: text } }\n  - tool: openwop:t.upper\n    with: { text: { $step: 0, path: text } }\n');
  const eventsFile = join(dir, 'events.sqlite');
  const configFile = writeConfig(
    {
      tenants: { a: { tools: ['*'] }, b: { tools: ['openwop:t.upper', 'mcp:fx.echo'] } },
      principals: [
        { id: 'pa', tenant: 'a', keyHash: hashApiKey('ka'), scopes: ['exec'] },
        { id: 'pb', tenant: 'b', keyHash: hashApiKey('kb') },
      ],
      events: { file: eventsFile },
      mcp: { pageSize: 3, callTimeoutMs: 1500 },
      policy: {
        rules: [
          { match: 'openwop:t.*', safetyTier: 'pure', replayPolicy: 'deterministic', egress: 'none' },
          { match: 'mcp:fx.echo', safetyTier: 'read', replayPolicy: 'deterministic', egress: 'none' },
          { match: 'x-host-test-args', safetyTier: 'exec', approval: 'always', scopes: ['exec'] },
        ],
      },
      sources: {
        nodePacks: [{ path: 'pack' }],
        workflows: [{ path: 'wf' }],
        hostExtensions: [
          { vendor: 'test', name: 'args', command: [process.execPath, '-e', 'process.stdout.write(JSON.stringify(process.argv.slice(1)))'], argv: ['items'], inputSchema: { type: 'object', properties: { items: { type: 'array', items: { type: 'string' } } } } },
          { vendor: 'test', name: 'print', command: [process.execPath, '-e', 'process.stdout.write(JSON.stringify(process.argv.slice(1)))'], argv: ['value'], inputSchema: { type: 'object', properties: { value: { type: 'string' } } } },
        ],
        mcp: [{ id: 'fx', transport: 'stdio', command: process.execPath, args: [...programArgs(FIXTURE), '--transport', 'stdio'], cwd: root, debounceMs: 20, callTimeoutMs: 1500 }],
        connectors: [{ id: 'items', document: 'items.yaml', auth: { type: 'bearer', secret: { env: 'ITEMS_TOKEN' } } }],
      },
      ...extra,
    },
    dir,
  );
  return { configFile, dir, eventsFile, env: { ...process.env, ITEMS_TOKEN: API_SECRET } };
}

export async function connect(url: string, key: string, options: { elicit?: 'accept' | 'decline' | 'none'; path?: string } = {}): Promise<Client> {
  const elicit = options.elicit ?? 'none';
  const client = new Client({ name: 'toolhost-test', version: '1.0.0' }, { capabilities: elicit === 'none' ? {} : { elicitation: {} } });
  if (elicit !== 'none') {
    client.setRequestHandler(ElicitRequestSchema, async () => (elicit === 'accept' ? { action: 'accept', content: { approve: true } } : { action: 'decline' }));
  }
  const transport = new StreamableHTTPClientTransport(new URL(`${url}${options.path ?? '/mcp'}`), { requestInit: { headers: { authorization: `Bearer ${key}` } } });
  await client.connect(transport);
  return client;
}

export async function listAll(client: Client): Promise<{ tools: Awaited<ReturnType<Client['listTools']>>['tools']; pages: number }> {
  const tools = [];
  let cursor: string | undefined;
  let pages = 0;
  do {
    const page = await client.listTools(cursor === undefined ? {} : { cursor });
    tools.push(...page.tools);
    cursor = page.nextCursor;
    pages++;
  } while (cursor !== undefined);
  return { tools, pages };
}
