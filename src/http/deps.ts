// What the HTTP front is built from (docs/contract.md "Endpoints"): the catalog,
// the authenticator, the event log and the observability hooks, handed to
// buildApp and to every route module. Its own file so that the routes need
// not import app.ts, which imports them.
import type { Logger } from 'pino';
import type { ProtectedResource } from '../auth/protected-resource.js';
import type { RedisHealth } from '../auth/redis-connection.js';
import type { Authenticator } from '../auth/principal.js';
import type { Body } from '../catalog/body.js';
import type { CatalogSearch } from '../catalog/search/catalog-search.js';
import type { ItemsStore } from '../catalog/resources-prompts.js';
import type { CatalogStore } from '../catalog/store.js';
import type { EventStore } from '../events/store.js';
import type { HostMetrics } from '../observability/metrics.js';
import type { Tracing } from '../observability/tracing.js';
import type { SourceHealth } from '../sources/raw-tool.js';
import type { AdminApi } from './admin-routes.js';
import type { ConnectionLimits } from './connection-limits.js';
import type { UiAssets } from './ui-assets.js';
import type { UpstreamCredentials } from '../upstream/credentials.js';

export interface EventRouteOptions {
  /** Interval of the SSE keep-alive comment (default 15 000 ms). */
  keepAliveMs?: number;
  /** Concurrent streams one principal may hold open (default 16); the next is refused with 429. */
  maxStreamsPerPrincipal?: number;
}

export interface HttpDeps {
  store: CatalogStore;
  authenticator: Authenticator;
  discoveryBody: Body;
  sourceHealth: () => SourceHealth[];
  metrics: HostMetrics;
  logger: Logger;
  /** The tool-session event log; when present, /events, /events/stream and /sessions/{id}/events are served. */
  events?: EventStore;
  /** Options of the event routes (the per-principal stream cap). */
  eventRoutes?: EventRouteOptions;
  /** Timeouts and the per-address connection cap (defaults: DEFAULT_CONNECTION_LIMITS). */
  connectionLimits?: ConnectionLimits;
  /** A server span per request when tracing is on. */
  tracing?: Tracing;
  /** Tool search; when present, GET /tool-search is served. */
  search?: CatalogSearch;
  /** The MCP servers' resources and prompts, which tool search finds too. */
  items?: ItemsStore;
  /** The shared Redis server's state, when one is configured (readiness reports it). */
  redisHealth?: () => RedisHealth;
  /** RFC 9728 metadata; when present, served at its well-known paths. */
  protectedResource?: ProtectedResource;
  /** The config generation served and the last reload (refused or not), for readiness. */
  configStatus?: () => object;
  /** The admin API; when present, /admin/v1/ is served to admins (everyone else: the unknown route's 404). */
  admin?: AdminApi;
  /** Principals' own upstream credentials; when present, /connections is served. */
  credentials?: UpstreamCredentials;
  /** The catalog browser; when present, /ui/ is served (its assets undefined when never built). */
  ui?: { assets: UiAssets | undefined };
}
