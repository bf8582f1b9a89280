// The connector ToolSource: loads the OpenAPI document at start, watches it
// (fs.watch on its directory, so editors that write a new file and rename it
// over the old one are seen), re-reads it after a quiet period, and keeps the
// last good tool list when a new version does not load.
//
// States: `connecting` until the first attempt ends; `connected` after a good
// read; `failed` when no read has succeeded yet; `stale` when the latest read
// failed after an earlier good one (the earlier tools are still served).
// Every later load that changes the tools tells the catalog; the first one
// is served by the build that follows start() (host.ts), also when start()
// ends after the host's start deadline. Versions are told apart by a hash of the
// document's bytes (document.ts, documentDigest); the same bytes are not
// converted again.
// A call is one HTTP request under the host's default deadline (call.ts).
import { watch, type FSWatcher } from 'node:fs';
import path from 'node:path';
import type { Logger } from 'pino';
import { parseToolId } from '../../contract/tool-id.js';
import { errorResult, withDeadline, type DispatchOutcome } from '../call-result.js';
import type { InvokeContext, RawTool, SourceHealth, SourceState, ToolSource } from '../raw-tool.js';
import type { SourceContext } from '../source-context.js';
import { callConnectorOperation } from './call.js';
import { CONNECTOR_DEFAULTS, type ConnectorSourceConfig } from './config-schema.js';
import { connectorSecretReadable } from './secret.js';
import { ConnectorDocumentError, convertOpenApiText, documentDigest, readConnectorDocument } from './document.js';
import type { ConnectorOperation } from './types.js';

export interface ConnectorToolSource extends ToolSource {
  readonly kind: 'connector';
  readonly config: ConnectorSourceConfig;
  /** Absolute path of the OpenAPI document. */
  readonly documentPath: string;
  /** The call-time description of a tool of this source (last good load), or undefined. */
  operation(toolId: string): ConnectorOperation | undefined;
  operations(): readonly ConnectorOperation[];
  /** Re-reads the document now (as a file change would); resolves when done. */
  refresh(): Promise<void>;
}

const MAX_ERROR_LENGTH = 300;
const MAX_WARNINGS_LOGGED = 50;

function shortError(err: unknown): string {
  const msg = err instanceof Error ? err.message : String(err);
  const line = msg.split('\n')[0];
  return line.length > MAX_ERROR_LENGTH ? `${line.slice(0, MAX_ERROR_LENGTH - 1)}…` : line;
}

export function createConnectorSource(config: ConnectorSourceConfig, ctx: SourceContext): ConnectorToolSource {
  return new ConnectorSource(config, ctx);
}

class ConnectorSource implements ConnectorToolSource {
  readonly id: string;
  readonly kind = 'connector' as const;
  readonly documentPath: string;

  private readonly toolIdPrefix: string;
  private readonly log: Logger;
  private readonly labels: { source: string };
  private readonly injectTrace: ((headers: Record<string, string>) => void) | undefined;

  private state: SourceState = 'connecting';
  private list: readonly RawTool[] = Object.freeze([]);
  private ops: readonly ConnectorOperation[] = Object.freeze([]);
  private byId = new Map<string, ConnectorOperation>();
  /** documentDigest of the last document that loaded. */
  private digest: string | undefined;
  private lastRefresh?: string;
  private lastError?: string;

  private onChange: () => void = () => {};
  private started = false;
  private stopped = false;
  private watcher?: FSWatcher;
  private timer?: NodeJS.Timeout;
  /** Loads run one at a time; at most one more waits (`queued`). */
  private chain: Promise<void> = Promise.resolve();
  private queued = false;

  constructor(
    readonly config: ConnectorSourceConfig,
    private readonly ctx: SourceContext,
  ) {
    this.id = `connector:${config.id}`;
    this.documentPath = path.resolve(ctx.configDir, config.document);
    this.toolIdPrefix = `connector:${config.id}.`;
    this.log = ctx.logger.child({ source: this.id });
    this.labels = { source: this.id };
    this.injectTrace = ctx.tracing?.enabled ? (headers) => ctx.tracing!.injectHeaders(headers) : undefined;
  }

  async start(onChange: () => void): Promise<void> {
    if (this.started) return;
    this.started = true;
    this.onChange = onChange;
    // Watch first, so a change made while the first read runs is not missed.
    if (this.config.watch ?? CONNECTOR_DEFAULTS.watch) this.startWatching();
    await this.enqueue(true);
  }

  tools(): readonly RawTool[] {
    return this.list;
  }

  operations(): readonly ConnectorOperation[] {
    return this.ops;
  }

  operation(toolId: string): ConnectorOperation | undefined {
    return this.byId.get(toolId);
  }

