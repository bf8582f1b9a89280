// MCP servers as a tool source: every page of `tools/list`, live refresh,
// and failures isolated from the catalog.
//
// One McpSource per configured server. It connects with the SDK Client over
// stdio or HTTP (Streamable HTTP, falling back to HTTP+SSE), reads every
// `tools/list` page, re-reads on `notifications/tools/list_changed`
// (debounced) and periodically, and reconnects with exponential backoff when
// the server is down, exits, hangs or answers garbage. The last good tools
// stay served meanwhile (`keepStaleTools`). Nothing the server says about its
// tools' behaviour (annotations) is used: RawTool.derived stays undefined.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SseError } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  CallToolResultSchema,
  ErrorCode,
  McpError,
  ToolListChangedNotificationSchema,
  type CallToolResult,
} from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from 'pino';
import { IMPLEMENTATION } from '../../contract/protocol.js';
import { parseToolId } from '../../contract/tool-id.js';
import { CallAbort, errorResult, type DispatchOutcome } from '../call-result.js';
import type { InvokeContext, RawTool, SourceHealth, SourceState, ToolSource } from '../raw-tool.js';
import type { SourceContext } from '../source-context.js';
import { withDefaults, type McpSourceConfig, type ResolvedMcpOptions } from './config-schema.js';
import { displayUrl } from '../../util/log-text.js';
import { Redactor } from './redact.js';
import type { CachingLineReader } from './stdio-lines.js';
import { UpstreamCallRelay } from './call-relay.js';
import { TenantLinks } from './tenant-links.js';
import { type PreviousRead, StaleEntryError, ToolCollector, showName } from './tool-filter.js';
import { isTimeout, readToolPages, ReadIssues, scrubSecrets, type ReadResult } from './tool-list-read.js';
import { addConfiguredValues, drainStderr, httpTransports, stdioTransport, type TransportKind } from './transport.js';
import { type McpItems, UpstreamItems } from './resources.js';
import { CallerClients, isUnauthorized, type CallerClient } from './caller-clients.js';
import { UpstreamCredentialRefused, type UpstreamCredential } from '../upstream-credential.js';

export { mcpSourceConfigSchema, MCP_DEFAULTS, withDefaults } from './config-schema.js';
export type { ItemLists, McpItems, McpItemLists, UpstreamPrompt, UpstreamResource, UpstreamTemplate } from './resources.js';
export { McpItemError, contentBytes } from './resources.js';
export type { McpSourceConfig, McpStdioConfig, McpHttpConfig, McpBackoffConfig, ResolvedMcpOptions } from './config-schema.js';

const CLIENT_INFO = { name: IMPLEMENTATION.name, version: IMPLEMENTATION.version };
/** Per-connection cap on child stderr lines forwarded to the debug log. */
const MAX_STDERR_LINES = 50;

export interface McpCallOptions {
  signal?: AbortSignal;
  /** Defaults to the server's `callTimeoutMs`. */
  timeoutMs?: number;
  /**
   * The server's progress reports for this call. Each one also restarts the
   * call's timeout, up to PROGRESS_EXTENDS_TIMEOUT times the timeout in all.
   */
  onProgress?: (progress: number, total?: number, message?: string) => void;
}

/** How far progress reports may stretch a call: a server reporting forever still ends. */
const PROGRESS_EXTENDS_TIMEOUT = 10;

export type McpCallErrorCode = 'unknown_tool' | 'invalid_arguments' | 'unavailable' | 'timeout' | 'cancelled' | 'upstream_error';

/** A `callTool` failure; `message` is credential-free. */
export class McpCallError extends Error {
  constructor(
    readonly code: McpCallErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'McpCallError';
  }
}

export interface McpToolSource extends ToolSource {
  /** The configured server id (the toolId server part). */
  readonly serverId: string;
  /**
   * Forwards `tools/call` over the current connection. `name` is the MCP tool
   * name (not the toolId) and must be one this source currently serves.
   * Rejects with McpCallError; a tool-level failure is a result with `isError`.
   */
  callTool(name: string, args: unknown, options?: McpCallOptions): Promise<CallToolResult>;
  /** The server's resources, templates and prompts (resources.ts). */
  readonly items: McpItems;
}

