// What an MCP server says and asks while one of its tools runs, handed to
// the call it belongs to (docs/mcp.md "Progress, logs and upstream requests").
// Progress carries a token of the call's own, so it is tied exactly. The
// tokens are ours, not the SDK's `onprogress`: the SDK drops a progress
// notification that arrives in the same read as the answer (its handler is
// gone by the time the notification is handled), and the last report of a
// call usually does. Log messages and elicitation/sampling requests carry
// nothing that names the call on a connection many calls share: they are
// tied to a call only while it is the one call in flight on this server. With
// two or more in flight, nobody can say whose they are, so a log message is
// dropped and a request refused with a reason; neither ever goes to another
// session's client.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { CreateMessageRequestSchema, ElicitRequestSchema, ErrorCode, LoggingMessageNotificationSchema, McpError, ProgressNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import type { CallRelay } from '../raw-tool.js';
import type { Redactor } from './redact.js';

/** Upstream log data longer than this (as JSON) is cut to a string of this length. */
const MAX_LOG_DATA_CHARS = 4_000;
const MAX_LOG_DATA_DEPTH = 16;

type ProgressListener = (progress: number, total?: number, message?: string) => void;

/** A call's progress token and the deadline its progress reports push out. */
export interface ProgressWatch {
  /** Goes in the request's `_meta.progressToken`. */
  token: string;
  /** Aborts with a RequestTimeout McpError when no report came for the call's timeout; follows the caller's signal too. */
  signal: AbortSignal;
  end(): void;
}

export class UpstreamCallRelay {
  private readonly inFlight = new Set<CallRelay>();
  private readonly progressByToken = new Map<string, (report: { progress: number; total?: number; message?: string }) => void>();
  private tokens = 0;

  constructor(
    private readonly serverId: string,
    private readonly redactor: Redactor,
  ) {}

  /** Runs one call with `relay` in flight. */
  async during<T>(relay: CallRelay, work: () => Promise<T>): Promise<T> {
    this.inFlight.add(relay);
    try {
      return await work();
    } finally {
      this.inFlight.delete(relay);
    }
  }

  /**
   * Declares what the host can relay and routes it. Must run before the
   * client connects (capabilities are part of the handshake).
   */
  attach(client: Client): void {
    client.registerCapabilities({ elicitation: { form: {}, url: {} }, sampling: {} });
    client.setNotificationHandler(ProgressNotificationSchema, (n) => this.progressByToken.get(String(n.params.progressToken))?.(n.params));
    client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
      const { level, data, logger } = n.params;
      this.sole()?.onLog?.(level, this.bounded(data), typeof logger === 'string' ? this.redactor.text(logger, 100) : undefined);
    });
    client.setRequestHandler(ElicitRequestSchema, (req, extra) => this.forward('elicitation/create', req.params, extra.signal));
    client.setRequestHandler(CreateMessageRequestSchema, (req, extra) => this.forward('sampling/createMessage', req.params, extra.signal) as never);
  }

  /**
   * A progress token for one call, and a deadline of `timeoutMs` that each
   * report restarts. The request's own timeout stays as the cap on the whole
   * call. `end()` once the answer is in: a report handled after it is dropped.
   */
  watchProgress(listener: ProgressListener, timeoutMs: number, outer: AbortSignal | undefined): ProgressWatch {
    const token = `toolhost-${++this.tokens}`;
    const controller = new AbortController();
    const expire = () => controller.abort(new McpError(ErrorCode.RequestTimeout, 'Request timed out', { timeout: timeoutMs }));
    let timer = setTimeout(expire, timeoutMs);
    const onOuter = () => controller.abort(outer?.reason);
    if (outer?.aborted) onOuter();
    outer?.addEventListener('abort', onOuter, { once: true });
    this.progressByToken.set(token, (report) => {
      clearTimeout(timer);
      timer = setTimeout(expire, timeoutMs);
      listener(report.progress, report.total, report.message);
    });
    return {
      token,
      signal: controller.signal,
      end: () => {
        clearTimeout(timer);
        outer?.removeEventListener('abort', onOuter);
        this.progressByToken.delete(token);
      },
    };
  }

  private sole(): CallRelay | undefined {
    if (this.inFlight.size !== 1) return undefined;
    return this.inFlight.values().next().value;
  }

  private async forward(method: 'elicitation/create' | 'sampling/createMessage', params: Record<string, unknown>, signal: AbortSignal): Promise<never> {
    const what = method === 'elicitation/create' ? 'elicitation' : 'sampling';
    const call = this.sole();
    if (call === undefined) {
      const why = this.inFlight.size === 0 ? 'no tool call of this server is in progress' : 'several tool calls of this server are in progress and the request names none of them';
      throw refusal(`toolhost cannot relay this ${what} request to mcp server ${this.serverId}'s caller: ${why}`);
    }
    if (call.requestFromCaller === undefined) throw refusal(`the caller of this tool call cannot be asked (${what})`);
    return (await call.requestFromCaller.send(method, params, signal)) as never;
  }

  /**
   * Upstream log data as a log line of the host's own would be: configured
   * values and credential patterns masked in every string, bounded in size.
   */
  private bounded(data: unknown): unknown {
    const walk = (v: unknown, depth: number): unknown => {
      if (typeof v === 'string') return this.redactor.text(v, MAX_LOG_DATA_CHARS);
      if (v === null || typeof v !== 'object') return v;
      if (depth > MAX_LOG_DATA_DEPTH) return '[nested too deep]';
      if (Array.isArray(v)) return v.map((x) => walk(x, depth + 1));
      return Object.fromEntries(Object.entries(v).map(([k, x]) => [this.redactor.text(k, 100), walk(x, depth + 1)]));
    };
    const value = walk(data, 0);
    const json = JSON.stringify(value) ?? 'null';
    return json.length <= MAX_LOG_DATA_CHARS ? value : `${json.slice(0, MAX_LOG_DATA_CHARS)}…`;
  }
}

/** A JSON-RPC error answer; not an McpError, whose message already carries the `MCP error <code>:` prefix the other side adds again. */
function refusal(message: string): Error {
  return Object.assign(new Error(message), { code: ErrorCode.InvalidRequest });
}
