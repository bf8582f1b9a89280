// The one shape every source adapter produces (node-pack, workflow, mcp,
// connector, host-extension), and the contract of a source: it lists, watches,
// reports health and calls its own tools. The catalog layer turns RawTools
// into ToolDescriptors; adapters never classify beyond what the host itself
// derives (e.g. HTTP method semantics), and never from upstream claims. The
// invocation layer finds the source that owns a toolId and asks it to call
// the tool, so a new kind of source needs no change there.
import type { Classification, JsonObject, Source } from '../contract/descriptor.js';
import type { LoggingLevel } from '@modelcontextprotocol/sdk/types.js';
import type { DispatchOutcome } from './call-result.js';
import type { UpstreamCredential } from './upstream-credential.js';

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
  /** The title the source's upstream gives itself (an OpenAPI document's `info.title`): search favours a source a request names. Never published. */
  sourceTitle?: string;
  /**
   * The source's configured `mcpPrefix`: replaces `<kind>__<sourceId>` at
   * the front of the tool's MCP name ("" drops it). Absent: the default.
   */
  mcpPrefix?: string;
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
  /**
   * Whether a call to this source's tools can be made now: false while the
   * source has no tools to call (`failed`, `connecting`) or something it needs
   * is missing (a connector's unset secret), with the reason in `cannotCall`.
   * Filled in by the registry from the state when the source does not say.
   */
  canCall?: boolean;
  /** Why `canCall` is false: one credential-free line. */
  cannotCall?: string;
  /** Results of this source's tools that did not match their advertised outputSchema, since the host started. */
  outputSchemaMismatches?: number;
  /** The latest of them: when, which tool, and what was wrong (the schema rule, never the result). */
  lastOutputSchemaMismatch?: { at: string; toolId: string; problem: string };
}

/** One step of a composed tool: the toolId it calls and its argument template. */
export interface ComposedStep {
  tool: string;
  with?: JsonObject;
}

/** What the host hands a source for one call. */
export interface InvokeContext {
  /** The caller's cancellation (client gone, `notifications/cancelled`). */
  signal?: AbortSignal;
  /**
   * The deadline for a source without a timeout of its own (node-pack
   * handlers, connectors): the host's `mcp.callTimeoutMs`. Sources with
   * their own setting (an MCP server's `callTimeoutMs`, a host extension's
   * `timeoutMs`) use that instead.
   */
  defaultTimeoutMs: number;
  /** The tenant the call is made for: a source that keeps upstream state per tenant (an isolated MCP server) picks it by this. */
  tenant?: string;
  /**
   * Runs other catalog tools as the steps of this call, for the same caller,
   * with the same visibility, argument validation and tool session as a
   * direct call. Only the invocation layer holds the snapshot and the session,
   * so a source whose tools are made of other tools (workflows) hands its
   * steps over here instead of calling other sources itself.
   */
  runSteps(steps: readonly ComposedStep[], input: Record<string, unknown>): Promise<DispatchOutcome>;
  /**
   * Reports how far the call has come, to the client that made it. Absent
   * when that client asked for no progress. `progress` must grow from one
   * report to the next; `total` is the value it will reach, when known.
   */
  onProgress?(progress: number, total?: number, message?: string): void;
  /** A log message about this call for the client that made it (dropped below the level that client set). Credential-free. */
  onLog?(level: LoggingLevel, data: unknown, logger?: string): void;
  /** Asks the client that made this call (absent when the call has no such client). */
  requestFromCaller?: CallerRequests;
  /** This caller's own upstream credential, when the source's `credentials.mode` is not `shared`. */
  credential?: UpstreamCredential;
}

/** What the host relays from a call to the client that made it. */
export type CallRelay = Pick<InvokeContext, 'onProgress' | 'onLog' | 'requestFromCaller'>;

/** Requests a source may put to the client of the call it runs: an upstream's elicitation and sampling, relayed. */
export interface CallerRequests {
  /** What that client declared it can answer. */
  readonly elicitation: boolean;
  readonly sampling: boolean;
  /**
   * Sends `elicitation/create` or `sampling/createMessage` with `params`
   * and resolves with the client's result. Rejects (an McpError) when the
   * client cannot answer, does not answer in time, or answers with an error.
   */
  send(method: 'elicitation/create' | 'sampling/createMessage', params: Record<string, unknown>, signal?: AbortSignal): Promise<Record<string, unknown>>;
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
  /**
   * Whether calls to `toolId` are this source's: one of its tools, or, for a
   * source whose list follows an upstream (MCP server, connector), any id in
   * its namespace, since the tool may appear after a refresh. Calls are routed
   * by it, and a workflow step that no source owns is a config error.
   */
  owns(toolId: string): boolean;
  /**
   * Calls one of its tools. What is the same for every call (environment,
   * config directory, logger, tracing) the source was given when it was made
   * (SourceContext); `context` holds what belongs to this call. A tool-level failure is an outcome with status `error`; a
   * deadline or cancellation throws CallAbort. `args` have been validated
   * against the tool's input schema.
   */
  invoke(toolId: string, args: Record<string, unknown>, context: InvokeContext): Promise<DispatchOutcome>;
}
