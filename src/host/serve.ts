// Starts the host and its HTTP front on a port; returns what a caller (the
// CLI, a test, the benchmark) needs to talk to it and to stop it.
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../http/app.js';
import { registerMcpFrontDoor } from '../mcp/front-door.js';
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

export async function serve(configFile: string, options: ServeOptions = {}): Promise<RunningServer> {
  const host = await startHost(configFile, options);
  const app = buildApp({
    store: host.store,
    authenticator: host.authenticator,
    discoveryBody: host.discovery.body,
    sourceHealth: host.sourceHealth,
    metrics: host.metrics,
    logger: host.logger,
    events: host.events,
  });
  const mcpConfig = host.loaded.config.mcp ?? {};
  if (mcpConfig.enabled ?? true) {
    registerMcpFrontDoor(app, host.invoke, {
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
      compactTenants: new Set(Object.entries(host.loaded.config.tenants).filter(([, t]) => t.mcpView === 'compact').map(([id]) => id)),
    });
  }
  const server = host.loaded.config.server ?? {};
  try {
    await app.listen({ host: options.host ?? server.host ?? '127.0.0.1', port: options.port ?? server.port ?? 8080 });
  } catch (err) {
    await host.stop();
    throw err;
  }
  const address = app.server.address();
  const url = typeof address === 'object' && address ? `http://${address.family === 'IPv6' ? `[${address.address}]` : address.address}:${address.port}` : String(address);
  return {
    host,
    app,
    url,
    close: async () => {
      await app.close();
      await host.stop();
    },
  };
}
