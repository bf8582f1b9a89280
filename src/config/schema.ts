// The config file's one definition: TypeBox schemas that are at once the JSON
// Schema (2020-12) the loader validates with and, through `Static`, the
// TypeScript types. Each section's schema lives beside the code it configures
// and is assembled here; docs/config.md documents every key. To add a key:
// define it beside its owner, then regenerate the shipped toolhost.schema.json.
import { Type, type Static } from '@sinclair/typebox';
import { GLOB_PATTERN_SOURCE } from '../contract/glob.js';
import { CLOSED, MapOf, OneOf, StringEnum } from '../util/schema-builders.js';
import { secretRefSchema } from '../util/secret-ref.js';
import { policyConfigSchema } from '../classify/policy.js';
import { TENANT_ID_PATTERN } from '../contract/identifiers.js';
import { principalEntrySchema, type PrincipalEntry } from '../auth/principal-entry.js';
import { authConfigSchema, tenantRateLimitSchema } from '../auth/config.js';
import { redisConfigSchema } from '../auth/redis-connection.js';
import { nodePackConfigSchema } from '../sources/node-pack/index.js';
import { workflowConfigSchema } from '../sources/workflow/index.js';
import { hostExtensionConfigSchema } from '../sources/host-extension/index.js';
import { mcpSourceConfigSchema } from '../sources/mcp/config-schema.js';
import { connectorSourceConfigSchema } from '../sources/connector/config-schema.js';
import { upstreamCredentialsConfigSchema } from '../upstream/config-schema.js';

const tenantSchema = Type.Object(
  {
    description: Type.Optional(Type.String()),
    /** Allowlist of toolId globs. */
    tools: Type.Array(Type.String({ pattern: GLOB_PATTERN_SOURCE })),
    /** MCP resources and templates this tenant may list and read: globs over `mcp:<server>:<uri>` (default none). */
    resources: Type.Optional(Type.Array(Type.String({ pattern: GLOB_PATTERN_SOURCE }))),
    /** MCP prompts this tenant may list and get: globs over `mcp:<server>.<prompt name>` (default none). */
    prompts: Type.Optional(Type.Array(Type.String({ pattern: GLOB_PATTERN_SOURCE }))),
    /** Per-principal rate limit of this tenant's callers: `true` (default), `false` (none) or `{ requestsPerSecond, burst }`. */
    rateLimit: Type.Optional(tenantRateLimitSchema),
    /** Input schemas this tenant's MCP sessions get by default: `standard` (default) or `compact`. */
    mcpView: Type.Optional(StringEnum(['standard', 'compact'])),
    /** What this tenant's MCP sessions list by default: every tool (`tools`, default) or the three search tools (`search`). */
    mcpMode: Type.Optional(StringEnum(['tools', 'search'])),
  },
  CLOSED,
);
export type TenantConfig = Static<typeof tenantSchema>;

/** An OpenAI-compatible `POST /v1/embeddings` (a local model server, say) that search ranks by meaning with, when it answers. */
const searchEmbeddingsSchema = Type.Object(
  {
    /** The endpoint's full URL, e.g. `http://127.0.0.1:8080/v1/embeddings`. */
    url: Type.String({ pattern: '^https?://[^\\s]+$', maxLength: 2048 }),
    /** The `model` sent with each request. */
    model: Type.String({ minLength: 1, maxLength: 256 }),
    /** The bearer key, if the endpoint wants one: `{ env: NAME }` or `{ file: path }`, never the key itself. */
    apiKey: Type.Optional(secretRefSchema),
    /** How long a search waits for its request's vector before it ranks without (default 300 ms). */
    timeoutMs: Type.Optional(Type.Integer({ minimum: 10, maximum: 10_000 })),
    /** The endpoint's ranking's weight in the fusion, the term index's being 1 (default 1). */
    weight: Type.Optional(Type.Number({ minimum: 0, maximum: 4 })),
  },
  CLOSED,
);
export type SearchEmbeddingsConfig = Static<typeof searchEmbeddingsSchema>;

/** Tool search (GET /tool-search, the MCP search mode). */
const searchSchema = Type.Object(
  {
    /** Synonym groups added to the built-in ones: each word of a group stands for the others in a query. */
    synonyms: Type.Optional(Type.Array(Type.Array(Type.String({ minLength: 1, maxLength: 64 }), { minItems: 2, maxItems: 50 }), { maxItems: 1000 })),
    /** Search indexes kept at most (one per distinct visible set; least recently searched dropped first). */
    maxIndexes: Type.Optional(Type.Integer({ minimum: 1, maximum: 1024 })),
    /** Rank by meaning as well as by words, with the word vectors of the installed vector package (default true; loaded on the first search). */
    meaning: Type.Optional(Type.Boolean()),
    /** An embeddings endpoint ranking by meaning in place of the word vectors while it answers (never required). */
    embeddings: Type.Optional(searchEmbeddingsSchema),
  },
  CLOSED,
);
export type SearchConfig = Static<typeof searchSchema>;

