// The one shape every source adapter produces (node-pack, workflow, mcp,
// connector, host-extension). The catalog layer turns RawTools into
// ToolDescriptors; adapters never classify beyond what the host itself
// derives (e.g. HTTP method semantics), and never from upstream claims.
import type { Classification, JsonObject, Source } from '../contract/descriptor.js';

export interface RawTool {
  source: Source;
  /** Already formatted with contract/tool-id.ts. */
  toolId: string;
  /** Where the tool was declared, for error messages (file and pointer, or server id). */
  origin: string;
  title?: string;
  description?: string;
  inputSchema?: JsonObject;
  outputSchema?: JsonObject;
  /** Scopes a principal must hold to see the tool (declared by the host's own config or pack). */
  scopes?: string[];
  /** True when calling the tool uses a credential the host resolves at call time. */
  credentialRef?: boolean;
  /**
   * Classification the host derives from the source's own semantics (HTTP
   * method of a connector operation). Host rules override it. Never filled
   * from an upstream's annotations or hints.
   */
  derived?: Partial<Classification>;
  /** For workflows: the ordered toolIds its steps call. */
  steps?: string[];
  /**
   * Words tool search matches besides the published fields (an OpenAPI
   * operation's tags, method and path); never published in a descriptor.
   */
  keywords?: string[];
}

export type SourceState = 'connecting' | 'connected' | 'stale' | 'failed';

export interface SourceHealth {
  /** Unique among sources, e.g. `mcp:everything`, `node-pack:text`. */
  id: string;
  kind: Source;
  state: SourceState;
  toolCount: number;
  /** ISO time of the last successful read, if any. */
  lastRefresh?: string;
  /** Short, credential-free description of the last failure. */
  lastError?: string;
}

/**
 * A live source of tools. Static sources (packs, workflows, host extensions)
 * load once; dynamic ones (MCP servers, connectors) refresh and call
 * `onChange` after their tool list changed. `tools()` always returns the last
 * good list, so a failing upstream never empties the catalog.
 */
export interface ToolSource {
  readonly id: string;
  readonly kind: Source;
  /** Begins loading. Resolves after the first load attempt, success or not; never rejects for upstream faults. */
  start(onChange: () => void): Promise<void>;
  tools(): readonly RawTool[];
  health(): SourceHealth;
  stop(): Promise<void>;
}
