// Config for one entry of `sources.mcp[]`: an MCP server the host reads tools
// from. Its TypeBox definition below is both the JSON Schema the config loader
// validates with and the types; the defaults live in MCP_DEFAULTS and are
// applied by `withDefaults`.
//
// Strings in `args`, `env`, `url` and `headers` may hold `${VAR}` references
// (src/util/env-refs.ts). They are resolved on every connect, never at load
// time, so a missing variable shows up as a failing source, not a crash.
import { Type, type Static } from '@sinclair/typebox';
import { MCP_PREFIX_PATTERN, SOURCE_ID_PATTERN } from '../../contract/tool-id.js';
import { CLOSED, Const, MapOf, OneOf, StringEnum } from '../../util/schema-builders.js';
import { credentialsSchema } from '../credentials-schema.js';

const ms = (description: string, minimum = 1) => Type.Integer({ minimum, description });

const backoffSchema = Type.Object(
  {
    /** First reconnect delay in ms (default 500). */
    initialMs: Type.Optional(ms('First reconnect delay (default 500)')),
    /** Cap of the exponential reconnect delay in ms (default 30000). */
    maxMs: Type.Optional(ms('Reconnect delay cap (default 30000)')),
  },
  CLOSED,
);
export type McpBackoffConfig = Static<typeof backoffSchema>;

/** Keys shared by both transports (each branch repeats them, because every object is closed). */
const commonProperties = {
  /** The server part of every toolId (`mcp:<id>.<tool>`); SOURCE_ID_PATTERN. */
  id: Type.String({ pattern: SOURCE_ID_PATTERN.source, description: 'Server id: the server part of toolIds, mcp:<id>.<toolName>' }),
  /** Time allowed for spawn/HTTP handshake + `initialize`; also the longest `start()` waits. */
  connectTimeoutMs: Type.Optional(ms('Connect + initialize timeout; start() waits at most this long (default 10000)')),
  /** Time allowed for each `tools/list` page (and each ping). */
  pageTimeoutMs: Type.Optional(ms('Timeout of each tools/list page and ping (default 10000)')),
  /** Most `tools/list` pages read in one refresh. */
  maxPages: Type.Optional(Type.Integer({ minimum: 1, description: 'Most tools/list pages per read (default 1000)' })),
  /** Most tools kept from one server. */
  maxTools: Type.Optional(Type.Integer({ minimum: 1, description: 'Most tools kept from the server (default 10000)' })),
  /** Periodic re-read of the tool list, for servers that never notify; 0 disables. */
  refreshIntervalMs: Type.Optional(ms('Periodic re-read; 0 disables (default 60000)', 0)),
  /** Quiet time after `notifications/tools/list_changed` before re-reading (bursts collapse). */
  debounceMs: Type.Optional(ms('Debounce of list_changed bursts (default 50)', 0)),
  /** Liveness ping interval; 0 disables. */
  pingIntervalMs: Type.Optional(ms('Liveness ping interval; 0 disables (default 15000)', 0)),
  /** Default timeout of a forwarded `tools/call`. */
  callTimeoutMs: Type.Optional(ms('Default tools/call timeout (default 60000)')),
  /** Longer descriptions are truncated (in characters). */
  maxDescriptionLength: Type.Optional(Type.Integer({ minimum: 1, description: 'Descriptions are truncated to this many characters (default 4096)' })),
  /** An input/output schema serializing to more bytes is left out. */
  maxSchemaBytes: Type.Optional(Type.Integer({ minimum: 2, description: 'Larger input/output schemas are left out (default 65536)' })),
  /** An input/output schema nested deeper than this is left out. */
  maxSchemaDepth: Type.Optional(Type.Integer({ minimum: 1, description: 'Deeper input/output schemas are left out (default 32)' })),
  backoff: Type.Optional(backoffSchema),
  /** Keep serving the last good tools while the server is down. */
  keepStaleTools: Type.Optional(Type.Boolean({ description: 'Serve the last good tools while the server is down (default true)' })),
  /**
   * `shared`: one connection (or process) carries every tenant's calls.
   * `tenant`: each tenant that calls gets a connection (or process) of its
   * own, opened at its first call and closed after `tenantIdleMs` unused.
   */
  isolation: Type.Optional(StringEnum(['shared', 'tenant'], { description: 'shared: one connection for every tenant; tenant: one connection (or process) per calling tenant, opened lazily (default shared)' })),
  /** With `isolation: tenant`: a tenant's connection unused this long is closed. */
  tenantIdleMs: Type.Optional(ms('isolation: tenant: close a tenant\'s connection unused this long (default 300000)')),
  /** Replaces `mcp__<id>` at the front of this server's MCP tool names; "" drops it. */
  mcpPrefix: Type.Optional(Type.String({ pattern: MCP_PREFIX_PATTERN.source, description: 'Front of this server\'s MCP tool names instead of mcp__<id>; "" for none' })),
};

const stdioSchema = Type.Object(
  {
    ...commonProperties,
    transport: Const('stdio'),
    /** Executable, spawned without a shell. A relative path with a `/` resolves against the config dir. */
    command: Type.String({ minLength: 1, description: 'Executable, spawned without a shell' }),
    args: Type.Optional(Type.Array(Type.String(), { description: 'Arguments; may hold ${VAR}' })),
    /** Extra environment for the child (besides a minimal PATH/HOME/...). */
    env: Type.Optional(MapOf(Type.String(), { description: 'Extra child environment; values may hold ${VAR}' })),
    /** Working directory (relative to the config dir). Default: the config dir. */
    cwd: Type.Optional(Type.String({ minLength: 1, description: 'Working directory, relative to the config file (default: its directory)' })),
  },
  CLOSED,
);
export type McpStdioConfig = Static<typeof stdioSchema>;

const httpSchema = Type.Object(
  {
    ...commonProperties,
    transport: Const('http'),
    /** Streamable HTTP endpoint; falls back to HTTP+SSE when the server answers 4xx. */
    url: Type.String({ pattern: '^https?://', description: 'Streamable HTTP endpoint (HTTP+SSE fallback); may hold ${VAR}' }),
    headers: Type.Optional(MapOf(Type.String(), { description: 'Request headers; values may hold ${VAR}' })),
    /** Whose credential a call sends (default shared: `headers`, the same for every caller). */
    credentials: Type.Optional(credentialsSchema),
  },
  CLOSED,
);
export type McpHttpConfig = Static<typeof httpSchema>;

/** JSON Schema (2020-12) of one `sources.mcp[]` entry. */
export const mcpSourceConfigSchema = OneOf([stdioSchema, httpSchema], {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  $id: 'urn:toolhost:config:sources.mcp.item',
  title: 'MCP server source',
});
export type McpSourceConfig = Static<typeof mcpSourceConfigSchema>;

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
  isolation: 'shared',
  tenantIdleMs: 300_000,
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
  isolation: 'shared' | 'tenant';
  tenantIdleMs: number;
  mcpPrefix?: string;
  /** The server's calls carry each caller's own credential (`credentials.mode` not shared): its tools say `auth.credentialRef`. */
  callerCredential?: boolean;
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
    isolation: config.isolation ?? d.isolation,
    tenantIdleMs: config.tenantIdleMs ?? d.tenantIdleMs,
    ...(config.mcpPrefix !== undefined ? { mcpPrefix: config.mcpPrefix } : {}),
    ...(config.transport === 'http' && (config.credentials?.mode ?? 'shared') !== 'shared' ? { callerCredential: true } : {}),
  };
}