interface Conn {
  seq: number;
  kind: TransportKind;
  client: Client;
  transport: Transport;
  dead: boolean;
  timers: NodeJS.Timeout[];
  refreshing?: Promise<void>;
  queued?: string;
  debounce?: NodeJS.Timeout;
  burstStart?: number;
  pinging: boolean;
  stderrLines: number;
  /** The stdio line reader's page cache, when attached. */
  lines?: CachingLineReader;
}

class ConnectTimeout extends Error {}

/** A promise that rejects with ConnectTimeout after `ms` (never unhandled), and what stops it. */
function connectDeadline(ms: number): { deadline: Promise<never>; clear: () => void } {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new ConnectTimeout(`connect timed out after ${ms} ms`)), ms);
    timer.unref();
  });
  deadline.catch(() => {});
  return { deadline, clear: () => clearTimeout(timer) };
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}

/** Streamable HTTP answered as an old HTTP+SSE server would (4xx other than auth/rate). */
function wantsSseFallback(err: unknown): boolean {
  if (!(err instanceof StreamableHTTPError) || err.code === undefined) return false;
  return err.code >= 400 && err.code < 500 && err.code !== 401 && err.code !== 403 && err.code !== 429;
}

class McpSource implements McpToolSource {
  readonly id: string;
  readonly kind = 'mcp' as const;
  readonly serverId: string;

  /** `mcp:<serverId>.`: every toolId this server's tools have, listed now or not. */
  private readonly toolIdPrefix: string;
  private readonly opts: ResolvedMcpOptions;
  private readonly log: Logger;
  private readonly redactor = new Redactor();
  private readonly issues: ReadIssues;
  private readonly target: string;
  /** Routes the server's log messages and requests to the call they belong to. */
  private readonly upstreamRelay: UpstreamCallRelay;
  /** With `isolation: tenant`: each calling tenant's own connection (tenant-links.ts). */
  private readonly links?: TenantLinks<Conn>;

  private state: SourceState = 'connecting';
  private list: readonly RawTool[] = [];
  private names = new Set<string>();
  /** The last applied read's entries and tools, for the next read to reuse. */
  private previousRead: PreviousRead = { collected: new Map(), skipped: new Map() };
  private lastRefresh?: string;
  private lastError?: string;

  private onChange: () => void = () => {};
  private started = false;
  private stopped = false;
  private conn?: Conn;
  private readonly conns = new Set<Conn>();
  private connSeq = 0;
  private attempt = 0;
  private reconnectTimer?: NodeJS.Timeout;
  readonly items: UpstreamItems;
  /** Per-caller connections, for a server over HTTP whose credentials are not shared. */
  private readonly callerClients?: CallerClients;

  constructor(
    private readonly config: McpSourceConfig,
    private readonly ctx: SourceContext,
  ) {
    this.serverId = config.id;
    this.id = `mcp:${config.id}`;
    this.toolIdPrefix = `${this.id}.`;
    this.opts = withDefaults(config);
    this.log = ctx.logger.child({ source: this.id, server: config.id });
    this.issues = new ReadIssues(this.log, config.id, this.redactor);
    this.upstreamRelay = new UpstreamCallRelay(config.id, this.redactor, this.log);
    if (this.opts.isolation === 'tenant') {
      this.links = new TenantLinks<Conn>({
        open: (tenant, relay) => this.openForTenant(tenant, relay),
        close: (conn) => this.closeConn(conn, true),
        relay: () => new UpstreamCallRelay(config.id, this.redactor, this.log, true),
        idleMs: this.opts.tenantIdleMs,
      });
    }
    this.target = config.transport === 'stdio' ? config.command : displayUrl(config.url);
    // Literal header/env values may be credentials too: never print them.
    addConfiguredValues(this.redactor, ctx.env, config.transport === 'stdio' ? config.env : config.headers);
    const o = this.opts;
    const limits = { pageTimeoutMs: o.pageTimeoutMs, callTimeoutMs: o.callTimeoutMs, maxPages: o.maxPages, maxItems: o.maxTools, maxDescriptionLength: o.maxDescriptionLength };
    this.items = new UpstreamItems(config.id, limits, this.redactor, this.log, () => (this.conn !== undefined && !this.conn.dead ? this.conn.client : undefined));
    if (config.transport === 'http' && (config.credentials?.mode ?? 'shared') !== 'shared') {
      this.callerClients = new CallerClients({
        sourceId: this.id,
        serverId: config.id,
        clientInfo: CLIENT_INFO,
        connectTimeoutMs: this.opts.connectTimeoutMs,
        log: this.log,
        transport: (headers, redactor) => httpTransports(config, ctx, redactor, headers).streamable(),
      });
    }
  }

