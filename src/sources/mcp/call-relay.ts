// What an MCP server says and asks while one of its tools runs, handed to
// the call it belongs to (docs/mcp.md "Progress, logs and upstream requests").
// Progress carries a token of the call's own, so it is tied exactly. The
// tokens are ours, not the SDK's `onprogress`: the SDK drops a progress
// notification that arrives in the same read as the answer (its handler is
// gone by the time the notification is handled), and the last report of a
// call usually does.
//
// Log messages and elicitation/sampling requests carry no id of the call on
// the wire. Over Streamable HTTP a server sends those of a request on that
// request's own response stream; the SDK client reads each response stream in
// the asynchronous context of the request that opened it, so the call's
// context (an AsyncLocalStorage store set around the request) is the current
// one when such a message is handled: it is tied exactly, and it is dropped
// when that call has already ended. A message with no call's context (stdio,
// HTTP+SSE, the standalone GET stream of Streamable HTTP, a late message
// sent after its call was answered) names no call: on a connection that
// serves one tenant (`isolation: tenant`) it goes to that connection's one
// call in flight; on a connection shared by tenants it is dropped (a log
// message) or refused with a reason (a request), and logged. Nothing an
// upstream says ever reaches another tenant's client.
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { CreateMessageRequestSchema, ElicitRequestSchema, ErrorCode, LoggingMessageNotificationSchema, McpError, ProgressNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from 'pino';
import type { CallRelay } from '../raw-tool.js';
import type { Redactor } from './redact.js';

/** Upstream log data longer than this (as JSON) is cut to a string of this length. */
const MAX_LOG_DATA_CHARS = 4_000;
const MAX_LOG_DATA_DEPTH = 16;
/** Dropped messages are logged at warn at most this often per connection (the rest at debug, counted). */
const DROP_WARN_INTERVAL_MS = 60_000;

/** One call in flight on a connection; `open` turns false when its answer is in. */
interface InFlight {
  owner: UpstreamCallRelay;
  relay: CallRelay;
  open: boolean;
}

/** The call whose request is being handled, across the SDK's awaits (see the module comment). */
const callContext = new AsyncLocalStorage<InFlight>();

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
  private readonly inFlight = new Set<InFlight>();
  private readonly progressByToken = new Map<string, (report: { progress: number; total?: number; message?: string }) => void>();
  private tokens = 0;
  private lastDropWarning = -Infinity;
  private dropsSinceWarning = 0;

  constructor(
    private readonly serverId: string,
    private readonly redactor: Redactor,
    private readonly log: Logger,
    /** The connection serves one tenant only (`isolation: tenant`): a message naming no call may go to its one call in flight. */
    private readonly oneTenant = false,
  ) {}

  /** Runs `work` outside of any call's context: a connection opened during a call must not take that call's context for good. */
  static detached<T>(work: () => T): T {
    return callContext.exit(work);
  }

  /** Runs one call with `relay` in flight; what the upstream sends in the call's own context is tied to it. */
  async during<T>(relay: CallRelay, work: () => Promise<T>): Promise<T> {
    const call: InFlight = { owner: this, relay, open: true };
    this.inFlight.add(call);
    try {
      return await callContext.run(call, work);
    } finally {
      call.open = false;
      this.inFlight.delete(call);
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
      const { call, why } = this.owner();
      if (call === undefined) return this.dropped('notifications/message', why);
      call.onLog?.(level, this.bounded(data), typeof logger === 'string' ? this.redactor.text(logger, 100) : undefined);
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

  /** The call a message handled now belongs to, or why it belongs to none. */
  private owner(): { call: CallRelay; why?: undefined } | { call?: undefined; why: string } {
    const tied = callContext.getStore();
    if (tied !== undefined && tied.owner === this) return tied.open ? { call: tied.relay } : { why: 'the tool call it was sent for has ended' };
    if (!this.oneTenant) return { why: 'it names no tool call, and this server\'s connection is shared by tenants (isolation: tenant gives each its own)' };
    if (this.inFlight.size === 0) return { why: 'no tool call of this server is in progress' };
    if (this.inFlight.size > 1) return { why: 'several tool calls of this server are in progress and the message names none of them' };
    return { call: this.inFlight.values().next().value!.relay };
  }

  private dropped(method: string, why: string): void {
    const now = Date.now();
    const fields = { event: 'upstream_message_dropped', server: this.serverId, method, reason: why };
    if (now - this.lastDropWarning < DROP_WARN_INTERVAL_MS) {
      this.dropsSinceWarning++;
      this.log.debug(fields, 'mcp server message not relayed');
      return;
    }
    this.log.warn({ ...fields, suppressed: this.dropsSinceWarning }, `mcp server ${this.serverId}: a ${method} was not relayed: ${why}`);
    this.lastDropWarning = now;
    this.dropsSinceWarning = 0;
  }

  private async forward(method: 'elicitation/create' | 'sampling/createMessage', params: Record<string, unknown>, signal: AbortSignal): Promise<never> {
    const what = method === 'elicitation/create' ? 'elicitation' : 'sampling';
    const { call, why } = this.owner();
    if (call === undefined) {
      this.dropped(method, why);
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
