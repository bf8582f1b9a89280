// Starts the host and its HTTP front on a port; returns what a caller (the
// CLI, a test, the benchmark) needs to talk to it and to stop it.
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../http/app.js';
import { type ConnectionLimits, DEFAULT_CONNECTION_LIMITS } from '../http/connection-limits.js';
import { loadUiAssets } from '../http/ui-assets.js';
import type { HostConfigFile } from '../config/schema.js';
import { registerMcpFrontDoor, type FrontDoorOptions } from '../front-door/front-door.js';
import { ReplicaBus } from '../front-door/replica-bus.js';
import { MAX_SESSION_AGE_MS, SessionTokens } from '../front-door/session-token.js';
import { ConfigError } from '../util/validated-yaml.js';
import { readSecretRef, SecretRefError } from '../util/secret-ref.js';
import { type Host, type HostOptions, startHost } from './host.js';

export interface ServeOptions extends HostOptions {
  host?: string;
  port?: number;
}

export interface RunningServer {
  host: Host;
  app: FastifyInstance;
  url: string;
  close(): Promise<void>;
}

/**
 * The server's timeouts and connection cap from `server:`. The inactivity
 * timeout defaults to outlast the longest silent tools/call (`mcp.callTimeoutMs`
 * plus a minute), so it never cuts a call that is still running.
 */
function connectionLimits(config: HostConfigFile): ConnectionLimits {
  const server = config.server ?? {};
  const d = DEFAULT_CONNECTION_LIMITS;
  const callTimeoutMs = config.mcp?.callTimeoutMs ?? 60_000;
  return {
    headersTimeoutMs: server.headersTimeoutMs ?? d.headersTimeoutMs,
    requestTimeoutMs: server.requestTimeoutMs ?? d.requestTimeoutMs,
    keepAliveTimeoutMs: server.keepAliveTimeoutMs ?? d.keepAliveTimeoutMs,
    connectionTimeoutMs: server.connectionTimeoutMs ?? Math.max(d.connectionTimeoutMs, callTimeoutMs + 60_000),
    maxConnectionsPerAddress: server.maxConnectionsPerAddress ?? d.maxConnectionsPerAddress,
  };
}

/**
 * MCP sessions any replica can serve, when `mcp.sessionKey` is set; with a
 * `redis` section too, the bus that carries answers and closes between them.
 */
function replicasOf(host: Host, env: NodeJS.ProcessEnv): FrontDoorOptions['replicas'] {
  const mcp = host.loaded.config.mcp ?? {};
  if (mcp.sessionKey === undefined) return undefined;
  let tokens: SessionTokens;
  try {
    tokens = new SessionTokens(readSecretRef(mcp.sessionKey, { env, configDir: host.loaded.dir }, 'mcp.sessionKey'));
  } catch (err) {
    throw new ConfigError([`${host.loaded.file}: ${err instanceof SecretRefError ? err.message : (err as Error).message}`]);
  }
  const redis = host.redis;
  if (redis === undefined) return { tokens };
  // A closed session is remembered as long as its id could be honoured.
  return { tokens, bus: (handlers) => new ReplicaBus(redis, handlers, host.logger, MAX_SESSION_AGE_MS) };
}

export async function serve(configFile: string, options: ServeOptions = {}): Promise<RunningServer> {
  const host = await startHost(configFile, options);
  // Whatever fails from here on (building the app, listening) stops what startHost started.
  let app: FastifyInstance | undefined;
  try {
    app = buildApp({
      store: host.store,
      authenticator: host.authenticator,
      discoveryBody: host.discovery.body,
      sourceHealth: host.sourceHealth,
      metrics: host.metrics,
      logger: host.logger,
      events: host.events,
      credentials: host.credentials,
      connectionLimits: connectionLimits(host.loaded.config),
      eventRoutes: { maxStreamsPerPrincipal: host.loaded.config.events?.maxStreamsPerPrincipal },
      tracing: host.tracing,
      search: host.search,
      items: host.invoke.items?.store,
      protectedResource: host.auth.protectedResource,
      ui: (host.loaded.config.server?.ui ?? true) ? { assets: loadUiAssets() } : undefined,
      redisHealth: host.redis === undefined ? undefined : () => host.redis!.health(),
      configStatus: () => host.reloader.status(),
      admin: host.admin,
    });
    const mcpConfig = host.loaded.config.mcp ?? {};
    if (mcpConfig.enabled ?? true) {
      const frontDoor = registerMcpFrontDoor(app, host.invoke, {
        authenticator: host.authenticator,
        allowedHosts: mcpConfig.allowedHosts,
        pageSize: mcpConfig.pageSize,
        sessionIdleMs: mcpConfig.sessionIdleMs,
        approvalTimeoutMs: mcpConfig.approvalTimeoutMs,
        apiKeys: host.apiKeys,
        limits: {
          maxSessionsPerPrincipal: mcpConfig.maxSessionsPerPrincipal,
          maxConcurrentCallsPerPrincipal: mcpConfig.maxConcurrentCallsPerPrincipal,
          softCap: mcpConfig.sessionSoftCap,
          minIdleMs: mcpConfig.sessionMinIdleMs,
        },
        compactTenants: host.mcpDefaults.compact,
        search: host.search,
        searchTenants: host.mcpDefaults.search,
        tracing: host.tracing,
        replicas: replicasOf(host, options.env ?? process.env),
        fastCalls: mcpConfig.fastCalls,
      });
      host.metrics.gaugeSource('mcpSessions', frontDoor.sessionCount);
    }
    const server = host.loaded.config.server ?? {};
    await app.listen({ host: options.host ?? server.host ?? '127.0.0.1', port: options.port ?? server.port ?? 8080 });
  } catch (err) {
    await app?.close().catch(() => undefined);
    await host.stop();
    throw err;
  }
  const ready = app;
  const address = ready.server.address();
  const url = typeof address === 'object' && address ? `http://${address.family === 'IPv6' ? `[${address.address}]` : address.address}:${address.port}` : String(address);
  return {
    host,
    app: ready,
    url,
    close: async () => {
      await ready.close();
      await host.stop();
    },
  };
}
