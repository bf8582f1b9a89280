// Who is calling (docs/contract.md "Authentication and tenancy"): a principal is
// bound to exactly one tenant and holds a set of scopes.
import type { Caller } from '../catalog/visibility.js';

export interface Principal extends Caller {
  id: string;
  tenant: string;
  scopes: ReadonlySet<string>;
  kind: 'api-key' | 'jwt';
  /** A JWT principal's verified claims (identity headers may pass some upstream); absent for API keys. */
  readonly claims?: Readonly<Record<string, unknown>>;
  /**
   * The principal's identity as one string: `principalKey(kind, tenant, id)`,
   * made once with the object, so a request builds no string for it. What
   * binds an MCP session, keys a rate-limit bucket and counts against the
   * per-principal caps: a JWT and an API key with the same id are different
   * callers.
   */
  readonly key: string;
  /**
   * The JWT a JWT principal presented, for the upstream modes that exchange
   * or forward it (upstream/token-exchange.ts). A function, so the value is
   * never enumerated, serialized or logged with the principal object.
   */
  readonly presentedToken?: () => string;
}

export type AuthOutcome =
  | { ok: true; principal: Principal }
  /**
   * `presented`: a credential was sent and failed (drives `error="invalid_token"`).
   * `unavailable`: the credential could not be checked because the host's own
   * key material is unavailable (a JWKS that cannot be fetched): 503, not 401.
   */
  | { ok: false; presented: boolean; reason: string; unavailable?: boolean };

export interface Authenticator {
  /** Never throws for a bad credential; never puts the credential in `reason`. */
  authenticate(bearerToken: string | undefined): AuthOutcome | Promise<AuthOutcome>;
  /**
   * Admission after authentication (per-principal rate limit): 0 admits the
   * request, a positive number refuses it and says how many seconds to wait.
   * A promise only when the answer needs a round trip (shared buckets in Redis).
   */
  admit?(principal: Principal): number | Promise<number>;
  /** Admission of a request that needs no credential (health, discovery): 0 or seconds to wait. */
  admitAnonymous?(): number;
  /** Whether the HTTP layer writes an audit line per authenticated request (default true). */
  readonly audit?: boolean;
  /** Extra auth-params of every 401's `WWW-Authenticate: Bearer` (the RFC 9728 `resource_metadata` hint). */
  readonly challenge?: string;
}

/** The stable key of a principal: kind, tenant and id, separated by NUL (none of them can hold one usefully). */
export function principalKey(kind: Principal['kind'], tenant: string, id: string): string {
  return `${kind}\u0000${tenant}\u0000${id}`;
}

/** Reads `Authorization: Bearer <token>`; undefined when absent, null when malformed. */
export function bearerToken(header: string | undefined): string | undefined | null {
  if (header === undefined || header === '') return undefined;
  const m = /^Bearer +([\x21-\x7e]+) *$/i.exec(header);
  return m ? m[1] : null;
}
