// Config for one entry of `sources.mcp[]`: an MCP server the host reads tools
// from. The JSON Schema below is the validation the config loader applies; the
// defaults live in MCP_DEFAULTS and are applied by `withDefaults`.
//
// Strings in `args`, `env`, `url` and `headers` may hold `${VAR}` references
// (src/util/env-refs.ts). They are resolved on every connect, never at load
// time, so a missing variable shows up as a failing source, not a crash.
import { SOURCE_ID_PATTERN } from '../../contract/tool-id.js';

export interface McpBackoffConfig {
  /** First reconnect delay in ms (default 500). */
  initialMs?: number;
  /** Cap of the exponential reconnect delay in ms (default 30000). */
  maxMs?: number;
}

interface McpCommonConfig {
  /** The server part of every toolId (`mcp:<id>.<tool>`); SOURCE_ID_PATTERN. */
  id: string;
  /** Time allowed for spawn/HTTP handshake + `initialize`; also the longest `start()` waits. Default 10000. */
  connectTimeoutMs?: number;
  /** Time allowed for each `tools/list` page (and each ping). Default 10000. */
  pageTimeoutMs?: number;
  /** Most `tools/list` pages read in one refresh. Default 1000. */
  maxPages?: number;
  /** Most tools kept from one server. Default 10000. */
  maxTools?: number;
  /** Periodic re-read of the tool list, for servers that never notify; 0 disables. Default 60000. */
  refreshIntervalMs?: number;
  /** Quiet time after `notifications/tools/list_changed` before re-reading (bursts collapse). Default 50. */
  debounceMs?: number;
  /** Liveness ping interval; 0 disables. Default 15000. */
  pingIntervalMs?: number;
  /** Default timeout of a forwarded `tools/call`. Default 60000. */
  callTimeoutMs?: number;
  /** Longer descriptions are truncated (in characters). Default 4096. */
  maxDescriptionLength?: number;
  /** An input/output schema serializing to more bytes is left out. Default 65536. */
  maxSchemaBytes?: number;
  /** An input/output schema nested deeper than this is left out. Default 32. */
  maxSchemaDepth?: number;
  backoff?: McpBackoffConfig;
  /** Keep serving the last good tools while the server is down. Default true. */
  keepStaleTools?: boolean;
}

export interface McpStdioConfig extends McpCommonConfig {
  transport: 'stdio';
  /** Executable, spawned without a shell. A relative path with a `/` resolves against the config dir. */
  command: string;
  args?: string[];
  /** Extra environment for the child (besides a minimal PATH/HOME/...); values may hold `${VAR}`. */
  env?: Record<string, string>;
  /** Working directory (relative to the config dir). Default: the config dir. */
  cwd?: string;
}

export interface McpHttpConfig extends McpCommonConfig {
  transport: 'http';
  /** Streamable HTTP endpoint; falls back to HTTP+SSE when the server answers 4xx. */
  url: string;
  headers?: Record<string, string>;
}

export type McpSourceConfig = McpStdioConfig | McpHttpConfig;

export const MCP_DEFAULTS = {
  connectTimeoutMs: 10_000,
  pageTimeoutMs: 10_000,
  maxPages: 1000,
  maxTools: 10_000,
  refreshIntervalMs: 60_000,
  debounceMs: 50,
  pingIntervalMs: 15_000,
  callTimeoutMs: 60_000,
  maxDescriptionLength: 4096,
  maxSchemaBytes: 65_536,
  maxSchemaDepth: 32,
  backoff: { initialMs: 500, maxMs: 30_000 },
  keepStaleTools: true,
} as const;

/** The config with every option filled in. */
export interface ResolvedMcpOptions {
  connectTimeoutMs: number;
  pageTimeoutMs: number;
  maxPages: number;
  maxTools: number;
  refreshIntervalMs: number;
  debounceMs: number;
  pingIntervalMs: number;
  callTimeoutMs: number;
  maxDescriptionLength: number;
  maxSchemaBytes: number;
  maxSchemaDepth: number;
  backoff: { initialMs: number; maxMs: number };
  keepStaleTools: boolean;
}