  // ---- ToolSource ----------------------------------------------------------

  async start(onChange: () => void): Promise<void> {
    if (this.started) return;
    this.started = true;
    this.onChange = onChange;
    this.ctx.metrics.sourceTools.set({ source: this.id }, 0);
    const first = this.connect();
    // Resolves by connectTimeoutMs at the latest; connect() never rejects.
    await Promise.race([first, delay(this.opts.connectTimeoutMs)]);
  }

  tools(): readonly RawTool[] {
    return this.list;
  }

  health(): SourceHealth {
    const h: SourceHealth = { id: this.id, kind: 'mcp', state: this.state, toolCount: this.list.length };
    if (this.lastRefresh !== undefined) h.lastRefresh = this.lastRefresh;
    if (this.lastError !== undefined) h.lastError = this.lastError;
    return h;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.reconnectTimer) clearTimeout(this.reconnectTimer);
    this.reconnectTimer = undefined;
    this.conn = undefined;
    await this.links?.stop();
    await this.callerClients?.closeAll();
    await Promise.all([...this.conns].map((c) => this.closeConn(c, true)));
  }

  owns(toolId: string): boolean {
    return toolId.startsWith(this.toolIdPrefix) && parseToolId(toolId) !== null;
  }

  /**
   * Forwards the call over this server's connection. The server's own
   * `callTimeoutMs` bounds it, not the host's default; a timeout or a
   * cancellation aborts the call, any other failure is an error result
   * whose text is credential-free. The result holds no form of a configured
   * secret (callTool).
   */
  async invoke(toolId: string, args: Record<string, unknown>, context: InvokeContext): Promise<DispatchOutcome> {
    try {
      const { onProgress, onLog, requestFromCaller, tenant, credential } = context;
      const name = toolId.slice(this.toolIdPrefix.length);
      const options = { signal: context.signal, onProgress };
      let result: CallToolResult;
      if (credential) {
        // The caller's own connection, relay and redactor (caller-clients.ts): nothing of it is shared with another caller.
        const own = await this.callerConnection(credential);
        result = await own.relay.during({ onLog, requestFromCaller }, () => this.callOn(undefined, own.relay, name, args, options, own));
      } else if (this.links === undefined) {
        result = await this.upstreamRelay.during({ onLog, requestFromCaller }, () => this.callOn(this.conn, this.upstreamRelay, name, args, options));
      } else {
        if (tenant === undefined) throw new McpCallError('unavailable', `mcp server ${this.serverId} is isolated per tenant and this call names none`);
        result = await this.links.use(tenant, (conn, relay) => relay.during({ onLog, requestFromCaller }, () => this.callOn(conn, relay, name, args, options)));
      }
      return { status: result.isError ? 'error' : 'ok', result };
    } catch (err) {
      if (err instanceof UpstreamCredentialRefused) {
        if (context.credential) this.callerClients?.drop(context.credential.owner);
        throw err;
      }
      if (err instanceof McpCallError && (err.code === 'timeout' || err.code === 'cancelled')) throw new CallAbort(err.code, err.message);
      return { status: 'error', result: errorResult(err instanceof McpCallError ? err.message : 'the upstream call failed') };
    }
  }

  callTool(name: string, args: unknown, options: McpCallOptions = {}): Promise<CallToolResult> {
    return this.callOn(this.conn, this.upstreamRelay, name, args, options);
  }

  private callerConnection(credential: UpstreamCredential): Promise<CallerClient> {
    if (!this.callerClients) return Promise.reject(new McpCallError('unavailable', `mcp server ${this.serverId} takes no per-caller credential (stdio)`));
    return this.callerClients.get(credential).catch((err: unknown) => {
      if (err instanceof UpstreamCredentialRefused) throw err;
      throw new McpCallError('unavailable', `mcp server ${this.serverId}: ${err instanceof Error ? err.message : 'cannot connect'}`);
    });
  }

  /** A tools/call over `conn` (or the caller's `own` connection), whose server messages `relay` routes. */
  private async callOn(conn: Conn | undefined, relay: UpstreamCallRelay, name: string, args: unknown, options: McpCallOptions, own?: CallerClient): Promise<CallToolResult> {
    if (!this.names.has(name)) throw new McpCallError('unknown_tool', `mcp server ${this.serverId} serves no tool ${showName(name)}`);
    if (args === undefined || args === null) args = {};
    if (typeof args !== 'object' || Array.isArray(args)) throw new McpCallError('invalid_arguments', 'tool arguments must be a JSON object');
    if (!own && (!conn || conn.dead)) throw new McpCallError('unavailable', `mcp server ${this.serverId} is not connected`);
    const client = own?.client ?? conn!.client;
    const redactor = own?.redactor ?? this.redactor;
    const timeout = options.timeoutMs ?? this.opts.callTimeoutMs;
    const watch = options.onProgress && relay.watchProgress(options.onProgress, timeout, options.signal);
    try {
      const result = await client.request(
        { method: 'tools/call', params: { name, arguments: args as Record<string, unknown>, ...(watch && { _meta: { progressToken: watch.token } }) } },
        CallToolResultSchema,
        watch ? { timeout: timeout * PROGRESS_EXTENDS_TIMEOUT, signal: watch.signal } : { timeout, signal: options.signal },
      );
      // The server may echo what it was configured with (a header, an env value): no caller gets it, in any encoding.
      return redactor.scrub(result as CallToolResult).value;
    } catch (err) {
      if (options.signal?.aborted) throw new McpCallError('cancelled', `call to ${showName(name)} on mcp server ${this.serverId} was cancelled`);
      if (own && isUnauthorized(err)) throw new UpstreamCredentialRefused(this.id);
      if (isTimeout(err)) throw new McpCallError('timeout', `call to ${showName(name)} on mcp server ${this.serverId} timed out after ${timeout} ms`);
      if (err instanceof McpError && err.code === ErrorCode.ConnectionClosed) {
        throw new McpCallError('unavailable', `mcp server ${this.serverId} closed the connection`);
      }
      throw new McpCallError('upstream_error', `mcp server ${this.serverId}: ${redactor.error(err)}`);
    } finally {
      watch?.end();
    }
  }

  // ---- connecting ----------------------------------------------------------

  /** One connection attempt: handshake, then the first full read. Never rejects. */
  private async connect(): Promise<void> {
    if (this.stopped) return;
    const seq = ++this.connSeq;
    const t0 = performance.now();
    // Created before anything else, so it fires before start()'s own deadline.
    const { deadline, clear } = connectDeadline(this.opts.connectTimeoutMs);
    let conn: Conn;
    try {
      conn = await this.open(seq, deadline);
    } catch (err) {
      this.fail(undefined, err, 'connect');
      return;
    } finally {
      clear();
    }
    if (this.stopped || seq !== this.connSeq) {
      void this.closeConn(conn);
      return;
    }
    this.conn = conn;
    this.log.info({ event: 'connect', transport: conn.kind, target: this.target, ms: Math.round(performance.now() - t0) }, 'mcp server connected');
    await this.runRefresh(conn, 'connect');
    if (conn.dead) return;
    await this.items.connected();
    this.attempt = 0;
    if (this.opts.refreshIntervalMs > 0) {
      conn.timers.push(setInterval(() => void this.runRefresh(conn, 'periodic').then(() => this.items.refresh()), this.opts.refreshIntervalMs).unref());
    }
    if (this.opts.pingIntervalMs > 0) {
      conn.timers.push(setInterval(() => void this.ping(conn), this.opts.pingIntervalMs).unref());
    }
  }

  /** Builds the transport(s) (transport.ts) and runs `initialize`, over HTTP+SSE when Streamable HTTP is refused. */
  private async open(seq: number, deadline: Promise<never>, relay = this.upstreamRelay, tenant?: string): Promise<Conn> {
    const config = this.config;
    if (config.transport === 'stdio') {
      const { transport, stderr, lines } = stdioTransport(config, this.ctx, this.redactor);
      const conn = this.newConn(seq, 'stdio', transport, relay, tenant);
      conn.lines = lines;
      drainStderr(stderr, (line) => {
        if (conn.stderrLines++ < MAX_STDERR_LINES) this.log.debug({ event: 'stderr', line: this.redactor.text(line, 500) }, 'mcp server stderr');
      });
      await this.handshake(conn, deadline);
      return conn;
    }

    const transports = httpTransports(config, this.ctx, this.redactor);
    const first = this.newConn(seq, 'streamable-http', transports.streamable(), relay, tenant);
    try {
      await this.handshake(first, deadline);
      return first;
    } catch (err) {
      if (!wantsSseFallback(err)) throw err;
      this.log.info({ event: 'fallback', target: this.target, status: (err as StreamableHTTPError).code }, 'mcp server does not speak Streamable HTTP, trying HTTP+SSE');
    }
    const second = this.newConn(seq, 'sse', transports.sse(), relay, tenant);
    await this.handshake(second, deadline);
    return second;
  }

  /** A connection whose server messages `relay` routes; with `tenant`, one tenant's own (it carries calls only, never the tool list). */
  private newConn(seq: number, kind: TransportKind, transport: Transport, relay: UpstreamCallRelay, tenant?: string): Conn {
    const client = new Client(CLIENT_INFO, { capabilities: {} });
    relay.attach(client);
    const conn: Conn = { seq, kind, client, transport, dead: false, timers: [], pinging: false, stderrLines: 0 };
    this.conns.add(conn);
    if (tenant !== undefined) {
      client.onclose = () => void (conn.dead = true);
      client.onerror = (err) => this.log.debug({ event: 'transport_error', tenant, error: this.redactor.error(err) }, 'mcp transport error');
      return conn;
    }
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => this.onListChanged(conn));
    this.items.attach(client);
    client.onclose = () => {
      if (!conn.dead && conn === this.conn) this.fail(conn, new Error(kind === 'stdio' ? 'server process exited' : 'connection closed'), 'disconnect');
    };
    client.onerror = (err) => {
      if (conn.dead) return;
      this.log.debug({ event: 'transport_error', error: this.redactor.error(err) }, 'mcp transport error');
      // A broken stream often means the server is gone; confirm with a ping.
      if (conn === this.conn) void this.ping(conn);
    };
    return conn;
  }

  private async handshake(conn: Conn, deadline: Promise<never>): Promise<void> {
    try {
      await Promise.race([conn.client.connect(conn.transport, { timeout: this.opts.connectTimeoutMs }), deadline]);
    } catch (err) {
      conn.dead = true;
      void this.closeConn(conn);
      throw err;
    }
  }

  /** One tenant's own connection, opened outside of the call that asked for it (so no server message takes that call's context for good). */
  private async openForTenant(tenant: string, relay: UpstreamCallRelay): Promise<Conn> {
    const { deadline, clear } = connectDeadline(this.opts.connectTimeoutMs);
    try {
      const conn = await UpstreamCallRelay.detached(() => this.open(-1, deadline, relay, tenant));
      this.log.info({ event: 'connect', transport: conn.kind, target: this.target, tenant }, 'mcp server connected for one tenant');
      return conn;
    } catch (err) {
      throw new McpCallError('unavailable', `mcp server ${this.serverId} could not be reached for this tenant: ${this.describe(err)}`);
    } finally {
      clear();
    }
  }

  private async closeConn(conn: Conn, terminate = false): Promise<void> {
    conn.dead = true;
    for (const t of conn.timers) clearInterval(t);
    conn.timers = [];
    if (conn.debounce) clearTimeout(conn.debounce);
    if (!this.conns.delete(conn)) return;
    try {
      if (terminate && conn.transport instanceof StreamableHTTPClientTransport && conn.transport.sessionId) {
        await Promise.race([conn.transport.terminateSession().catch(() => {}), delay(500)]);
      }
      await conn.client.close();
    } catch {
      // closing a broken connection may fail; it is gone either way
    }
  }

  /** A connection (or an attempt) failed: mark, keep or drop tools, back off. */
  private fail(conn: Conn | undefined, err: unknown, phase: string): void {
    if (this.stopped) return;
    if (conn) {
      if (conn.dead) return;
      conn.dead = true;
      if (this.conn === conn) this.conn = undefined;
      void this.closeConn(conn);
    }
    const message = this.describe(err);
    const previousError = this.lastError;
    this.lastError = `${phase}: ${message}`;
    this.ctx.metrics.sourceFailures.inc({ source: this.id });
    const dropped = !this.opts.keepStaleTools && this.apply(new ToolCollector(this.serverId, this.opts));
    if (!this.opts.keepStaleTools) this.items.clear();
    this.state = this.list.length > 0 ? 'stale' : 'failed';
    if (dropped) this.notify();
    // The first failure of a run (and any new error) warns; the same error on
    // every further reconnect attempt is info, so a dead server does not flood.
    const level = this.attempt === 0 || this.lastError !== previousError ? 'warn' : 'info';
    this.log[level](
      { event: phase === 'connect' ? 'connect_failed' : 'disconnect', phase, error: message, state: this.state, toolCount: this.list.length },
      `mcp server ${this.serverId} failed (${phase}); ${this.list.length > 0 ? 'serving last good tools' : 'no tools served'}`,
    );
    this.scheduleReconnect();
  }

  private scheduleReconnect(): void {
    if (this.stopped || this.reconnectTimer) return;
    this.attempt++;
    const { initialMs, maxMs } = this.opts.backoff;
    const base = Math.min(maxMs, initialMs * 2 ** Math.min(this.attempt - 1, 30));
    const delayMs = Math.round(base / 2 + (Math.random() * base) / 2);
    this.log.info({ event: 'backoff', attempt: this.attempt, delayMs }, 'mcp reconnect scheduled');
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = undefined;
      void this.connect();
    }, delayMs);
  }

  /** A short, redacted description of a failure, with the HTTP status when there is one. */
  private describe(err: unknown): string {
    let text = this.redactor.error(err);
    // `fetch failed` says nothing; its cause (ECONNREFUSED, ENOTFOUND...) does.
    const cause = err instanceof Error ? (err.cause as { code?: unknown; message?: unknown } | undefined) : undefined;
    const detail = typeof cause?.code === 'string' ? cause.code : typeof cause?.message === 'string' ? cause.message : undefined;
    if (detail && !text.includes(detail)) text = `${text} (${this.redactor.text(detail, 80)})`;
    if ((err instanceof StreamableHTTPError || err instanceof SseError) && typeof err.code === 'number' && err.code > 0 && !text.includes(String(err.code))) {
      return `HTTP ${err.code}: ${text}`;
    }
    return text;
  }

  private async ping(conn: Conn): Promise<void> {
    if (conn.dead || conn.pinging || conn.refreshing) return;
    conn.pinging = true;
    try {
      await conn.client.ping({ timeout: this.opts.pageTimeoutMs });
    } catch (err) {
      // A JSON-RPC error answer still proves the server is alive.
      const alive = err instanceof McpError && err.code !== ErrorCode.RequestTimeout && err.code !== ErrorCode.ConnectionClosed;
      if (!alive) this.fail(conn, err, 'ping');
    } finally {
      conn.pinging = false;
    }
  }

  // ---- reading the tool list -----------------------------------------------

  private onListChanged(conn: Conn): void {
    if (conn.dead) return;
    const now = Date.now();
    const d = this.opts.debounceMs;
    conn.burstStart ??= now;
    if (conn.debounce) clearTimeout(conn.debounce);
    // Trailing debounce, but a never-ending burst still reads every 10 x debounce.
    const wait = Math.max(0, Math.min(d, conn.burstStart + d * 10 - now));
    conn.debounce = setTimeout(() => {
      conn.debounce = undefined;
      conn.burstStart = undefined;
      void this.runRefresh(conn, 'list_changed');
    }, wait);
  }

  /** Serialized reads: a trigger during a read queues exactly one more read. */
  private runRefresh(conn: Conn, reason: string): Promise<void> {
    if (conn.dead || this.stopped) return Promise.resolve();
    if (conn.refreshing) {
      conn.queued = reason;
      return conn.refreshing;
    }
    conn.refreshing = (async () => {
      let next: string | undefined = reason;
      while (next !== undefined && !conn.dead && !this.stopped) {
        conn.queued = undefined;
        await this.readOnce(conn, next);
        next = conn.queued;
      }
    })().finally(() => {
      conn.refreshing = undefined;
    });
    return conn.refreshing;
  }

  private async readOnce(conn: Conn, reason: string): Promise<void> {
    const t0 = performance.now();
    let result: ReadResult;
    try {
      result = await this.readAllPages(conn);
    } catch (err) {
      this.fail(conn, err, 'tools/list');
      return;
    }
    if (conn.dead || this.stopped) return;
    const ms = Math.round(performance.now() - t0);
    const { collector, pages, truncated, timedOut } = result;
    scrubSecrets(this.redactor, collector);
    this.issues.report(collector.issues);
    if (truncated) this.log.warn({ event: 'truncated', pages, toolCount: collector.size }, `mcp server ${this.serverId}: tool list read stopped early: ${truncated}`);

    if (timedOut) {
      // A hang mid-read: serve the partial list only if there is nothing better.
      const used = this.list.length === 0 && this.apply(collector);
      this.fail(conn, new Error(truncated), 'tools/list');
      if (used) this.notify();
      return;
    }
    const changed = this.apply(collector);
    this.lastRefresh = new Date().toISOString();
    this.lastError = truncated;
    this.state = 'connected';
    this.ctx.metrics.sourceRefreshes.inc({ source: this.id });
    const level = changed || reason !== 'periodic' ? 'info' : 'debug';
    const reusedTools = collector.reused.size;
    this.log[level]({ event: 'refresh', reason, toolCount: collector.size, reusedTools, pages, ms, changed, pageCache: conn.lines?.stats }, 'mcp tool list read');
    if (changed) this.notify();
  }

  private async readAllPages(conn: Conn): Promise<ReadResult> {
    try {
      return await this.readPagesOnce(conn);
    } catch (err) {
      if (!(err instanceof StaleEntryError) || conn.lines === undefined) throw err;
      // The page cache answered for an entry the last applied read did not
      // make (one it skipped as a duplicate, or never reached for maxTools,
      // that this read collects): once more, parsing every page.
      this.log.debug({ event: 'page_cache_reset', reason: this.redactor.text(err.message) }, `mcp server ${this.serverId}: tool list read again without the page cache`);
      conn.lines.forget();
      return await this.readPagesOnce(conn);
    }
  }

  private async readPagesOnce(conn: Conn): Promise<ReadResult> {
    const collector = new ToolCollector(this.serverId, this.opts, this.previousRead);
    conn.lines?.startRead();
    try {
      return await readToolPages(conn.client, this.opts, collector);
    } finally {
      // Every way out of a read, early returns and errors included, prunes the page cache.
      conn.lines?.endRead();
    }
  }

  /**
   * Replaces the served list; true when it changed. Unchanged tools are the
   * previous read's objects (ToolCollector), so comparing is an identity check.
   */
  private apply(collector: ToolCollector): boolean {
    const { tools, names } = collector;
    this.previousRead = { collected: collector.collected, skipped: collector.skipped };
    if (tools.length === this.list.length && tools.every((t, i) => t === this.list[i])) return false;
    this.list = Object.freeze(tools);
    this.names = new Set(names);
    this.ctx.metrics.sourceTools.set({ source: this.id }, tools.length);
    return true;
  }

  private notify(): void {
    try {
      this.onChange();
    } catch (err) {
      this.log.error({ event: 'on_change_error', error: this.redactor.error(err) }, 'onChange listener threw');
    }
  }
}

/** Creates the source for one `sources.mcp[]` entry. Nothing happens until `start()`. */
export function createMcpSource(config: McpSourceConfig, ctx: SourceContext): McpToolSource {
  return new McpSource(config, ctx);
}
