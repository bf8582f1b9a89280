// The shapes the page reads from the host's API (CONTRACT.md "ToolDescriptor",
// docs/mcp.md "Tool sessions"); only the fields it shows.

export type Schema = Record<string, unknown>;

export interface Descriptor {
  toolId: string;
  source: string;
  safetyTier: 'pure' | 'read' | 'write' | 'exec';
  title?: string;
  description?: string;
  inputSchema?: Schema;
  outputSchema?: Schema;
  auth?: { scopes?: string[]; credentialRef?: boolean };
  egress?: string;
  approval?: string;
  replayPolicy?: string;
  annotations?: { readOnlyHint?: boolean; destructiveHint?: boolean; idempotentHint?: boolean; openWorldHint?: boolean };
}

export interface ToolEvent {
  sequence: number;
  eventId?: string;
  type: string;
  timestamp?: string;
  tenant?: string;
  principal?: string;
  payload: { sessionId?: string; toolId?: string; callId?: string; status?: string; durationMs?: number; outcome?: string; itemId?: string; bytes?: number };
}

export interface SourceHealth {
  id: string;
  kind: string;
  state: string;
  toolCount: number;
  lastRefresh?: string;
  lastError?: string;
  /** False when a call to the source's tools cannot be made now (`cannotCall` says why). */
  canCall?: boolean;
  cannotCall?: string;
}

export interface SourcesReport {
  status: string;
  tools?: number;
  sources: SourceHealth[];
}
