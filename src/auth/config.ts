// The `auth` config section and the per-tenant `rateLimit` key (docs/auth.md,
// docs/config.md "auth"): the TypeBox definition (JSON Schema and types in
// one), defaults and the checks a schema cannot express. The config loader
// assembles this beside the other sections.
import { Type, type Static } from '@sinclair/typebox';
import { CLOSED, StringEnum } from '../util/schema-builders.js';
import { rateLimitSchema } from './rate-limit.js';

/** Asymmetric JWS algorithms only: no `none`, no HS* (a public key used as an HMAC secret). */
export const ALLOWED_JWT_ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA', 'Ed25519'] as const;
export type JwtAlgorithm = (typeof ALLOWED_JWT_ALGORITHMS)[number];

export const JWT_DEFAULTS = {
  algorithms: ['RS256', 'PS256', 'ES256', 'EdDSA', 'Ed25519'] as JwtAlgorithm[],
  clockToleranceSec: 30,
  claims: { tenant: 'tenant', scopes: 'scope', principal: 'sub' },
  jwks: { refreshSec: 600, cooldownSec: 30, maxStaleSec: 3600, timeoutMs: 5000 },
  verifiedTokenCacheSec: 60,
};

// One schema of two types (not a union), so a wrong value is one error line.
const oneOrMore = <T>(extra: object) =>
  Type.Unsafe<T>({ type: ['string', 'array'], minLength: 1, minItems: 1, ...extra, items: { type: 'string', minLength: 1 } });

/** A claim name (top level, taken literally: `https://example.com/tenant` is one name) or a path into nested objects. */
const claimPathSchema = oneOrMore<string | string[]>({ maxItems: 8 });
export type ClaimPath = Static<typeof claimPathSchema>;

const stringOrList = oneOrMore<string | string[]>({});

const jwksTimingSchema = Type.Object(
  {
    /** Age after which the key set is fetched again (in the background; requests keep using the current keys). */
    refreshSec: Type.Optional(Type.Number({ exclusiveMinimum: 0 })),
    /** Minimum time between two fetches, whatever triggers them (unknown `kid`, refresh, failure). */
    cooldownSec: Type.Optional(Type.Number({ minimum: 0 })),
    /** How long past `refreshSec` the last good keys are still used while fetches fail. */
    maxStaleSec: Type.Optional(Type.Number({ minimum: 0 })),
    /** Timeout of one fetch. */
    timeoutMs: Type.Optional(Type.Integer({ minimum: 1, maximum: 60_000 })),
  },
  CLOSED,
);
export type JwksTimingConfig = Static<typeof jwksTimingSchema>;

const jwtConfigSchema = Type.Object(
  {
    issuer: stringOrList,
    audience: stringOrList,
    jwksUrl: Type.Optional(Type.String({ minLength: 1 })),
    jwksFile: Type.Optional(Type.String({ minLength: 1 })),
    algorithms: Type.Optional(Type.Array(StringEnum(ALLOWED_JWT_ALGORITHMS), { minItems: 1, uniqueItems: true })),
    clockToleranceSec: Type.Optional(Type.Number({ minimum: 0, maximum: 600 })),
    claims: Type.Optional(
      Type.Object({ tenant: Type.Optional(claimPathSchema), scopes: Type.Optional(claimPathSchema), principal: Type.Optional(claimPathSchema) }, CLOSED),
    ),
    jwks: Type.Optional(jwksTimingSchema),
    /** How long a verified token is remembered (its own expiry still applies); 0 verifies every request. */
    verifiedTokenCacheSec: Type.Optional(Type.Number({ minimum: 0, maximum: 3600 })),
  },
  CLOSED,
);
export type JwtConfig = Static<typeof jwtConfigSchema>;

