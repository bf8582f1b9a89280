// A small MCP client over the Streamable HTTP transport (MCP 2025-11-25,
// docs/mcp.md): what "Try it" needs and nothing more. It declares form
// elicitation, so approval tools ask the person through the page; a call's
// answer may come as JSON or as an SSE stream that carries the host's
// elicitation request before the result, answered with a POST of its own.
import type { Api } from './api.js';
import { readSse } from './sse.js';

const PROTOCOL_VERSION = '2025-11-25';

interface JsonRpcMessage {
  jsonrpc: '2.0';
  id?: number | string;
  method?: string;
  params?: Record<string, unknown>;
  result?: Record<string, unknown>;
  error?: { code: number; message: string };
}

export interface ElicitRequest {
  message: string;
  requestedSchema?: Record<string, unknown>;
}

export type ElicitAnswer = { action: 'accept'; content: Record<string, unknown> } | { action: 'decline' } | { action: 'cancel' };

export interface CallResult {
  content?: { type: string; text?: string }[];
  structuredContent?: unknown;
  isError?: boolean;
}

export interface ListedTool {
  name: string;
  inputSchema?: Record<string, unknown>;
}

/** A JSON-RPC error answered by the host (an unknown tool, a refused approval). */
export class McpError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

/**
 * The tab's MCP session id survives a reload (sessionStorage, like the
 * credential), so reloading the page reuses the session instead of leaving one
 * behind each time for the host to expire.
 */
const SESSION_KEY = 'toolhost.mcpSession';

export class McpClient {
  private sessionId: string | undefined;
  private opening: Promise<void> | undefined;
  private nextId = 1;

  constructor(private readonly api: Api) {
    const kept = sessionStorage.getItem(SESSION_KEY);
    if (kept !== null) {
      this.sessionId = kept;
      this.opening = Promise.resolve();
    }
  }

  private headers(): Record<string, string> {
    return {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...(this.sessionId !== undefined ? { 'mcp-session-id': this.sessionId, 'mcp-protocol-version': PROTOCOL_VERSION } : {}),
    };
  }

  private async post(message: JsonRpcMessage): Promise<Response> {
    return this.api.fetch('/mcp', { method: 'POST', headers: this.headers(), body: JSON.stringify(message) });
  }

  /** initialize, then notifications/initialized; one session per sign-in, reopened if the host forgot it. */
  private open(): Promise<void> {
    this.opening ??= (async () => {
      const response = await this.post({
        jsonrpc: '2.0',
        id: this.nextId++,
        method: 'initialize',
        params: { protocolVersion: PROTOCOL_VERSION, capabilities: { elicitation: {} }, clientInfo: { name: 'toolhost-catalog-browser', version: '1.0.0' } },
      });
      this.sessionId = response.headers.get('mcp-session-id') ?? undefined;
      await this.answerOf(response, () => Promise.resolve({ action: 'cancel' }));
      await this.post({ jsonrpc: '2.0', method: 'notifications/initialized' });
      if (this.sessionId !== undefined) sessionStorage.setItem(SESSION_KEY, this.sessionId);
    })();
    this.opening.catch(() => (this.opening = undefined));
    return this.opening;
  }

  /** Sends a request and returns its result, answering elicitations on the way with `elicit`. */
  async request(method: string, params: Record<string, unknown>, elicit: (request: ElicitRequest) => Promise<ElicitAnswer> = () => Promise.resolve({ action: 'cancel' })): Promise<Record<string, unknown>> {
    await this.open();
    let response: Response;
    try {
      response = await this.post({ jsonrpc: '2.0', id: this.nextId++, method, params });
    } catch (err) {
      // A session the host closed (idle, restarted): open a new one once.
      if ((err as { status?: number }).status !== 404) throw err;
      this.sessionId = undefined;
      this.opening = undefined;
      sessionStorage.removeItem(SESSION_KEY);
      await this.open();
      response = await this.post({ jsonrpc: '2.0', id: this.nextId++, method, params });
    }
    return this.answerOf(response, elicit);
  }

  private async answerOf(response: Response, elicit: (request: ElicitRequest) => Promise<ElicitAnswer>): Promise<Record<string, unknown>> {
    const type = response.headers.get('content-type') ?? '';
    let answer: JsonRpcMessage | undefined;
    const take = async (message: JsonRpcMessage): Promise<void> => {
      if (message.method === 'elicitation/create' && message.id !== undefined) {
        const reply = await elicit(message.params as unknown as ElicitRequest);
        await this.post({ jsonrpc: '2.0', id: message.id, result: reply });
      } else if (message.method === undefined && (message.result !== undefined || message.error !== undefined)) {
        answer = message;
      }
    };
    if (type.includes('text/event-stream') && response.body !== null) {
      await readSse(response.body, async (m) => {
        if (m.data !== '') await take(JSON.parse(m.data) as JsonRpcMessage);
      });
    } else if (type.includes('application/json')) {
      const body = (await response.json()) as JsonRpcMessage | JsonRpcMessage[];
      for (const m of Array.isArray(body) ? body : [body]) await take(m);
    }
    const final = answer as JsonRpcMessage | undefined;
    if (final === undefined) throw new McpError(-32603, 'the host ended the answer without a result');
    if (final.error !== undefined) throw new McpError(final.error.code, final.error.message);
    return final.result ?? {};
  }

  callTool(name: string, args: Record<string, unknown>, elicit: (request: ElicitRequest) => Promise<ElicitAnswer>): Promise<CallResult> {
    return this.request('tools/call', { name, arguments: args }, elicit) as Promise<CallResult>;
  }

  /** One page of tools/list, from a cursor (docs/ui.md "MCP names"). */
  async listPage(cursor?: string): Promise<{ tools: ListedTool[]; nextCursor?: string }> {
    return (await this.request('tools/list', cursor === undefined ? {} : { cursor })) as { tools: ListedTool[]; nextCursor?: string };
  }

  /** Ends the session on sign-out (best effort). */
  async close(): Promise<void> {
    if (this.sessionId === undefined) return;
    const headers = this.api.headers({ 'mcp-session-id': this.sessionId, 'mcp-protocol-version': PROTOCOL_VERSION });
    this.sessionId = undefined;
    sessionStorage.removeItem(SESSION_KEY);
    await fetch('/mcp', { method: 'DELETE', headers, credentials: 'omit' }).catch(() => undefined);
  }
}