  health(): SourceHealth {
    const h: SourceHealth = { id: this.id, kind: 'connector', state: this.state, toolCount: this.list.length };
    if (this.lastRefresh !== undefined) h.lastRefresh = this.lastRefresh;
    if (this.lastError !== undefined) h.lastError = this.lastError;
    // Read on each report (an env lookup or one small file): a secret file put in place later is seen without a reload.
    if (!connectorSecretReadable(this.config, this.ctx)) {
      h.canCall = false;
      h.cannotCall = 'its secret (auth.secret) is unset or unreadable, so calls answer "the connector is not configured"; toolhost validate names the variable or file';
    }
    return h;
  }

  refresh(): Promise<void> {
    return this.enqueue(false);
  }

  /** Every id under `connector:<id>.`: an operation missing now may come back with the next document. */
  owns(toolId: string): boolean {
    return toolId.startsWith(this.toolIdPrefix) && parseToolId(toolId) !== null;
  }

  invoke(toolId: string, args: Record<string, unknown>, context: InvokeContext): Promise<DispatchOutcome> {
    const op = this.byId.get(toolId);
    if (!op) return Promise.resolve({ status: 'error', result: errorResult('the connector operation is not available') });
    const { env, configDir, logger } = this.ctx;
    return withDeadline(context.defaultTimeoutMs, context.signal, (signal) => callConnectorOperation(this.config, op, args, { env, configDir, signal, logger, injectTrace: this.injectTrace, credential: context.credential }));
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.watcher?.close();
    this.watcher = undefined;
    await this.chain;
  }

  // ---- loading -------------------------------------------------------------

  private async load(initial: boolean): Promise<void> {
    const { config } = this;
    try {
      const text = await readConnectorDocument(this.documentPath);
      const digest = documentDigest(text);
      if (this.stopped) return;
      const recovered = this.state === 'stale' || this.state === 'failed';
      if (digest === this.digest && !recovered) {
        this.log.debug({ document: config.document }, 'connector document re-read, unchanged');
        return;
      }
      const loaded = await convertOpenApiText(config, text, this.documentPath);
      if (this.stopped) return;
      const changed = digest !== this.digest;
      this.digest = digest;
      this.list = Object.freeze(loaded.tools);
      this.ops = Object.freeze(loaded.operations);
      this.byId = new Map(loaded.operations.map((o) => [o.toolId, o]));
      this.state = 'connected';
      this.lastError = undefined;
      this.lastRefresh = new Date().toISOString();
      this.ctx.metrics.sourceRefreshes.inc(this.labels);
      this.ctx.metrics.sourceTools.set(this.labels, this.list.length);
      for (const w of loaded.warnings.slice(0, MAX_WARNINGS_LOGGED)) this.log.warn({ document: config.document }, w);
      if (loaded.warnings.length > MAX_WARNINGS_LOGGED) this.log.warn({ document: config.document }, `${loaded.warnings.length - MAX_WARNINGS_LOGGED} more warnings not shown`);
      const what = initial ? 'connector document loaded' : changed ? 'connector document reloaded' : 'connector document readable again';
      this.log.info({ document: config.document, openapi: loaded.version, tools: this.list.length, skipped: loaded.skipped.length }, what);
      // The first load is served by the build that follows start() (host.ts), whenever start() ends.
      if (changed && !initial) this.onChange();
    } catch (err) {
      if (this.stopped) return;
      this.fail(err);
    }
  }

  private fail(err: unknown): void {
    const { config } = this;
    this.lastError = shortError(err);
    this.state = this.digest !== undefined ? 'stale' : 'failed';
    this.ctx.metrics.sourceFailures.inc(this.labels);
    // Not a ConnectorDocumentError: a bug in the conversion. Still never fatal for the host.
    const stack = err instanceof ConnectorDocumentError ? undefined : err instanceof Error ? err.stack : undefined;
    this.log.error({ document: config.document, state: this.state, ...(stack !== undefined && { stack }) }, `connector document not loaded: ${this.lastError}`);
  }

  // A waiting load reads the file when it starts, so it covers every event that arrived before.
  private enqueue(initial: boolean): Promise<void> {
    if (this.queued) return this.chain;
    this.queued = true;
    this.chain = this.chain.then(async () => {
      this.queued = false;
      if (!this.stopped) await this.load(initial);
    });
    return this.chain;
  }

  private schedule(): void {
    if (this.stopped) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.enqueue(false);
    }, this.config.debounceMs ?? CONNECTOR_DEFAULTS.debounceMs);
    this.timer.unref();
  }

  private startWatching(): void {
    const { config } = this;
    const base = path.basename(this.documentPath);
    try {
      this.watcher = watch(path.dirname(this.documentPath), { persistent: false }, (_event, filename) => {
        if (filename !== null && filename !== undefined && filename.toString() !== base) return;
        this.schedule();
      });
      this.watcher.on('error', (err) => {
        this.log.warn({ document: config.document }, `stopped watching the document: ${shortError(err)}`);
        this.watcher?.close();
        this.watcher = undefined;
      });
    } catch (err) {
      this.log.warn({ document: config.document }, `cannot watch the document: ${shortError(err)}`);
    }
  }
}
