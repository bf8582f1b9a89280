// Helpers for the event-log tests: logs on real SQLite files in temp dirs, and
// the real host served from a temp config whose `events.file` it opens.
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import pino from 'pino';
import { hashApiKey } from '../../src/auth/api-keys.js';
import { EventLog, type AppendInput, type EventLogOptions, type ToolEvent } from '../../src/events/sqlite/log.js';
import { startHost, type Host } from '../../src/host/host.js';
import { serve } from '../../src/host/serve.js';
import { buildApp } from '../../src/http/app.js';
import type { EventRouteOptions } from '../../src/http/deps.js';
import { registerEventRoutes } from '../../src/http/events-routes.js';
import { ACME_KEY, GLOBEX_KEY, tempDir, writeConfig } from '../helpers/server.js';
import { waitFor } from '../helpers/patience.js';

export { ACME_KEY, GLOBEX_KEY, request, tempDir } from '../helpers/server.js';

export function logFile(name = 'events.db'): string {
  return join(tempDir('toolhost-events-'), name);
}

export function openTempLog(options?: EventLogOptions): { log: EventLog; file: string } {
  const file = logFile();
  return { log: EventLog.open(file, options), file };
}

/** One event appended alone (its own group, unless other appends are queued in the same turn). */
export async function appendOne(log: EventLog, event: AppendInput): Promise<ToolEvent> {
  return (await log.append([event]))[0];
}

export const ACME = { tenant: 'acme', principal: 'acme-agent' };
export const GLOBEX = { tenant: 'globex', principal: 'globex-agent' };

export interface EventsServer {
  url: string;
  host: Host;
  app: FastifyInstance;
  log: EventLog;
  /** The config file the host was started from (in its own temp dir). */
  configFile: string;
  close(): Promise<void>;
}

/**
 * A small host config in a fresh temp dir: tenants acme and globex with the
 * demo keys (public, test-only), one host extension, and `events.file` next
 * to it, so the host opens the event log itself.
 */
export function eventsConfig(): string {
  return writeConfig({
    tenants: { acme: { tools: ['*'] }, globex: { tools: ['x-host-toolhost-*'] } },
    principals: [
      { id: ACME.principal, tenant: ACME.tenant, keyHash: hashApiKey(ACME_KEY) },
      { id: GLOBEX.principal, tenant: GLOBEX.tenant, keyHash: hashApiKey(GLOBEX_KEY) },
    ],
    events: { file: 'events.sqlite' },
    sources: { hostExtensions: [{ vendor: 'toolhost', name: 'server-time', command: ['date', '-u'], inputSchema: { type: 'object', properties: {} } }] },
  });
}

/**
 * Closes the app, then the host (which closes the log). After an aborted
 * fetch, undici opens a spare connection that never sends a request; Node
 * drops such sockets only at the header timeout (`server.headersTimeoutMs`,
 * seconds) and app.close() waits for them. So the clean close gets a moment,
 * then what is left is cut.
 * (The keep-alive test checks that app.close() alone ends open event streams.)
 */
async function closeAll(app: FastifyInstance, host: Host): Promise<void> {
  const closing = app.close();
  const timer = setTimeout(() => app.server.closeAllConnections(), 1000);
  await closing;
  clearTimeout(timer);
  await host.stop();
}

/**
 * The real host on an ephemeral port with its event log. Without route
 * options it is exactly `serve()` (the log wired by the host from config);
 * with options (a short keep-alive) the event routes are registered on the
 * app directly, with the host's log.
 */
export async function startEventsServer(routeOptions?: EventRouteOptions): Promise<EventsServer> {
  const configFile = eventsConfig();
  const logger = pino({ level: 'silent' });
  if (routeOptions === undefined) {
    const running = await serve(configFile, { host: '127.0.0.1', port: 0, logger });
    const log = running.host.events;
    if (!(log instanceof EventLog)) throw new Error('the host opened no SQLite event log');
    return { url: running.url, host: running.host, app: running.app, log, configFile, close: () => closeAll(running.app, running.host) };
  }
  const host = await startHost(configFile, { logger });
  const log = host.events;
  if (!(log instanceof EventLog)) throw new Error('the host opened no SQLite event log');
  const deps = {
    store: host.store,
    authenticator: host.authenticator,
    discoveryBody: host.discovery.body,
    sourceHealth: host.sourceHealth,
    metrics: host.metrics,
    logger: host.logger,
  };
  const app = buildApp(deps);
  registerEventRoutes(app, { ...deps, events: log }, routeOptions);
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  if (address === null || typeof address === 'string') throw new Error('no TCP address');
  return { url: `http://127.0.0.1:${address.port}`, host, app, log, configFile, close: () => closeAll(app, host) };
}

export { waitFor };

export interface SseMessage {
  id?: string;
  event?: string;
  data?: string;
}

/** An open SSE response read incrementally, with bounded waits. */
export interface SseClient {
  status: number;
  headers: Headers;
  messages: SseMessage[];
  comments: string[];
  /** Waits until at least n messages (not comments) have arrived. */
  waitForMessages(n: number, ms?: number): Promise<SseMessage[]>;
  waitForComments(n: number, ms?: number): Promise<string[]>;
  close(): void;
}

export async function openSse(url: string, token: string, headers: Record<string, string> = {}): Promise<SseClient> {
  const controller = new AbortController();
  const res = await fetch(`${url}/events/stream`, { headers: { authorization: `Bearer ${token}`, ...headers }, signal: controller.signal });
  const messages: SseMessage[] = [];
  const comments: string[] = [];
  let failure: unknown;
  if (res.body !== null && res.status === 200) {
    const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
    void (async () => {
      let buffer = '';
      try {
        for (;;) {
          const { value, done } = await reader.read();
          if (done) return;
          buffer += value;
          let cut: number;
          while ((cut = buffer.indexOf('\n\n')) >= 0) {
            const block = buffer.slice(0, cut);
            buffer = buffer.slice(cut + 2);
            const message: SseMessage = {};
            let isMessage = false;
            for (const line of block.split('\n')) {
              if (line.startsWith(':')) comments.push(line.slice(1).trim());
              else {
                const i = line.indexOf(':');
                const field = i < 0 ? line : line.slice(0, i);
                const val = i < 0 ? '' : line.slice(i + 1).replace(/^ /, '');
                if (field === 'id' || field === 'event' || field === 'data') {
                  message[field] = val;
                  isMessage = true;
                }
              }
            }
            if (isMessage) messages.push(message);
          }
        }
      } catch (err) {
        if (!controller.signal.aborted) failure = err;
      }
    })();
  }
  const waitForLength = async <T>(list: T[], n: number, ms: number, what: string): Promise<T[]> => {
    await waitFor(() => failure !== undefined || list.length >= n, ms, `${n} ${what} (have ${list.length})`);
    if (failure !== undefined) throw failure;
    return list.slice();
  };
  return {
    status: res.status,
    headers: res.headers,
    messages,
    comments,
    waitForMessages: (n, ms = 5000) => waitForLength(messages, n, ms, 'SSE messages'),
    waitForComments: (n, ms = 5000) => waitForLength(comments, n, ms, 'SSE comments'),
    close: () => controller.abort(),
  };
}