/** The PostgreSQL event store every replica shares (docs/deploy.md); the URL only by `${VAR}` or a secret reference. */
const eventsPostgresSchema = Type.Object(
  {
    /** `postgres://user:${PGPASSWORD}@host:5432/db`, `${DATABASE_URL}`, `{ env: NAME }` or `{ file: path }`; a password written in the file is refused. */
    url: OneOf([Type.String({ minLength: 1 }), secretRefSchema]),
    /** Connections per replica (default 10), plus one held for LISTEN. */
    poolSize: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })),
    /** The NOTIFY channel (default `toolhost_events`); replicas that share it share live events. */
    channel: Type.Optional(Type.String({ pattern: '^[a-z_][a-z0-9_]{0,62}$' })),
    /** The safety-net read of subscribed streams when a notification is lost (default 1000 ms). */
    pollIntervalMs: Type.Optional(Type.Integer({ minimum: 50, maximum: 60_000 })),
    /** How long getting a connection may take before the database counts as unreachable (default 3000 ms). */
    connectTimeoutMs: Type.Optional(Type.Integer({ minimum: 100, maximum: 60_000 })),
  },
  CLOSED,
);
export type EventsPostgresConfig = Static<typeof eventsPostgresSchema>;

/** The tool-session event log; tool sessions are recorded (and advertised) only when it is configured. Exactly one of `file` (SQLite) and `postgres`. */
const eventsSchema = Type.Object(
  {
    file: Type.Optional(Type.String({ minLength: 1 })),
    postgres: Type.Optional(eventsPostgresSchema),
    retentionDays: Type.Optional(Type.Number({ exclusiveMinimum: 0 })),
    maxEvents: Type.Optional(Type.Integer({ minimum: 1 })),
    /** What is fsync'd before an event append is acknowledged (default full; docs/config.md, docs/architecture.md "Durability"). */
    synchronous: Type.Optional(StringEnum(['full', 'normal'])),
    /** Which calls commit a write-ahead record before their tool runs (default all; `changes`: not those of a pure or read tool; docs/config.md). */
    writeAhead: Type.Optional(StringEnum(['all', 'changes'])),
    /** False: refuse to start when the file is missing instead of creating an empty log (default true). */
    createIfMissing: Type.Optional(Type.Boolean()),
    /** Concurrent `GET /events/stream` per principal (default 16). */
    maxStreamsPerPrincipal: Type.Optional(Type.Integer({ minimum: 1, maximum: 10_000 })),
  },
  {
    ...CLOSED,
    oneOf: [{ required: ['file'] }, { required: ['postgres'] }],
    if: { required: ['file'] },
    then: { properties: { postgres: { not: {}, description: 'events.file (SQLite) and events.postgres exclude each other: one event store' } } },
  },
);
export type EventsConfig = Static<typeof eventsSchema>;

/** The MCP front door at /mcp. */
const mcpFrontDoorSchema = Type.Object(
  {
    enabled: Type.Optional(Type.Boolean()),
    allowedHosts: Type.Optional(Type.Array(Type.String({ minLength: 1 }))),
    pageSize: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })),
    sessionIdleMs: Type.Optional(Type.Integer({ minimum: 1000 })),
    callTimeoutMs: Type.Optional(Type.Integer({ minimum: 1, maximum: 3_600_000 })),
    approvalTimeoutMs: Type.Optional(Type.Integer({ minimum: 100, maximum: 3_600_000 })),
    maxSessionsPerPrincipal: Type.Optional(Type.Integer({ minimum: 1 })),
    maxConcurrentCallsPerPrincipal: Type.Optional(Type.Integer({ minimum: 1 })),
    sessionSoftCap: Type.Optional(Type.Integer({ minimum: 1 })),
    sessionMinIdleMs: Type.Optional(Type.Integer({ minimum: 0 })),
    /** The key replicas sign MCP session ids with (at least 32 bytes, from an env variable or a file): any replica then serves any session (docs/mcp.md "Several replicas"). */
    sessionKey: Type.Optional(secretRefSchema),
    fastCalls: Type.Optional(Type.Boolean()),
    /** A resources/read whose contents are larger is refused (default 4 MiB). */
    maxResourceBytes: Type.Optional(Type.Integer({ minimum: 1, maximum: 256 * 1024 * 1024 })),
  },
  CLOSED,
);
export type McpFrontDoorConfig = Static<typeof mcpFrontDoorSchema>;

