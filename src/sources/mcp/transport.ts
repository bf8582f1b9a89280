// The transports an MCP source reaches its server over: a child process over stdio, or Streamable HTTP with the old
// HTTP+SSE transport as the fallback (the source decides when to fall back).
//
// `${VAR}` references are resolved here, at every connect, from the source's
// environment; every value they resolve to, and every configured header or
// env value, is handed to the source's Redactor before anything could print
// it. HTTP requests carry the active span's `traceparent` when tracing is on.
// Over stdio the transport is toolhost's own (stdio-client.ts), reading with
// the cache of unchanged `tools/list` pages unless reuse is off
// (`catalog.reuse: false`).
import path from 'node:path';
import type { Readable } from 'node:stream';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { DEFAULT_INHERITED_ENV_VARS, getDefaultEnvironment } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import { envRefNames, resolveEnvRefs, resolveEnvRefsInRecord } from '../../util/env-refs.js';
import type { SourceContext } from '../source-context.js';
import type { McpHttpConfig, McpStdioConfig } from './config-schema.js';
import { mentionsCredential } from '../../contract/credential-names.js';
import type { Redactor } from './redact.js';
import { StdioClientTransport } from './stdio-client.js';
import { CachingLineReader } from './stdio-lines.js';

export type TransportKind = 'stdio' | 'streamable-http' | 'sse';

/** The values a string's `${VAR}` references resolve to: secrets from then on. */
function refsIn(s: string, env: NodeJS.ProcessEnv): string[] {
  return envRefNames(s)
    .map((n) => env[n])
    .filter((v): v is string => typeof v === 'string');
}

/**
 * Configured header/env values: `${VAR}` values and values under a
 * credential-like name are secrets; the rest stays out of logs only.
 */
export function addConfiguredValues(redactor: Redactor, env: NodeJS.ProcessEnv, configured: Record<string, string> | undefined, resolved: Record<string, string> = configured ?? {}): void {
  for (const [name, raw] of Object.entries(configured ?? {})) {
    const fromRefs = refsIn(raw, env);
    redactor.add(fromRefs);
    const value = resolved[name] ?? raw;
    redactor.add([value], fromRefs.length > 0 || mentionsCredential(name) ? 'secret' : 'sensitive');
  }
}

export interface StdioTransport {
  transport: StdioClientTransport;
  /** The child's stderr (piped, for the source's debug log). */
  stderr: Readable | null;
  /** The transport's line reader with the page cache; absent when reuse is off. */
  lines?: CachingLineReader;
}

/** The child process transport for a stdio server (not started: the client's connect starts it). */
export function stdioTransport(config: McpStdioConfig, ctx: SourceContext, redactor: Redactor): StdioTransport {
  const env = ctx.env;
  const args = (config.args ?? []).map((a) => resolveEnvRefs(a, env));
  const extraEnv = resolveEnvRefsInRecord(config.env, env);
  redactor.add((config.args ?? []).flatMap((a) => refsIn(a, env)));
  addConfiguredValues(redactor, env, config.env, extraEnv);
  const childEnv: Record<string, string> = {};
  for (const key of DEFAULT_INHERITED_ENV_VARS) {
    const v = env[key];
    if (v !== undefined && !v.startsWith('()')) childEnv[key] = v;
  }
  Object.assign(childEnv, extraEnv);
  const command = config.command.includes('/') && !path.isAbsolute(config.command) ? path.resolve(ctx.configDir, config.command) : config.command;
  const lines = ctx.reuse === false ? undefined : new CachingLineReader();
  const server = {
    command,
    args,
    // The SDK's safe defaults from this process under the source's own: what a child started by the SDK's transport sees.
    env: { ...getDefaultEnvironment(), ...childEnv },
    cwd: path.resolve(ctx.configDir, config.cwd ?? '.'),
  };
  const transport = new StdioClientTransport(server, lines);
  return { transport, stderr: transport.stderr, lines };
}

