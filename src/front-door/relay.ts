// What a tool says and asks while it runs, relayed to the client that made
// the call (docs/mcp.md "Progress, logs and upstream requests"): progress
// under the client's own progressToken, log messages at the level the client
// set, and an upstream's elicitation or sampling requests. Everything goes
// out through the SDK's per-request `extra`, so it travels on the call's own
// response stream and reaches that one session, never another.
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import {
  CreateMessageResultSchema,
  CreateMessageResultWithToolsSchema,
  ElicitResultSchema,
  ErrorCode,
  LoggingLevelSchema,
  type LoggingLevel,
  type ServerNotification,
  type ServerRequest,
} from '@modelcontextprotocol/sdk/types.js';
import type { CallerRequests, CallRelay } from '../invoke/types.js';

const MAX_PROGRESS_MESSAGE_CHARS = 500;

const SEVERITY: ReadonlyMap<LoggingLevel, number> = new Map(LoggingLevelSchema.options.map((level, i) => [level, i]));

/** The level a session's client set with `logging/setLevel`; undefined: it set none, so every message goes (the SDK's own rule). */
export interface LogThreshold {
  level: LoggingLevel | undefined;
}

/**
 * The relay for one tools/call request. Notifications go out one after the
 * other, in the order they were reported; `finished()`, awaited before the
 * call's answer is returned, lets the last of them out first (a client stops
 * listening for a call's progress once it has the answer) and drops any
 * report that comes later.
 */
export function callRelay(
  server: Server,
  extra: RequestHandlerExtra<ServerRequest, ServerNotification>,
  options: { signal: AbortSignal; threshold: LogThreshold; requestTimeoutMs: number },
): { relay: CallRelay; finished(): Promise<void> } {
  let open = true;
  let sent: Promise<void> = Promise.resolve();
  let told = false;
  const notify = (notification: ServerNotification) => {
    if (!open) return;
    told = true;
    sent = sent.then(() => extra.sendNotification(notification)).catch(() => undefined);
  };
  const relay: CallRelay = {
    onLog(level, data, logger) {
      const threshold = options.threshold.level;
      if (threshold !== undefined && (SEVERITY.get(level) ?? 0) < (SEVERITY.get(threshold) ?? 0)) return;
      notify({ method: 'notifications/message', params: { level, data, ...(logger === undefined ? {} : { logger }) } });
    },
    requestFromCaller: callerRequests(server, extra, options),
  };
  const token = extra._meta?.progressToken;
  if (token !== undefined) {
    // Progress must grow: a report that does not (an upstream restarting its count, a step's own numbers) is dropped.
    let last = -Infinity;
    relay.onProgress = (progress, total, message) => {
      if (!Number.isFinite(progress) || progress <= last) return;
      last = progress;
      // Handlers and upstreams are not trusted to send the right types: what is not a number or a string is left out.
      const extent = typeof total === 'number' && Number.isFinite(total) ? { total } : {};
      const note = typeof message === 'string' ? { message: message.slice(0, MAX_PROGRESS_MESSAGE_CHARS) } : {};
      notify({ method: 'notifications/progress', params: { progressToken: token, progress, ...extent, ...note } });
    };
  }
  return {
    relay,
    finished: async () => {
      open = false;
      await sent;
      // A client may drop a notification read in one chunk with the answer (the SDK's does, for progress): a turn of the event loop first.
      if (told) await new Promise((resolve) => setImmediate(resolve));
    },
  };
}

function callerRequests(server: Server, extra: RequestHandlerExtra<ServerRequest, ServerNotification>, options: { signal: AbortSignal; requestTimeoutMs: number }): CallerRequests {
  const capabilities = server.getClientCapabilities();
  return {
    elicitation: capabilities?.elicitation !== undefined,
    sampling: capabilities?.sampling !== undefined,
    async send(method, params, signal) {
      // `elicitation: {}` means form only; a URL elicitation needs `url` declared.
      const what = method === 'sampling/createMessage' ? 'sampling' : params.mode === 'url' ? 'URL elicitation' : 'form elicitation';
      const able = method === 'sampling/createMessage' ? capabilities?.sampling !== undefined : params.mode === 'url' ? capabilities?.elicitation?.url !== undefined : capabilities?.elicitation?.form !== undefined;
      if (!able) throw refusal(`the client that made this call does not support ${what}`);
      const schema = method === 'elicitation/create' ? ElicitResultSchema : params.tools !== undefined ? CreateMessageResultWithToolsSchema : CreateMessageResultSchema;
      const both = signal === undefined ? options.signal : AbortSignal.any([options.signal, signal]);
      const result = await extra.sendRequest({ method, params } as ServerRequest, schema, { signal: both, timeout: options.requestTimeoutMs });
      return result as Record<string, unknown>;
    },
  };
}

/** A JSON-RPC error answer; not an McpError, whose message already carries the `MCP error <code>:` prefix the other side adds again. */
function refusal(message: string): Error {
  return Object.assign(new Error(message), { code: ErrorCode.InvalidRequest });
}
