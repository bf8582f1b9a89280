// A bare Streamable HTTP MCP client for the front-door tests that need what
// the SDK client will not do: answer an elicitation with a malformed result
// or an error, declare odd capabilities, send malformed params, never open
// the GET stream, drop a connection mid-call, or switch credentials
// mid-session. Speaks JSON-RPC over fetch and reads SSE answers.

export type Message = { jsonrpc: '2.0'; id?: number | string; method?: string; params?: any; result?: any; error?: { code: number; message: string } };

/** The JSON-RPC messages of one response: a JSON body, or each SSE event's data. */
async function* messagesOf(res: Response): AsyncGenerator<Message> {
  if (!(res.headers.get('content-type') ?? '').includes('text/event-stream')) {
    const text = await res.text();
    if (text) yield JSON.parse(text) as Message;
    return;
  }
  const decoder = new TextDecoder();
  let buffer = '';
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    buffer += decoder.decode(chunk, { stream: true });
    let end: number;
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const event = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const data = event.split('\n').filter((l) => l.startsWith('data:')).map((l) => l.slice(5).trimStart()).join('\n');
      if (data) yield JSON.parse(data) as Message;
    }
  }
}

export interface CallOutcome {
  /** The call's own answer; undefined when the connection was dropped first. */
  answer?: Message;
  /** Elicitation requests that arrived on the call's stream. */
  elicitations: Message[];
}

export class RawMcp {
  sessionId?: string;
  private nextId = 1;

  constructor(
    readonly url: string,
    /** The bearer credential of the next request (tests change it mid-session). */
    public token: string,
    readonly path = '/mcp',
  ) {}

  post(body: unknown, signal?: AbortSignal): Promise<Response> {
    const headers: Record<string, string> = {
      authorization: `Bearer ${this.token}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    };
    if (this.sessionId) headers['mcp-session-id'] = this.sessionId;
    return fetch(`${this.url}${this.path}`, { method: 'POST', headers, body: JSON.stringify(body), signal });
  }

  /** initialize + notifications/initialized; throws with the answer when refused. */
  async initialize(capabilities: Record<string, unknown> = {}): Promise<Message> {
    const res = await this.post({ jsonrpc: '2.0', id: this.nextId++, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities, clientInfo: { name: 'raw', version: '1' } } });
    if (!res.ok) throw Object.assign(new Error(`initialize: HTTP ${res.status}`), { status: res.status, headers: res.headers, body: await res.text() });
    this.sessionId = res.headers.get('mcp-session-id') ?? undefined;
    let answer: Message | undefined;
    for await (const m of messagesOf(res)) answer = m;
    await (await this.post({ jsonrpc: '2.0', method: 'notifications/initialized' })).text();
    return answer!;
  }

  /** One request and its answer (ignoring anything else on its stream). */
  async request(method: string, params?: unknown): Promise<{ status: number; answer?: Message }> {
    const id = this.nextId++;
    const res = await this.post({ jsonrpc: '2.0', id, method, ...(params === undefined ? {} : { params }) });
    if (!res.ok) return { status: res.status, answer: JSON.parse((await res.text()) || 'null') ?? undefined };
    for await (const m of messagesOf(res)) if (m.id === id && m.method === undefined) return { status: res.status, answer: m };
    return { status: res.status };
  }

  /**
   * tools/call; each elicitation request arriving on the call's stream is
   * handed to `onElicit`, whose message (if any) is posted back as the
   * response. `drop` (when given) is aborted by the test to drop the connection.
   */
  async call(name: string, args: unknown, onElicit: (request: Message) => Record<string, unknown> | undefined = () => undefined, drop?: AbortController): Promise<CallOutcome> {
    const id = this.nextId++;
    const elicitations: Message[] = [];
    try {
      const res = await this.post({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } }, drop?.signal);
      if (!res.ok) return { answer: JSON.parse(await res.text()) as Message, elicitations };
      for await (const m of messagesOf(res)) {
        if (m.method === 'elicitation/create') {
          elicitations.push(m);
          const reply = onElicit(m);
          if (reply !== undefined) await (await this.post({ jsonrpc: '2.0', id: m.id, ...reply })).text();
        } else if (m.id === id) {
          return { answer: m, elicitations };
        }
      }
    } catch (err) {
      if (drop?.signal.aborted) return { elicitations };
      throw err;
    }
    return { elicitations };
  }

  async close(): Promise<void> {
    if (!this.sessionId) return;
    const headers = { authorization: `Bearer ${this.token}`, 'mcp-session-id': this.sessionId };
    await (await fetch(`${this.url}${this.path}`, { method: 'DELETE', headers })).text().catch(() => undefined);
  }
}
