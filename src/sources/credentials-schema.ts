// The `credentials` key of an MCP server over HTTP and of a connector: whose
// credential reaches the upstream on a call (docs/auth.md "Upstream
// credentials"). `shared` (the default) is the source's own configured
// headers or `auth`, the same for every caller; the other modes give each
// principal its own. Defined here, beside the sources that carry it, and
// resolved by the upstream layer.
import { Type, type Static } from '@sinclair/typebox';
import { CLOSED, MapOf, StringEnum } from '../util/schema-builders.js';
import { secretRefSchema } from '../util/secret-ref.js';

export const CREDENTIAL_MODES = ['shared', 'per-principal', 'identity-headers', 'oauth', 'token-exchange'] as const;
export type CredentialMode = (typeof CREDENTIAL_MODES)[number];

/** An HTTP header name (RFC 9110 token). */
const HEADER_NAME = '^[!#$%&\'*+.^_`|~0-9A-Za-z-]+$';

export const credentialsSchema = Type.Object(
  {
    /** shared (default): the source's configured credential; per-principal: each principal's own stored secret; identity-headers: who calls, as headers. */
    mode: StringEnum(CREDENTIAL_MODES, { description: 'Whose credential reaches the upstream: shared (default), per-principal, identity-headers, oauth or token-exchange.' }),
    /** per-principal: how the principal's secret is sent (default bearer). `query` only for connectors. */
    type: Type.Optional(StringEnum(['bearer', 'header', 'basic', 'query'], { description: 'per-principal: how the secret is sent (default bearer).' })),
    /** per-principal: the header or query parameter name for `header` and `query`. */
    name: Type.Optional(Type.String({ pattern: HEADER_NAME, description: 'per-principal: header or query parameter name (type header or query).' })),
    /** oauth: a pre-registered client (default: dynamic client registration where the authorization server offers it) and the scopes asked for. */
    oauth: Type.Optional(
      Type.Object(
        {
          clientId: Type.Optional(Type.String({ minLength: 1, maxLength: 256, description: 'A client registered at the authorization server (default: dynamic registration).' })),
          clientSecret: Type.Optional(secretRefSchema),
          scopes: Type.Optional(Type.Array(Type.String({ pattern: '^[\\x21\\x23-\\x5b\\x5d-\\x7e]+$' }), { maxItems: 50, description: 'Scopes asked for (default: what the resource metadata lists, else none).' })),
        },
        { ...CLOSED, description: 'oauth: how the host is a client of the upstream\'s authorization server.' },
      ),
    ),
    /** token-exchange: where and how the caller's JWT is exchanged (RFC 8693), or `forward` to send it unchanged. */
    tokenExchange: Type.Optional(
      Type.Object(
        {
          forward: Type.Optional(Type.Boolean({ description: "Send the caller's own JWT unchanged (the upstream trusts the host's identity provider); no exchange." })),
          tokenEndpoint: Type.Optional(Type.String({ pattern: '^https?://[^\\s]+$', description: 'The RFC 8693 token endpoint (required unless forward).' })),
          clientId: Type.Optional(Type.String({ minLength: 1, maxLength: 256, description: "The host's client id at the token endpoint." })),
          clientSecret: Type.Optional(secretRefSchema),
          audience: Type.Optional(Type.String({ minLength: 1, maxLength: 1024, description: 'The `audience` asked for (the upstream as the token endpoint names it).' })),
          resource: Type.Optional(Type.String({ pattern: '^https?://[^\\s#]+$', description: 'The `resource` asked for (the upstream URL).' })),
          scopes: Type.Optional(Type.Array(Type.String({ pattern: '^[\\x21\\x23-\\x5b\\x5d-\\x7e]+$' }), { maxItems: 50, description: 'Scopes asked for.' })),
          subjectTokenType: Type.Optional(StringEnum(['jwt', 'access_token'], { description: 'The subject_token_type sent (default jwt).' })),
        },
        { ...CLOSED, description: "token-exchange: exchange the caller's JWT for the upstream's (RFC 8693), or forward it." },
      ),
    ),
    /** Shown to the person asked to connect (default: the source id). */
    label: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'A name for the upstream, shown when a person is asked to connect.' })),
    /** identity-headers: the header carrying the principal id (default X-Toolhost-Principal). */
    principalHeader: Type.Optional(Type.String({ pattern: HEADER_NAME, description: 'identity-headers: header of the principal id (default X-Toolhost-Principal).' })),
    /** identity-headers: the header carrying the tenant (default X-Toolhost-Tenant). */
    tenantHeader: Type.Optional(Type.String({ pattern: HEADER_NAME, description: 'identity-headers: header of the tenant (default X-Toolhost-Tenant).' })),
    /** identity-headers: JWT claims of the caller sent as headers, claim name → header name. */
    claimHeaders: Type.Optional(MapOf(Type.String({ pattern: HEADER_NAME }), { description: 'identity-headers: caller JWT claims sent as headers (claim → header).' })),
    /** identity-headers: also send a signed statement of the same (a JWS, HS256) so the upstream can trust it. */
    sign: Type.Optional(
      Type.Object(
        {
          key: secretRefSchema,
          header: Type.Optional(Type.String({ pattern: HEADER_NAME, description: 'Header of the signed statement (default X-Toolhost-Identity).' })),
          audience: Type.Optional(Type.String({ minLength: 1, description: 'The `aud` of the statement (default: the source id).' })),
          ttlSeconds: Type.Optional(Type.Integer({ minimum: 30, maximum: 3600, description: 'Lifetime of a statement (default 300).' })),
        },
        { ...CLOSED, description: 'Sign the identity (HS256 JWS with a shared key) so the upstream can verify it.' },
      ),
    ),
  },
  {
    ...CLOSED,
    description: "Whose credential reaches the upstream (docs/auth.md \"Upstream credentials\").",
    allOf: [{ if: { properties: { type: { enum: ['header', 'query'] } }, required: ['type'] }, then: { required: ['name'], properties: { name: true } } }],
  },
);
export type CredentialsConfig = Static<typeof credentialsSchema>;
