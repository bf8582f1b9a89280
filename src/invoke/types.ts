// What the invocation layer needs from the host, and what one call returns.
// The catalog describes; this layer calls (docs/mcp.md "tools/call"), always
// through the same snapshot lookup and visibility rule as GET /tools.
import type { Logger } from 'pino';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { CatalogStore } from '../catalog/store.js';
import type { EventLog } from '../events/log.js';
import type { ToolCallMetrics } from '../observability/metrics.js';
import type { Tracing } from '../observability/tracing.js';
import type { ConnectorToolSource } from '../sources/connector/index.js';
import type { HostExtensionConfig } from '../sources/host-extension/index.js';
import type { McpToolSource } from '../sources/mcp/index.js';
import type { ToolHandler } from '../sources/node-pack/index.js';
import type { WorkflowDefinition } from '../sources/workflow/index.js';

export interface InvokeDeps {
  store: CatalogStore;
  handlers: ReadonlyMap<string, ToolHandler>;
  workflows: ReadonlyMap<string, WorkflowDefinition>;
  hostExtensions: ReadonlyMap<string, HostExtensionConfig>;
  mcpSources: ReadonlyMap<string, McpToolSource>;
  connectors: ReadonlyMap<string, ConnectorToolSource>;
  events?: EventLog;
  env: NodeJS.ProcessEnv;
  configDir: string;
  logger: Logger;
  /** Default per-call timeout for sources without their own (node-pack handlers, connectors). */
  callTimeoutMs: number;
  /** Counts and times each call (absent in tests that build the deps by hand). */
  toolCalls?: ToolCallMetrics;
  /** A span per call, the upstream hop as its child. */
  tracing?: Tracing;
}

/** How one dispatched call ended, for the event log. */
export type CallStatus = 'ok' | 'error' | 'invalid' | 'refused' | 'timeout' | 'cancelled';

export interface DispatchOutcome {
  result: CallToolResult;
  status: CallStatus;
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

export class CallAbort extends Error {
  constructor(readonly status: 'timeout' | 'cancelled', message: string) {
    super(message);
  }
}
