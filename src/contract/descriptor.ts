// Wire types of the openwop v2 toolCatalog contract (docs/contract.md "The descriptor",
// docs/contract.md "ToolDescriptor" and "CompactToolDescriptor"). Pure types and
// the closed value sets; no I/O.

export const SOURCES = ['node-pack', 'workflow', 'mcp', 'connector', 'host-extension'] as const;
export type Source = (typeof SOURCES)[number];

export const SAFETY_TIERS = ['pure', 'read', 'write', 'exec'] as const;
export type SafetyTier = (typeof SAFETY_TIERS)[number];

export const REPLAY_POLICIES = ['deterministic', 'idempotent', 'non-deterministic'] as const;
export type ReplayPolicy = (typeof REPLAY_POLICIES)[number];

export const EGRESS_POSTURES = ['none', 'safe-fetch', 'host-mediated', 'host-owned'] as const;
export type Egress = (typeof EGRESS_POSTURES)[number];

export const APPROVALS = ['never', 'conditional', 'always'] as const;
export type Approval = (typeof APPROVALS)[number];

export const HINT_LEVELS = ['low', 'medium', 'high'] as const;
export type HintLevel = (typeof HINT_LEVELS)[number];

export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };
export type JsonObject = { [key: string]: JsonValue };

/** The four MCP ToolAnnotations hints, always all present (docs/contract.md "The descriptor"). */
export interface ToolAnnotations {
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  openWorldHint: boolean;
}

export interface ToolAuth {
  scopes?: string[];
  credentialRef?: boolean;
}

export interface ToolDescriptor {
  toolId: string;
  source: Source;
  safetyTier: SafetyTier;
  title?: string;
  description?: string;
  inputSchema?: JsonObject;
  outputSchema?: JsonObject;
  auth?: ToolAuth;
  egress?: Egress;
  approval?: Approval;
  replayPolicy?: ReplayPolicy;
  costHint?: HintLevel;
  latencyHint?: HintLevel;
  annotations?: ToolAnnotations;
}

/** The model-facing view: identity, tier and what the model needs to call the tool. */
export type CompactToolDescriptor = Pick<ToolDescriptor, 'toolId' | 'source' | 'safetyTier' | 'title' | 'description' | 'inputSchema'>;

/** The fields the host's policy decides; never taken from an upstream's self-description. */
export interface Classification {
  safetyTier: SafetyTier;
  replayPolicy?: ReplayPolicy;
  egress?: Egress;
  approval?: Approval;
  costHint?: HintLevel;
  latencyHint?: HintLevel;
}
