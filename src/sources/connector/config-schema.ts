// One `sources.connectors[]` entry: an HTTP API described by a local OpenAPI
// 3.0/3.1 document whose operations become `connector:<id>.<action>` tools.
// The config holds a REFERENCE to the API secret (an env variable name or a
// file path), never the secret itself; it is read only at call time
// (see secret.ts). The TypeBox definition below is both the JSON Schema the
// config loader validates with and the types.
import { Type, type Static } from '@sinclair/typebox';
import { MCP_PREFIX_PATTERN, SOURCE_ID_PATTERN } from '../../contract/tool-id.js';
import { CLOSED, StringEnum } from '../../util/schema-builders.js';
import { ENV_NAME_PATTERN, secretRefSchema, type SecretRef } from '../../util/secret-ref.js';
import { credentialsSchema } from '../credentials-schema.js';

export { ENV_NAME_PATTERN };

export const CONNECTOR_DEFAULTS = {
  watch: true,
  debounceMs: 250,
} as const;

/** An HTTP header / query parameter name (RFC 9110 token). */
export const AUTH_NAME_PATTERN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

const selectorSchema = (description: string) =>
  Type.Object(
    {
      /** Globs in the config's one dialect (`*` any run of characters, `/` included; `?` one) matched against the operationId (or the derived name of an operation without one). */
      operations: Type.Optional(
        Type.Array(Type.String({ minLength: 1 }), {
          description: 'Globs matched against operationIds: `*` matches any run of characters (including `/`), `?` one character, as in tenant allowlists and policy rules.',
        }),
      ),
      /** An operation is selected when it carries any of these tags. */
      tags: Type.Optional(Type.Array(Type.String({ minLength: 1 }), { description: 'Operation tags; an operation carrying any of them is selected.' })),
    },
    { ...CLOSED, description },
  );
export type ConnectorSelector = Static<ReturnType<typeof selectorSchema>>;

export const CONNECTOR_AUTH_TYPES = ['bearer', 'header', 'query', 'basic'] as const;
export type ConnectorAuthType = (typeof CONNECTOR_AUTH_TYPES)[number];

export type ConnectorSecretRef = SecretRef;

const authSchema = Type.Object(
  {
    /**
     * bearer: `Authorization: Bearer <secret>`; header: `<name>: <secret>`;
     * query: `?<name>=<secret>`; basic: the secret is `user:password`, sent as
     * `Authorization: Basic base64(secret)`.
     */
    type: StringEnum(CONNECTOR_AUTH_TYPES),
    /** Header or query parameter name; required for `header` and `query`. */
    name: Type.Optional(Type.String({ pattern: AUTH_NAME_PATTERN.source, description: 'Header or query parameter name (header, query).' })),
    secret: secretRefSchema,
  },
  {
    ...CLOSED,
    description: 'How the host authenticates to the API. Holds a reference to the secret, never the secret.',
    allOf: [
      {
        if: { properties: { type: { enum: ['header', 'query'] } }, required: ['type'] },
        then: { required: ['name'], properties: { name: true } },
      },
    ],
  },
);
export type ConnectorAuthConfig = Static<typeof authSchema>;

/**
 * JSON Schema 2020-12 for one `sources.connectors[]` entry. A plain object
 * without `$schema`/`$id`, so it can be embedded in the host config schema.
 */
export const connectorSourceConfigSchema = Type.Object(
  {
    /** Connector id, the `<connectorId>` in `connector:<connectorId>.<action>`. */
    id: Type.String({ pattern: SOURCE_ID_PATTERN.source, description: 'Connector id: lower-case letters, digits, `_`, `-`; no `.`.' }),
    /** Path of the OpenAPI 3.0/3.1 document (YAML or JSON), relative to the config directory. */
    document: Type.String({ minLength: 1, description: 'Local OpenAPI 3.0/3.1 document (YAML or JSON), relative to the config file directory.' }),
    /** Base URL of the API; default: the first server url of the operation, path item or document. */
    baseUrl: Type.Optional(Type.String({ pattern: '^https?://[^\\s]+$', description: "The API's base URL; default: the document's first server url." })),
    /** Default: every operation. */
    include: Type.Optional(selectorSchema('Operations to expose; default all.')),
    /** Default: none. Exclusion wins over inclusion. */
    exclude: Type.Optional(selectorSchema('Operations to hide; wins over include.')),
    auth: Type.Optional(authSchema),
    /** Whose credential a call sends (default shared: `auth`, the same for every caller). */
    credentials: Type.Optional(credentialsSchema),
    /** Replaces `connector__<id>` at the front of this connector's MCP tool names; "" drops it. */
    mcpPrefix: Type.Optional(
      Type.String({ pattern: MCP_PREFIX_PATTERN.source, description: 'Front of this connector\'s MCP tool names instead of connector__<id>; "" for none.' }),
    ),
    /** Re-read the document when it changes on disk. */
    watch: Type.Optional(Type.Boolean({ default: CONNECTOR_DEFAULTS.watch, description: 'Re-read the document when it changes.' })),
    /** Quiet period after a file event before re-reading, in ms. */
    debounceMs: Type.Optional(
      Type.Integer({ minimum: 0, maximum: 60000, default: CONNECTOR_DEFAULTS.debounceMs, description: 'Quiet period after a file change before re-reading.' }),
    ),
  },
  { ...CLOSED, title: 'Connector source (OpenAPI document)' },
);
export type ConnectorSourceConfig = Static<typeof connectorSourceConfigSchema>;
