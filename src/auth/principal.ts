// Who is calling (CONTRACT.md "Authentication and tenancy"): a principal is
// bound to exactly one tenant and holds a set of scopes.
import type { Caller } from '../catalog/visibility.js';

export interface Principal extends Caller {
  id: string;
  tenant: string;
  scopes: ReadonlySet<string>;
  kind: 'api-key' | 'jwt';
}

export type AuthOutcome =
  | { ok: true; principal: Principal }
  /** `presented`: a credential was sent and failed (drives `error="invalid_token"`). */
  | { ok: false; presented: boolean; reason: string };

export interface Authenticator {
  /** Never throws for a bad credential; never puts the credential in `reason`. */
  authenticate(bearerToken: string | undefined): AuthOutcome | Promise<AuthOutcome>;
}

/** Reads `Authorization: Bearer <token>`; undefined when absent, null when malformed. */
export function bearerToken(header: string | undefined): string | undefined | null {
  if (header === undefined || header === '') return undefined;
  const m = /^Bearer +([\x21-\x7e]+) *$/i.exec(header);
  return m ? m[1] : null;
}
