// The config file's JSON Schema (issue 2 item 2), assembled from the section
// schemas that live beside the code they configure. docs/config.md documents
// every key.
import { GLOB_PATTERN_SOURCE } from '../contract/glob.js';
import { policyConfigSchema, type PolicyConfig } from '../classify/policy.js';
import { principalEntrySchema, type PrincipalEntry } from '../auth/api-keys.js';
import { authConfigSchema, tenantRateLimitSchema, type AuthConfig } from '../auth/config.js';
import type { RateLimitSetting } from '../auth/rate-limit.js';
import { nodePackConfigSchema, type NodePackConfig } from '../sources/node-pack/index.js';
import { workflowConfigSchema, type WorkflowConfig } from '../sources/workflow/index.js';
import { hostExtensionConfigSchema, type HostExtensionConfig } from '../sources/host-extension/index.js';

export const TENANT_ID_PATTERN = '^[a-z0-9][a-z0-9_-]{0,62}$';

export interface TenantConfig {
  description?: string;
  /** Allowlist of toolId globs. */
  tools: string[];
  /** Per-principal rate limit of this tenant's callers: `true` (default), `false` (none) or `{ requestsPerSecond, burst }`. */
  rateLimit?: RateLimitSetting;
  /** Input schemas this tenant's MCP sessions get by default: `standard` (default) or `compact`. */
  mcpView?: 'standard' | 'compact';
}

/** The tool-session event log; tool sessions are recorded (and advertised) only when it is configured. */
export interface EventsConfig {
  file: string;
  retentionDays?: number;
  maxEvents?: number;
  /** False: refuse to start when the file is missing instead of creating an empty log (default true). */
  createIfMissing?: boolean;
  /** Concurrent `GET /events/stream` per principal (default 16). */
  maxStreamsPerPrincipal?: number;
}

/** The MCP front door at /mcp. */
export interface McpFrontDoorConfig {
  enabled?: boolean;
  allowedHosts?: string[];
  pageSize?: number;
  sessionIdleMs?: number;
  callTimeoutMs?: number;
  approvalTimeoutMs?: number;
  maxSessionsPerPrincipal?: number;
  maxConcurrentCallsPerPrincipal?: number;
  sessionSoftCap?: number;
  sessionMinIdleMs?: number;
}

/** One API-key principal; the shape is shared with `auth.keysFile` and lives beside the key store. */
export type PrincipalConfig = PrincipalEntry;

export interface ServerConfig {
  host?: string;
  port?: number;
  /** Limits on slow and greedy clients (docs/config.md "server"; defaults in src/http/connection-limits.ts). */
  headersTimeoutMs?: number;
  requestTimeoutMs?: number;
  keepAliveTimeoutMs?: number;
  connectionTimeoutMs?: number;
  maxConnectionsPerAddress?: number;
}

/** What `/metrics` exports beyond the fixed set. */
export interface MetricsConfig {
  /** Label tool-call metrics with the toolId (one series per tool and outcome): off by default. */
  toolLabels?: boolean;
}

/** How the catalog is rebuilt when a source changes. */
export interface CatalogConfig {
  /** Reuse what an unchanged tool already has on a refresh (previous build, entries, the stdio page cache); default true. */
  reuse?: boolean;
}

export interface HostConfigFile {
  server?: ServerConfig;
  auth?: AuthConfig;
  events?: EventsConfig;
  mcp?: McpFrontDoorConfig;
  metrics?: MetricsConfig;
  catalog?: CatalogConfig;
  tenants: Record<string, TenantConfig>;
  principals?: PrincipalConfig[];
  policy?: PolicyConfig;
  sources?: {
    nodePacks?: NodePackConfig[];
    workflows?: WorkflowConfig[];
    hostExtensions?: HostExtensionConfig[];
    mcp?: Record<string, unknown>[];
    connectors?: Record<string, unknown>[];
  };
}

export interface SectionSchemas {
  mcp: object;
  connectors: object;
}

export function configSchema(sections: SectionSchemas): object {
  return {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    title: 'toolhost config',
    type: 'object',
    additionalProperties: false,
    required: ['tenants'],
    properties: {
      server: {
        type: 'object',
        additionalProperties: false,
        properties: {
          host: { type: 'string', minLength: 1 },
          port: { type: 'integer', minimum: 0, maximum: 65535 },
          headersTimeoutMs: { type: 'integer', minimum: 1, maximum: 3_600_000 },
          requestTimeoutMs: { type: 'integer', minimum: 0, maximum: 3_600_000 },
          keepAliveTimeoutMs: { type: 'integer', minimum: 1, maximum: 3_600_000 },
          connectionTimeoutMs: { type: 'integer', minimum: 0, maximum: 86_400_000 },
          maxConnectionsPerAddress: { type: 'integer', minimum: 1, maximum: 1_000_000 },
        },
      },
      tenants: {
        type: 'object',
        minProperties: 1,
        propertyNames: { pattern: TENANT_ID_PATTERN },
        additionalProperties: {
          type: 'object',
          additionalProperties: false,
          required: ['tools'],
          properties: {
            description: { type: 'string' },
            tools: { type: 'array', items: { type: 'string', pattern: GLOB_PATTERN_SOURCE } },
            rateLimit: tenantRateLimitSchema,
            mcpView: { enum: ['standard', 'compact'] },
          },
        },
      },
      auth: authConfigSchema,
      events: {
        type: 'object',
        additionalProperties: false,
        required: ['file'],
        properties: {
          file: { type: 'string', minLength: 1 },
          retentionDays: { type: 'number', exclusiveMinimum: 0 },
          maxEvents: { type: 'integer', minimum: 1 },
          createIfMissing: { type: 'boolean' },
          maxStreamsPerPrincipal: { type: 'integer', minimum: 1, maximum: 10_000 },
        },
      },
      mcp: {
        type: 'object',
        additionalProperties: false,
        properties: {
          enabled: { type: 'boolean' },
          allowedHosts: { type: 'array', items: { type: 'string', minLength: 1 } },
          pageSize: { type: 'integer', minimum: 1, maximum: 1000 },
          sessionIdleMs: { type: 'integer', minimum: 1000 },
          callTimeoutMs: { type: 'integer', minimum: 1, maximum: 3_600_000 },
          approvalTimeoutMs: { type: 'integer', minimum: 100, maximum: 3_600_000 },
          maxSessionsPerPrincipal: { type: 'integer', minimum: 1 },
          maxConcurrentCallsPerPrincipal: { type: 'integer', minimum: 1 },
          sessionSoftCap: { type: 'integer', minimum: 1 },
          sessionMinIdleMs: { type: 'integer', minimum: 0 },
        },
      },
      metrics: {
        type: 'object',
        additionalProperties: false,
        properties: { toolLabels: { type: 'boolean' } },
      },
      catalog: {
        type: 'object',
        additionalProperties: false,
        properties: { reuse: { type: 'boolean' } },
      },
      principals: { type: 'array', items: principalEntrySchema },
      policy: policyConfigSchema,
      sources: {
        type: 'object',
        additionalProperties: false,
        properties: {
          nodePacks: { type: 'array', items: nodePackConfigSchema },
          workflows: { type: 'array', items: workflowConfigSchema },
          hostExtensions: { type: 'array', items: hostExtensionConfigSchema },
          mcp: { type: 'array', items: sections.mcp },
          connectors: { type: 'array', items: sections.connectors },
        },
      },
    },
  };
}
