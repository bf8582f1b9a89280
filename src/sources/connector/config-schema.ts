// One `sources.connectors[]` entry: an HTTP API described by a local OpenAPI
// 3.0/3.1 document whose operations become `connector:<id>.<action>` tools.
// The config holds a REFERENCE to the API secret (an env variable name or a
// file path), never the secret itself; it is read only at call time
// (see secret.ts).
import type { JsonObject } from '../../contract/descriptor.js';
import { SOURCE_ID_PATTERN } from '../../contract/tool-id.js';

export type ConnectorAuthType = 'bearer' | 'header' | 'query' | 'basic';

/** Where the secret lives. `file` is resolved against the config directory. */
export type ConnectorSecretRef = { env: string } | { file: string };

export interface ConnectorAuthConfig {
  /**
   * bearer: `Authorization: Bearer <secret>`; header: `<name>: <secret>`;
   * query: `?<name>=<secret>`; basic: the secret is `user:password`, sent as
   * `Authorization: Basic base64(secret)`.
   */
  type: ConnectorAuthType;
  /** Header or query parameter name; required for `header` and `query`. */
  name?: string;
  secret: ConnectorSecretRef;
}

export interface ConnectorSelector {
  /** Globs in the config's one dialect (`*` any run of characters, `/` included; `?` one) matched against the operationId (or the derived name of an operation without one). */
  operations?: string[];
  /** An operation is selected when it carries any of these tags. */
  tags?: string[];
}

export interface ConnectorSourceConfig {
  /** Connector id, the `<connectorId>` in `connector:<connectorId>.<action>`. */
  id: string;
  /** Path of the OpenAPI 3.0/3.1 document (YAML or JSON), relative to the config directory. */
  document: string;
  /** Base URL of the API; default: the first server url of the operation, path item or document. */
  baseUrl?: string;
  /** Default: every operation. */
  include?: ConnectorSelector;
  /** Default: none. Exclusion wins over inclusion. */
  exclude?: ConnectorSelector;
  auth?: ConnectorAuthConfig;
  /** Re-read the document when it changes on disk. Default true. */
  watch?: boolean;
  /** Quiet period after a file event before re-reading. Default 250 ms. */
  debounceMs?: number;
}

export const CONNECTOR_DEFAULTS = {
  watch: true,
  debounceMs: 250,
} as const;

/** Env variable names as the config accepts them (same grammar as `${VAR}` refs). */
export const ENV_NAME_PATTERN = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** An HTTP header / query parameter name (RFC 9110 token). */
export const AUTH_NAME_PATTERN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

const selectorSchema: JsonObject = {
  type: 'object',
  additionalProperties: false,
  properties: {
    operations: {
      type: 'array',
      description: 'Globs matched against operationIds: `*` matches any run of characters (including `/`), `?` one character, as in tenant allowlists and policy rules.',
      items: { type: 'string', minLength: 1 },
    },
    tags: {
      type: 'array',
      description: 'Operation tags; an operation carrying any of them is selected.',
      items: { type: 'string', minLength: 1 },
    },
  },
};

/**
 * JSON Schema 2020-12 for one `sources.connectors[]` entry. A plain object
 * without `$schema`/`$id`, so it can be embedded in the host config schema.
 */
export const connectorSourceConfigSchema: JsonObject = {
  title: 'Connector source (OpenAPI document)',
  type: 'object',
  additionalProperties: false,
  required: ['id', 'document'],
  properties: {
    id: {
      type: 'string',
      pattern: SOURCE_ID_PATTERN.source,
      description: 'Connector id: lower-case letters, digits, `_`, `-`; no `.`.',
    },
    document: {
      type: 'string',
      minLength: 1,
      description: 'Local OpenAPI 3.0/3.1 document (YAML or JSON), relative to the config file directory.',
    },
    baseUrl: {
      type: 'string',
      pattern: '^https?://[^\\s]+$',
      description: "The API's base URL; default: the document's first server url.",
    },
    include: { ...selectorSchema, description: 'Operations to expose; default all.' },
    exclude: { ...selectorSchema, description: 'Operations to hide; wins over include.' },
    auth: {
      type: 'object',
      additionalProperties: false,
      required: ['type', 'secret'],
      description: 'How the host authenticates to the API. Holds a reference to the secret, never the secret.',
      properties: {
        type: { enum: ['bearer', 'header', 'query', 'basic'] },
        name: { type: 'string', pattern: AUTH_NAME_PATTERN.source, description: 'Header or query parameter name (header, query).' },
        secret: {
          oneOf: [
            {
              type: 'object',
              additionalProperties: false,
              required: ['env'],
              properties: { env: { type: 'string', pattern: ENV_NAME_PATTERN.source, description: 'Environment variable holding the secret.' } },
            },
            {
              type: 'object',
              additionalProperties: false,
              required: ['file'],
              properties: { file: { type: 'string', minLength: 1, description: 'File holding the secret (relative to the config directory; one trailing newline is stripped).' } },
            },
          ],
        },
      },
      allOf: [
        {
          if: { properties: { type: { enum: ['header', 'query'] } }, required: ['type'] },
          then: { required: ['name'], properties: { name: true } },
        },
      ],
    },
    watch: { type: 'boolean', default: CONNECTOR_DEFAULTS.watch, description: 'Re-read the document when it changes.' },
    debounceMs: {
      type: 'integer',
      minimum: 0,
      maximum: 60000,
      default: CONNECTOR_DEFAULTS.debounceMs,
      description: 'Quiet period after a file change before re-reading.',
    },
  },
};
