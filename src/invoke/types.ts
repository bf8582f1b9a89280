// What the invocation layer needs from the host, and how asking for approval
// ends (what one call returns: sources/call-result.ts). The catalog
// describes; this layer calls (docs/mcp.md "tools/call"), always
// through the same snapshot lookup and visibility rule as GET /tools.
import type { Logger } from 'pino';
import type { CatalogStore } from '../catalog/store.js';
import type { EventStore } from '../events/store.js';
import type { ToolCallMetrics } from '../observability/metrics.js';
import type { Tracing } from '../observability/tracing.js';
import type { SourceRegistry } from '../sources/registry.js';
import type { ItemDeps } from './resources-prompts.js';
import type { UpstreamCredentials } from '../upstream/credentials.js';

/** What a call relays to the client that made it, for the MCP layer to build (it sees sources only through this layer). */
export type { CallerRequests, CallRelay } from '../sources/raw-tool.js';

/** `all`: every call's record is committed before its tool runs; `changes`: only calls of tools that may change something (docs/config.md "Durability of the event log"). */
export type WriteAheadPolicy = 'all' | 'changes';

export interface InvokeDeps {
  store: CatalogStore;
  /** Every source; a call goes to the one that owns its toolId. */
  sources: SourceRegistry;
  events?: EventStore;
  /** Which calls commit a write-ahead record before their tool runs (`events.writeAhead`; absent: all). */
  writeAhead?: WriteAheadPolicy;
  logger: Logger;
  /** Default per-call timeout for sources without their own (node-pack handlers, connectors). */
  callTimeoutMs: number;
  /** Counts and times each call (absent in tests that build the deps by hand). */
  toolCalls?: ToolCallMetrics;
  /** A span per call, the upstream hop as its child. */
  tracing?: Tracing;
  /** The MCP servers' resources and prompts (resources-prompts.ts); absent: the front door serves none. */
  items?: ItemDeps;
  /** Each caller's own upstream credentials, for sources whose credentials are not shared. */
  credentials?: UpstreamCredentials;
}

/**
 * How asking the caller for approval ended: its answer (`accept`, `decline`,
 * `cancel`), or why there is none: `unsupported` (the client cannot be
 * asked), `malformed` (the answer did not fit), `error` (the client answered
 * with an error), `timeout` (no answer in time), `disconnected` (the client
 * went away or cancelled the call while asked).
 */
export type ApprovalAnswer = 'accept' | 'decline' | 'cancel' | 'unsupported' | 'malformed' | 'error' | 'timeout' | 'disconnected';

/** Asks the caller to approve a call (MCP elicitation). Should not throw; a throw counts as `error`. */
export type ApprovalPrompt = (message: string) => Promise<ApprovalAnswer>;