/** Makes the transports of one HTTP server, both from the same resolved URL and headers. */
export interface HttpTransports {
  streamable(): StreamableHTTPClientTransport;
  /** The old HTTP+SSE transport, for a server that does not speak Streamable HTTP. */
  sse(): SSEClientTransport;
}

/**
 * Resolves the URL and headers of an HTTP server (credentials in the URL
 * become Basic auth: fetch refuses URLs with userinfo) and returns what
 * makes its transports.
 */
export function httpTransports(config: McpHttpConfig, ctx: SourceContext, redactor: Redactor, callerHeaders?: Readonly<Record<string, string>>): HttpTransports {
  const env = ctx.env;
  const url = new URL(resolveEnvRefs(config.url, env));
  const headers = withCallerHeaders(resolveEnvRefsInRecord(config.headers, env), callerHeaders);
  redactor.add(refsIn(config.url, env));
  addConfiguredValues(redactor, env, config.headers, headers);
  if (url.username || url.password) {
    // Unless an Authorization header is configured.
    const decode = (part: string) => {
      try {
        return decodeURIComponent(part);
      } catch {
        return part;
      }
    };
    const user = decode(url.username);
    const pass = decode(url.password);
    redactor.add([url.username, url.password, user, pass]);
    if (!Object.keys(headers).some((h) => h.toLowerCase() === 'authorization')) {
      headers.Authorization = `Basic ${Buffer.from(`${user}:${pass}`).toString('base64')}`;
      redactor.add([headers.Authorization, headers.Authorization.slice(6)]);
    }
    url.username = '';
    url.password = '';
  }
  for (const [name, v] of url.searchParams) redactor.add([v], mentionsCredential(name) ? 'secret' : 'sensitive');

  const traced = tracedFetch(ctx);
  return {
    streamable: () =>
      new StreamableHTTPClientTransport(url, {
        requestInit: { headers },
        ...(traced ? { fetch: traced } : {}),
        reconnectionOptions: { initialReconnectionDelay: 200, maxReconnectionDelay: 2000, reconnectionDelayGrowFactor: 2, maxRetries: 2 },
      }),
    sse: () => new SSEClientTransport(url, { requestInit: { headers }, ...(traced ? { fetch: traced } : {}) }),
  };
}

/** A caller's own headers (its credential) replace configured ones of the same name, whatever their case. */
function withCallerHeaders(configured: Record<string, string>, caller: Readonly<Record<string, string>> | undefined): Record<string, string> {
  if (!caller) return configured;
  const names = new Set(Object.keys(caller).map((n) => n.toLowerCase()));
  const out: Record<string, string> = {};
  for (const [n, v] of Object.entries(configured)) if (!names.has(n.toLowerCase())) out[n] = v;
  return { ...out, ...caller };
}

/** With tracing on, a fetch that puts the active span's traceparent on each request to the upstream. */
function tracedFetch(ctx: SourceContext): FetchLike | undefined {
  const tracing = ctx.tracing;
  if (!tracing?.enabled) return undefined;
  return (input, init) => {
    const extra: Record<string, string> = {};
    tracing.injectHeaders(extra);
    const merged = new Headers(init?.headers);
    for (const [k, v] of Object.entries(extra)) merged.set(k, v);
    return fetch(input, { ...init, headers: merged });
  };
}

/** The server's stderr, read so the pipe never fills: each non-blank line to `onLine`; a line over 8 KiB is dropped. */
export function drainStderr(stream: Readable | null, onLine: (line: string) => void): void {
  if (!stream) return;
  let buf = '';
  stream.setEncoding?.('utf8');
  stream.on('data', (chunk: string | Buffer) => {
    buf += chunk.toString();
    let nl: number;
    while ((nl = buf.indexOf('\n')) >= 0) {
      const line = buf.slice(0, nl);
      buf = buf.slice(nl + 1);
      if (line.trim() !== '') onLine(line);
    }
    if (buf.length > 8192) buf = '';
  });
  stream.on('error', () => {});
}
