// The clients of the call benchmark (bench/calls.ts): each makes tools/call
// requests one after the other and records every call's latency. A plain SDK
// client over stdio straight to the upstream (the reference a call through
// the front door is held against), the official SDK client over Streamable
// HTTP, and a raw keep-alive HTTP client that does nothing but POST JSON-RPC
// with the session header and read the answer (JSON or SSE).
import { setMaxListeners } from 'node:events';
import { Agent, request as httpRequest } from 'node:http';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

export interface CallTarget {
  name: string;
  arguments: Record<string, unknown>;
}

/** One client's latencies (ms) over `calls` sequential calls, and the wall time of them all. */
export interface ClientRun {
  latenciesMs: number[];
  wallMs: number;
  errors: number;
}

/** A client that can make one call at a time; `close` ends its session and connection. */
export interface CallClient {
  call(target: CallTarget): Promise<{ isError: boolean }>;
  close(): Promise<void>;
}

export async function runSequential(client: CallClient, target: CallTarget, calls: number): Promise<ClientRun> {
  const latenciesMs: number[] = [];
  let errors = 0;
  const start = performance.now();
  for (let i = 0; i < calls; i++) {
    const t = performance.now();
    const { isError } = await client.call(target);
    latenciesMs.push(performance.now() - t);
    if (isError) errors++;
  }
  return { latenciesMs, wallMs: performance.now() - start, errors };
}

const CLIENT_INFO = { name: 'toolhost-bench', version: '1.0.0' };

/** A plain SDK client speaking stdio to a server it spawns. */
export async function stdioClient(command: string, args: string[], cwd: string): Promise<CallClient> {
  const client = new Client(CLIENT_INFO);
  await client.connect(new StdioClientTransport({ command, args, cwd, stderr: 'ignore' }));
  return {
    call: async (target) => ({ isError: (await client.callTool(target)).isError === true }),
    close: () => client.close(),
  };
}

/** The official SDK client over Streamable HTTP. */
export async function sdkHttpClient(url: string, authorization: string): Promise<CallClient> {
  // Each of its POSTs leaves an abort listener on the transport's signal until collected: thousands of calls
  // would print a MaxListenersExceededWarning per call, in the bench process, while it measures.
  setMaxListeners(0);
  const client = new Client(CLIENT_INFO);
  const transport = new StreamableHTTPClientTransport(new URL('/mcp', url), { requestInit: { headers: { authorization } } });
  await client.connect(transport);
  return {
    call: async (target) => ({ isError: (await client.callTool(target)).isError === true }),
    close: async () => {
      await transport.terminateSession().catch(() => undefined);
      await client.close();
    },
  };
}

type Rpc = { id?: number; result?: { isError?: boolean }; error?: { code: number; message: string } };

/**
 * A raw keep-alive HTTP client: one socket, JSON-RPC POSTs. Finds the answer
 * in a JSON body or in the SSE events of the response; no validation beyond
 * that, so what it measures is the server.
 */
export class RawHttpClient implements CallClient {
  private readonly agent = new Agent({ keepAlive: true, maxSockets: 1 });
  private sessionId: string | undefined;
  private nextId = 1;

  private constructor(
    private readonly url: URL,
    private readonly authorization: string,
  ) {}

  static async open(url: string, authorization: string): Promise<RawHttpClient> {
    const client = new RawHttpClient(new URL('/mcp', url), authorization);
    const init = await client.post({ jsonrpc: '2.0', id: client.nextId++, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: CLIENT_INFO } });
    if (init.status !== 200 || init.sessionId === undefined) throw new Error(`initialize: HTTP ${init.status} ${init.body}`);
    client.sessionId = init.sessionId;
    const initialized = await client.post({ jsonrpc: '2.0', method: 'notifications/initialized' });
    if (initialized.status !== 202) throw new Error(`notifications/initialized: HTTP ${initialized.status}`);
    return client;
  }

  async call(target: CallTarget): Promise<{ isError: boolean }> {
    const id = this.nextId++;
    const res = await this.post({ jsonrpc: '2.0', id, method: 'tools/call', params: target });
    const answer = answerOf(res.body, res.contentType, id);
    if (res.status !== 200 || answer === undefined || answer.error !== undefined) throw new Error(`tools/call: HTTP ${res.status} ${res.body.slice(0, 300)}`);
    return { isError: answer.result?.isError === true };
  }

  async close(): Promise<void> {
    if (this.sessionId !== undefined) await this.send('DELETE', undefined).catch(() => undefined);
    this.agent.destroy();
  }

  private post(body: unknown) {
    return this.send('POST', JSON.stringify(body));
  }

  private send(method: string, body: string | undefined): Promise<{ status: number; sessionId?: string; contentType: string; body: string }> {
    const headers: Record<string, string> = { accept: 'application/json, text/event-stream' };
    if (this.authorization !== '') headers.authorization = this.authorization;
    if (body !== undefined) Object.assign(headers, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) });
    if (this.sessionId !== undefined) headers['mcp-session-id'] = this.sessionId;
    return new Promise((resolve, reject) => {
      const req = httpRequest(this.url, { method, headers, agent: this.agent }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            sessionId: res.headers['mcp-session-id'] as string | undefined,
            contentType: res.headers['content-type'] ?? '',
            body: Buffer.concat(chunks).toString('utf8'),
          }),
        );
        res.on('error', reject);
      });
      req.on('error', reject);
      req.end(body);
    });
  }
}

/** The JSON-RPC answer with this id in a JSON body or among a response's SSE events. */
function answerOf(body: string, contentType: string, id: number): Rpc | undefined {
  const messages: Rpc[] = contentType.includes('text/event-stream')
    ? body
        .split('\n\n')
        .map((event) => event.split('\n').filter((l) => l.startsWith('data:')).map((l) => l.slice(5).trimStart()).join('\n'))
        .filter((data) => data !== '')
        .map((data) => JSON.parse(data) as Rpc)
    : body === ''
      ? []
      : [JSON.parse(body) as Rpc];
  return messages.find((m) => m.id === id);
}