/** RFC 9728 protected resource metadata, for MCP clients that discover OAuth by themselves. */
const oauthConfigSchema = Type.Object(
  {
    /** The public URL clients reach the host at (behind a proxy the host cannot know it); the tokens' `aud`. */
    resource: Type.String({ pattern: '^https?://[^\\s#?]+$', description: 'Public URL of this host (or of its /mcp endpoint) as clients reach it; also the audience tokens must carry.' }),
    /** Issuer URLs of the authorization servers; default: `auth.jwt.issuer`. */
    authorizationServers: Type.Optional(Type.Array(Type.String({ pattern: '^https?://' }), { minItems: 1, description: 'Authorization server issuer URLs; default: auth.jwt.issuer.' })),
    /** Scopes a client may ask for (published as `scopes_supported`). */
    scopesSupported: Type.Optional(Type.Array(Type.String({ minLength: 1, pattern: '^[^\\s"]+$' }), { description: 'Scopes published as scopes_supported.' })),
    /** A human-readable name of the resource (`resource_name`). */
    resourceName: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  },
  CLOSED,
);
export type OAuthConfig = Static<typeof oauthConfigSchema>;

export const authConfigSchema = Type.Object(
  {
    /** A YAML/JSON file of API-key principals, reloaded on change. */
    keysFile: Type.Optional(Type.String({ minLength: 1 })),
    /** One structured log line per authenticated request (default true). */
    audit: Type.Optional(Type.Boolean()),
    /** The per-principal limit for tenants without their own `rateLimit` (default 50/s, burst 100). */
    defaultRateLimit: Type.Optional(rateLimitSchema),
    /** The global bound on discovery, metrics and unrouted requests (default 1000/s, burst 2000); probes are never limited. */
    anonymousRateLimit: Type.Optional(rateLimitSchema),
    /** Where per-principal buckets live: this process (`local`, default) or Redis, shared by every replica (`redis`; needs the `redis` section). */
    rateLimitStore: Type.Optional(StringEnum(['local', 'redis'])),
    jwt: Type.Optional(jwtConfigSchema),
    /** Protected resource metadata (RFC 9728) and the `resource_metadata` hint on every 401; needs `jwt`. */
    oauth: Type.Optional(oauthConfigSchema),
  },
  CLOSED,
);
export type AuthConfig = Static<typeof authConfigSchema>;

/** The per-tenant `rateLimit` key's schema. */
export const tenantRateLimitSchema = rateLimitSchema;

/** Checks the schema cannot express; `place(pointer)` gives `file:line:col: pointer`. */
export function authConfigProblems(auth: AuthConfig | undefined, place: (pointer: string) => string): string[] {
  const problems: string[] = [];
  const jwt = auth?.jwt;
  if (jwt) {
    if ((jwt.jwksUrl === undefined) === (jwt.jwksFile === undefined)) {
      problems.push(`${place('/auth/jwt')}: exactly one of "jwksUrl" and "jwksFile" is required`);
    }
    if (jwt.jwksUrl !== undefined) {
      let url: URL | undefined;
      try {
        url = new URL(jwt.jwksUrl);
      } catch {
        problems.push(`${place('/auth/jwt/jwksUrl')}: not a URL`);
      }
      if (url && url.protocol !== 'https:' && url.protocol !== 'http:') problems.push(`${place('/auth/jwt/jwksUrl')}: must be an http(s) URL`);
    }
  }
  const oauth = auth?.oauth;
  if (oauth) {
    if (!jwt) problems.push(`${place('/auth/oauth')}: needs "auth.jwt": the tokens an OAuth client obtains are JWTs`);
    else if (!(typeof jwt.audience === 'string' ? [jwt.audience] : jwt.audience).includes(oauth.resource)) {
      // A client asks its authorization server for a token whose audience is the published resource (RFC 8707).
      problems.push(`${place('/auth/jwt/audience')}: must include auth.oauth.resource (${JSON.stringify(oauth.resource)}): tokens obtained through OAuth discovery carry it as their audience`);
    }
    try {
      new URL(oauth.resource);
    } catch {
      problems.push(`${place('/auth/oauth/resource')}: not a URL`);
    }
  }
  return problems;
}
