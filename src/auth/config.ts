// The `auth` config section and the per-tenant `rateLimit` key (docs/auth.md,
// docs/config.md "auth"): types, JSON Schema, defaults and the checks a schema
// cannot express. The config loader assembles this beside the other sections.
import { rateLimitSchema, type RateLimitSetting } from './rate-limit.js';

/** A claim name (top level, taken literally: `https://example.com/tenant` is one name) or a path into nested objects. */
export type ClaimPath = string | string[];

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

export interface JwksTimingConfig {
  /** Age after which the key set is fetched again (in the background; requests keep using the current keys). */
  refreshSec?: number;
  /** Minimum time between two fetches, whatever triggers them (unknown `kid`, refresh, failure). */
  cooldownSec?: number;
  /** How long past `refreshSec` the last good keys are still used while fetches fail. */
  maxStaleSec?: number;
  /** Timeout of one fetch. */
  timeoutMs?: number;
}

export interface JwtConfig {
  issuer: string | string[];
  audience: string | string[];
  jwksUrl?: string;
  jwksFile?: string;
  algorithms?: JwtAlgorithm[];
  clockToleranceSec?: number;
  claims?: { tenant?: ClaimPath; scopes?: ClaimPath; principal?: ClaimPath };
  jwks?: JwksTimingConfig;
  /** How long a verified token is remembered (its own expiry still applies); 0 verifies every request. */
  verifiedTokenCacheSec?: number;
}

export interface AuthConfig {
  /** A YAML/JSON file of API-key principals, reloaded on change. */
  keysFile?: string;
  jwt?: JwtConfig;
  /** One structured log line per authenticated request (default true). */
  audit?: boolean;
  /** The per-principal limit for tenants without their own `rateLimit` (default 50/s, burst 100). */
  defaultRateLimit?: RateLimitSetting;
  /** The global bound on discovery, metrics and unrouted requests (default 1000/s, burst 2000); probes are never limited. */
  anonymousRateLimit?: RateLimitSetting;
}

const claimPathSchema = {
  type: ['string', 'array'],
  minLength: 1,
  minItems: 1,
  maxItems: 8,
  items: { type: 'string', minLength: 1 },
} as const;

const stringOrList = {
  type: ['string', 'array'],
  minLength: 1,
  minItems: 1,
  items: { type: 'string', minLength: 1 },
} as const;

export const authConfigSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    keysFile: { type: 'string', minLength: 1 },
    audit: { type: 'boolean' },
    defaultRateLimit: rateLimitSchema,
    anonymousRateLimit: rateLimitSchema,
    jwt: {
      type: 'object',
      additionalProperties: false,
      required: ['issuer', 'audience'],
      properties: {
        issuer: stringOrList,
        audience: stringOrList,
        jwksUrl: { type: 'string', minLength: 1 },
        jwksFile: { type: 'string', minLength: 1 },
        algorithms: { type: 'array', minItems: 1, uniqueItems: true, items: { enum: [...ALLOWED_JWT_ALGORITHMS] } },
        clockToleranceSec: { type: 'number', minimum: 0, maximum: 600 },
        claims: {
          type: 'object',
          additionalProperties: false,
          properties: { tenant: claimPathSchema, scopes: claimPathSchema, principal: claimPathSchema },
        },
        jwks: {
          type: 'object',
          additionalProperties: false,
          properties: {
            refreshSec: { type: 'number', exclusiveMinimum: 0 },
            cooldownSec: { type: 'number', minimum: 0 },
            maxStaleSec: { type: 'number', minimum: 0 },
            timeoutMs: { type: 'integer', minimum: 1, maximum: 60_000 },
          },
        },
        verifiedTokenCacheSec: { type: 'number', minimum: 0, maximum: 3600 },
      },
    },
  },
} as const;

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
  return problems;
}