export function withDefaults(config: McpSourceConfig): ResolvedMcpOptions {
  const d = MCP_DEFAULTS;
  return {
    connectTimeoutMs: config.connectTimeoutMs ?? d.connectTimeoutMs,
    pageTimeoutMs: config.pageTimeoutMs ?? d.pageTimeoutMs,
    maxPages: config.maxPages ?? d.maxPages,
    maxTools: config.maxTools ?? d.maxTools,
    refreshIntervalMs: config.refreshIntervalMs ?? d.refreshIntervalMs,
    debounceMs: config.debounceMs ?? d.debounceMs,
    pingIntervalMs: config.pingIntervalMs ?? d.pingIntervalMs,
    callTimeoutMs: config.callTimeoutMs ?? d.callTimeoutMs,
    maxDescriptionLength: config.maxDescriptionLength ?? d.maxDescriptionLength,
    maxSchemaBytes: config.maxSchemaBytes ?? d.maxSchemaBytes,
    maxSchemaDepth: config.maxSchemaDepth ?? d.maxSchemaDepth,
    backoff: {
      initialMs: config.backoff?.initialMs ?? d.backoff.initialMs,
      maxMs: Math.max(config.backoff?.maxMs ?? d.backoff.maxMs, config.backoff?.initialMs ?? d.backoff.initialMs),
    },
    keepStaleTools: config.keepStaleTools ?? d.keepStaleTools,
  };
}

const stringMap = {
  type: 'object',
  additionalProperties: { type: 'string' },
} as const;

const ms = (description: string, minimum = 1) => ({ type: 'integer', minimum, description }) as const;

/** Keys shared by both transports (each branch repeats them, because every object is closed). */
const common = {
  id: {
    type: 'string',
    pattern: SOURCE_ID_PATTERN.source,
    description: 'Server id: the server part of toolIds, mcp:<id>.<toolName>',
  },
  connectTimeoutMs: ms('Connect + initialize timeout; start() waits at most this long (default 10000)'),
  pageTimeoutMs: ms('Timeout of each tools/list page and ping (default 10000)'),
  maxPages: { type: 'integer', minimum: 1, description: 'Most tools/list pages per read (default 1000)' },
  maxTools: { type: 'integer', minimum: 1, description: 'Most tools kept from the server (default 10000)' },
  refreshIntervalMs: ms('Periodic re-read; 0 disables (default 60000)', 0),
  debounceMs: ms('Debounce of list_changed bursts (default 50)', 0),
  pingIntervalMs: ms('Liveness ping interval; 0 disables (default 15000)', 0),
  callTimeoutMs: ms('Default tools/call timeout (default 60000)'),
  maxDescriptionLength: { type: 'integer', minimum: 1, description: 'Descriptions are truncated to this many characters (default 4096)' },
  maxSchemaBytes: { type: 'integer', minimum: 2, description: 'Larger input/output schemas are left out (default 65536)' },
  maxSchemaDepth: { type: 'integer', minimum: 1, description: 'Deeper input/output schemas are left out (default 32)' },
  backoff: {
    type: 'object',
    additionalProperties: false,
    properties: {
      initialMs: ms('First reconnect delay (default 500)'),
      maxMs: ms('Reconnect delay cap (default 30000)'),
    },
  },
  keepStaleTools: { type: 'boolean', description: 'Serve the last good tools while the server is down (default true)' },
} as const;

/** JSON Schema (2020-12) of one `sources.mcp[]` entry. */
export const mcpSourceConfigSchema = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  $id: 'urn:toolhost:config:sources.mcp.item',
  title: 'MCP server source',
  oneOf: [
    {
      type: 'object',
      additionalProperties: false,
      required: ['id', 'transport', 'command'],
      properties: {
        ...common,
        transport: { const: 'stdio' },
        command: { type: 'string', minLength: 1, description: 'Executable, spawned without a shell' },
        args: { type: 'array', items: { type: 'string' }, description: 'Arguments; may hold ${VAR}' },
        env: { ...stringMap, description: 'Extra child environment; values may hold ${VAR}' },
        cwd: { type: 'string', minLength: 1, description: 'Working directory, relative to the config file (default: its directory)' },
      },
    },
    {
      type: 'object',
      additionalProperties: false,
      required: ['id', 'transport', 'url'],
      properties: {
        ...common,
        transport: { const: 'http' },
        url: { type: 'string', pattern: '^https?://', description: 'Streamable HTTP endpoint (HTTP+SSE fallback); may hold ${VAR}' },
        headers: { ...stringMap, description: 'Request headers; values may hold ${VAR}' },
      },
    },
  ],
} as const;