/** One API-key principal; the shape is shared with `auth.keysFile` and lives beside the key store. */
export type PrincipalConfig = PrincipalEntry;

const serverSchema = Type.Object(
  {
    host: Type.Optional(Type.String({ minLength: 1 })),
    port: Type.Optional(Type.Integer({ minimum: 0, maximum: 65535 })),
    // Limits on slow and greedy clients (docs/config.md "server"; defaults in src/http/connection-limits.ts).
    headersTimeoutMs: Type.Optional(Type.Integer({ minimum: 1, maximum: 3_600_000 })),
    requestTimeoutMs: Type.Optional(Type.Integer({ minimum: 0, maximum: 3_600_000 })),
    keepAliveTimeoutMs: Type.Optional(Type.Integer({ minimum: 1, maximum: 3_600_000 })),
    connectionTimeoutMs: Type.Optional(Type.Integer({ minimum: 0, maximum: 86_400_000 })),
    maxConnectionsPerAddress: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000 })),
    /** Serve the catalog browser at /ui/ (default true; docs/ui.md). */
    ui: Type.Optional(Type.Boolean()),
    /** Reload the configuration when its file changes (default true; docs/config.md "Changing a running host"). */
    watchConfig: Type.Optional(Type.Boolean()),
  },
  CLOSED,
);
export type ServerConfig = Static<typeof serverSchema>;

/** Who may call the admin API under /admin/v1/ (docs/admin.md); without this section it is not served. */
const adminSchema = Type.Object(
  {
    /** API keys that reach only the admin API: they hold no tenant and see no tenant's tools. */
    keys: Type.Optional(Type.Array(Type.Object({ id: Type.String({ minLength: 1, maxLength: 128 }), keyHash: Type.String({ pattern: '^sha256:[0-9a-f]{64}$' }) }, CLOSED), { maxItems: 100 })),
    /** A tenant principal (API key or JWT) holding this scope is an admin too (default `toolhost:admin`). */
    scope: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })),
  },
  CLOSED,
);
export type AdminConfig = Static<typeof adminSchema>;

/** What `/metrics` exports beyond the fixed set. */
const metricsSchema = Type.Object(
  {
    /** Label tool-call metrics with the toolId (one series per tool and outcome): off by default. */
    toolLabels: Type.Optional(Type.Boolean()),
  },
  CLOSED,
);
export type MetricsConfig = Static<typeof metricsSchema>;

/** How the catalog is rebuilt when a source changes. */
const catalogSchema = Type.Object(
  {
    /** Reuse what an unchanged tool already has on a refresh (previous build, entries, the stdio page cache); default true. */
    reuse: Type.Optional(Type.Boolean()),
  },
  CLOSED,
);
export type CatalogConfig = Static<typeof catalogSchema>;

const sourcesSchema = Type.Object(
  {
    nodePacks: Type.Optional(Type.Array(nodePackConfigSchema)),
    workflows: Type.Optional(Type.Array(workflowConfigSchema)),
    hostExtensions: Type.Optional(Type.Array(hostExtensionConfigSchema)),
    mcp: Type.Optional(Type.Array(mcpSourceConfigSchema)),
    connectors: Type.Optional(Type.Array(connectorSourceConfigSchema)),
  },
  CLOSED,
);

/** The whole config file (`toolhost config-schema` prints it; the repository ships it as toolhost.schema.json). */
export const hostConfigSchema = Type.Object(
  {
    server: Type.Optional(serverSchema),
    tenants: MapOf(tenantSchema, { minProperties: 1, propertyNames: { pattern: TENANT_ID_PATTERN } }),
    auth: Type.Optional(authConfigSchema),
    events: Type.Optional(eventsSchema),
    /** The Redis (or Valkey) server replicas share: rate-limit buckets, MCP session routing (docs/deploy.md "Redis"). */
    redis: Type.Optional(redisConfigSchema),
    /** Sealing keys and the public URL for sources whose `credentials` are not shared (docs/auth.md "Upstream credentials"). */
    upstreamCredentials: Type.Optional(upstreamCredentialsConfigSchema),
    mcp: Type.Optional(mcpFrontDoorSchema),
    metrics: Type.Optional(metricsSchema),
    admin: Type.Optional(adminSchema),
    catalog: Type.Optional(catalogSchema),
    search: Type.Optional(searchSchema),
    principals: Type.Optional(Type.Array(principalEntrySchema)),
    policy: Type.Optional(policyConfigSchema),
    sources: Type.Optional(sourcesSchema),
  },
  { ...CLOSED, $schema: 'https://json-schema.org/draft/2020-12/schema', title: 'toolhost config' },
);
export type HostConfigFile = Static<typeof hostConfigSchema>;
