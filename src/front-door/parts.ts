// What the MCP front door is configured with, and the parts its pieces share
// (the session registry, the resource handlers, the replicas' side), built
// once by registerMcpFrontDoor (front-door.ts).
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { Authenticator, Principal } from '../auth/principal.js';
import type { CatalogSearch } from '../catalog/search/catalog-search.js';
import type { Tracing } from '../observability/tracing.js';
import type { InvokeDeps } from '../invoke/types.js';
import type { ReplicaOptions, ReplicaSessions } from './replica-sessions.js';
import type { ItemHandlers } from './resource-handlers.js';
import type { SessionLimits, SessionRegistry } from './sessions.js';

export interface FrontDoorOptions {
  authenticator: Authenticator;
  /** Host header values accepted besides the loopback forms of the listening port (DNS-rebinding protection). */
  allowedHosts?: string[];
  pageSize?: number;
  /** Tenants whose MCP sessions get compact input schemas by default. */
  compactTenants?: ReadonlySet<string>;
  /** Tool search; without it there is no search mode. */
  search?: CatalogSearch;
  /** Tenants whose MCP sessions are in search mode by default (`?mode=tools` or `?mode=search` chooses per session). */
  searchTenants?: ReadonlySet<string>;
  /** Sessions idle this long are closed (shorter under pressure: see `limits`). */
  sessionIdleMs?: number;
  /** How long a call waits for the client's approval answer. */
  approvalTimeoutMs?: number;
  /**
   * The API-key principals as they stand now, and a signal when they change
   * (keys-file reload): open sessions of a changed key are told at once.
   */
  apiKeys?: { onReplace(listener: () => void): () => void; currentPrincipal(key: string): Principal | undefined; usablePrincipalKeys(): Set<string> };
  /** Runs each request's MCP handling inside its HTTP span, so a tools/call span is that request's child. */
  tracing?: Tracing;
  /** Session and concurrency caps; unset fields take DEFAULT_SESSION_LIMITS. */
  limits?: Partial<Omit<SessionLimits, 'idleMs'>>;
  /**
   * Several replicas without sticky sessions (docs/mcp.md "Several
   * replicas"): signed, self-describing session ids any replica can rebuild
   * a session from, and (with Redis) the bus that carries a client's answers
   * and session closes to the other replicas.
   */
  replicas?: ReplicaOptions;
  /** false: a tools/call takes the SDK transport's road too (`mcp.fastCalls`; src/front-door/fast-call.ts). */
  fastCalls?: boolean;
}

export interface FrontDoorParts {
  deps: InvokeDeps;
  options: FrontDoorOptions;
  sessions: SessionRegistry;
  items: ItemHandlers | undefined;
  replicas: ReplicaSessions | undefined;
  /** Sessions in search mode: their list is fixed, so a swap never changes it. */
  searchServers: WeakSet<Server>;
  pageSize: number;
  approvalTimeoutMs: number;
}
