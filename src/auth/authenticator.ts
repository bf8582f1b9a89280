// The host's authenticator: token verifiers (JWT) first, API keys last. Every
// failure is a 401 at the HTTP layer (503 when the host's own key material is
// unavailable); reasons never echo the credential. A verifier that declines a
// token synchronously costs nothing: API keys are checked without any async
// work. Admission (per-principal rate limits, the anonymous bound) and the
// audit switch ride along so the HTTP layer has one auth object to ask.
import type { ApiKeyStore } from './api-keys.js';
import type { AuthOutcome, Authenticator, Principal } from './principal.js';
import type { TokenBucket } from './rate-limit.js';

/** Per-principal buckets: local (RateLimiter) or shared through Redis (SharedRateLimiter). */
export interface PrincipalLimiter {
  take(principal: Principal): number | Promise<number>;
}

/** A credential verifier that may decline a token it does not recognize (e.g. a JWT verifier for a non-JWT). */
export interface TokenVerifier {
  /** Undefined: not this verifier's kind of token. */
  verify(token: string): AuthOutcome | undefined | Promise<AuthOutcome | undefined>;
}

export interface HostAuthenticatorOptions {
  /** Per-principal limits; absent: no limit. */
  rateLimiter?: PrincipalLimiter;
  /** The global bound on requests that need no credential; absent: no bound. */
  anonymousBucket?: TokenBucket;
  /** Audit line per authenticated request (default true). */
  audit?: boolean;
  /** Extra auth-params of every 401's challenge (`resource_metadata="..."`). */
  challenge?: string;
}

const isPromise = <T>(v: unknown): v is Promise<T> => typeof (v as { then?: unknown } | undefined)?.then === 'function';

export class HostAuthenticator implements Authenticator {
  readonly audit: boolean;
  readonly challenge: string | undefined;
  private readonly rateLimiter: PrincipalLimiter | undefined;
  private readonly anonymousBucket: TokenBucket | undefined;

  constructor(
    private readonly apiKeys: ApiKeyStore,
    private readonly verifiers: readonly TokenVerifier[] = [],
    options: HostAuthenticatorOptions = {},
  ) {
    this.audit = options.audit ?? true;
    this.challenge = options.challenge;
    this.rateLimiter = options.rateLimiter;
    this.anonymousBucket = options.anonymousBucket;
  }

  authenticate(token: string | undefined): AuthOutcome | Promise<AuthOutcome> {
    if (token === undefined) return { ok: false, presented: false, reason: 'missing bearer credential' };
    return this.from(token, 0);
  }

  /** Verifiers from index `i` on, then API keys; stays synchronous while every verifier answers synchronously. */
  private from(token: string, i: number): AuthOutcome | Promise<AuthOutcome> {
    for (; i < this.verifiers.length; i++) {
      const outcome = this.verifiers[i].verify(token);
      if (outcome === undefined) continue;
      if (isPromise<AuthOutcome | undefined>(outcome)) {
        const next = i + 1;
        return outcome.then((o) => o ?? this.from(token, next));
      }
      return outcome;
    }
    return this.apiKeys.verify(token);
  }

  admit(principal: Principal): number | Promise<number> {
    return this.rateLimiter === undefined ? 0 : this.rateLimiter.take(principal);
  }

  admitAnonymous(): number {
    return this.anonymousBucket === undefined ? 0 : this.anonymousBucket.take();
  }
}
