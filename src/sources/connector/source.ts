// The connector ToolSource: loads the OpenAPI document at start, watches it
// (fs.watch on its directory, so editors that write a new file and rename it
// over the old one are seen), re-reads it after a quiet period, and keeps the
// last good tool list when a new version does not load.
//
// States: `connecting` until the first attempt ends; `connected` after a good
// read; `failed` when no read has succeeded yet; `stale` when the latest read
// failed after an earlier good one (the earlier tools are still served).
// A call is one HTTP request under the host's default deadline (call.ts).
import { watch, type FSWatcher } from 'node:fs';
import path from 'node:path';
import { parseToolId } from '../../contract/tool-id.js';
import { errorResult, withDeadline, type DispatchOutcome } from '../call-result.js';
import type { InvokeContext, RawTool, SourceHealth, SourceState, ToolSource } from '../raw-tool.js';
import type { SourceContext } from '../source-context.js';
import { callConnectorOperation } from './call.js';
import { CONNECTOR_DEFAULTS, type ConnectorSourceConfig } from './config-schema.js';
import { ConnectorDocumentError, loadConnectorDocument } from './document.js';
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
  const id = `connector:${config.id}`;
  const documentPath = path.resolve(ctx.configDir, config.document);
  const watchEnabled = config.watch ?? CONNECTOR_DEFAULTS.watch;
  const debounceMs = config.debounceMs ?? CONNECTOR_DEFAULTS.debounceMs;
  const log = ctx.logger.child({ source: id });
  const toolIdPrefix = `connector:${config.id}.`;
  const injectTrace = ctx.tracing?.enabled ? (headers: Record<string, string>) => ctx.tracing!.injectHeaders(headers) : undefined;
  const labels = { source: id };

  let state: SourceState = 'connecting';
  let tools: readonly RawTool[] = Object.freeze([]);
  let ops: readonly ConnectorOperation[] = Object.freeze([]);
  let byId = new Map<string, ConnectorOperation>();
  let signature: string | undefined;
  let loadedOnce = false;
  let lastRefresh: string | undefined;
  let lastError: string | undefined;
  let onChange: () => void = () => {};
  let started = false;
  let stopped = false;
  let watcher: FSWatcher | undefined;
  let timer: NodeJS.Timeout | undefined;
  let chain: Promise<void> = Promise.resolve();
  let queued = false;

  async function load(initial: boolean): Promise<void> {
    try {
      const loaded = await loadConnectorDocument(config, documentPath);
      if (stopped) return;
      const sig = JSON.stringify([loaded.tools, loaded.operations]);
      const changed = sig !== signature;
      signature = sig;
      tools = Object.freeze(loaded.tools);
      ops = Object.freeze(loaded.operations);
      byId = new Map(loaded.operations.map((o) => [o.toolId, o]));
      const recovered = state === 'stale' || state === 'failed';
      state = 'connected';
      loadedOnce = true;
      lastError = undefined;
      lastRefresh = new Date().toISOString();
      ctx.metrics.sourceRefreshes.inc(labels);
      ctx.metrics.sourceTools.set(labels, tools.length);
      if (changed || initial || recovered) {
        for (const w of loaded.warnings.slice(0, MAX_WARNINGS_LOGGED)) log.warn({ document: config.document }, w);
        if (loaded.warnings.length > MAX_WARNINGS_LOGGED) {
          log.warn({ document: config.document }, `${loaded.warnings.length - MAX_WARNINGS_LOGGED} more warnings not shown`);
        }
        log.info(
          { document: config.document, openapi: loaded.version, tools: tools.length, skipped: loaded.skipped.length },
          initial ? 'connector document loaded' : changed ? 'connector document reloaded' : 'connector document readable again',
        );
      } else {
        log.debug({ document: config.document }, 'connector document re-read, tools unchanged');
      }
      if (changed && !initial) onChange();
    } catch (err) {
      if (stopped) return;
      lastError = shortError(err);
      state = loadedOnce ? 'stale' : 'failed';
      ctx.metrics.sourceFailures.inc(labels);
      if (err instanceof ConnectorDocumentError) {
        log.error({ document: config.document, state }, `connector document not loaded: ${lastError}`);
      } else {
        // Not an upstream fault: a bug in the conversion. Still never fatal for the host.
        log.error({ document: config.document, state, stack: err instanceof Error ? err.stack : undefined }, `connector document not loaded: ${lastError}`);
      }
    }
  }

  // Loads run one at a time; at most one more waits. A waiting load reads the
  // file when it starts, so it covers every event that arrived before.
  function enqueue(initial: boolean): Promise<void> {
    if (queued) return chain;
    queued = true;
    chain = chain.then(async () => {
      queued = false;
      if (!stopped) await load(initial);
    });
    return chain;
  }

  function schedule(): void {
    if (stopped) return;
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => {
      timer = undefined;
      void enqueue(false);
    }, debounceMs);
    timer.unref();
  }

  function startWatching(): void {
    const dir = path.dirname(documentPath);
    const base = path.basename(documentPath);
    try {
      watcher = watch(dir, { persistent: false }, (_event, filename) => {
        if (filename !== null && filename !== undefined && filename.toString() !== base) return;
        schedule();
      });
      watcher.on('error', (err) => {
        log.warn({ document: config.document }, `stopped watching the document: ${shortError(err)}`);
        watcher?.close();
        watcher = undefined;
      });
    } catch (err) {
      log.warn({ document: config.document }, `cannot watch the document: ${shortError(err)}`);
    }
  }

  return {
    id,
    kind: 'connector',
    config,
    documentPath,
    async start(cb: () => void): Promise<void> {
      if (started) return;
      started = true;
      onChange = cb;
      // Watch first, so a change made while the first read runs is not missed.
      if (watchEnabled) startWatching();
      await enqueue(true);
    },
    tools: () => tools,
    operations: () => ops,
    operation: (toolId: string) => byId.get(toolId),
    health(): SourceHealth {
      return {
        id,
        kind: 'connector',
        state,
        toolCount: tools.length,
        ...(lastRefresh !== undefined ? { lastRefresh } : {}),
        ...(lastError !== undefined ? { lastError } : {}),
      };
    },
    refresh: () => enqueue(false),
    // Every id under `connector:<id>.`: an operation missing now may come back with the next document.
    owns: (toolId: string) => toolId.startsWith(toolIdPrefix) && parseToolId(toolId) !== null,
    invoke(toolId: string, args: Record<string, unknown>, context: InvokeContext): Promise<DispatchOutcome> {
      const op = byId.get(toolId);
      if (!op) return Promise.resolve({ status: 'error', result: errorResult('the connector operation is not available') });
      return withDeadline(context.defaultTimeoutMs, context.signal, (signal) =>
        callConnectorOperation(config, op, args, { env: ctx.env, configDir: ctx.configDir, signal, logger: ctx.logger, injectTrace, credential: context.credential }),
      );
    },
    async stop(): Promise<void> {
      stopped = true;
      if (timer) clearTimeout(timer);
      timer = undefined;
      watcher?.close();
      watcher = undefined;
      await chain;
    },
  };
}
