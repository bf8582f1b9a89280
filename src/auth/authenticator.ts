// The host's authenticator: API keys today, more credential kinds plug in
// beside them. Every failure is a 401 at the HTTP layer; reasons never echo
// the credential.
import type { ApiKeyStore } from './api-keys.js';
import type { AuthOutcome, Authenticator } from './principal.js';

/** A credential verifier that may decline a token it does not recognize (e.g. a JWT verifier for a non-JWT). */
export interface TokenVerifier {
  /** Undefined: not this verifier's kind of token. */
  verify(token: string): AuthOutcome | undefined | Promise<AuthOutcome | undefined>;
}

export class HostAuthenticator implements Authenticator {
  constructor(
    private readonly apiKeys: ApiKeyStore,
    private readonly verifiers: readonly TokenVerifier[] = [],
  ) {}

  authenticate(token: string | undefined): AuthOutcome | Promise<AuthOutcome> {
    if (token === undefined) return { ok: false, presented: false, reason: 'missing bearer credential' };
    if (this.verifiers.length === 0) return this.apiKeys.verify(token);
    return this.viaVerifiers(token);
  }

  private async viaVerifiers(token: string): Promise<AuthOutcome> {
    for (const v of this.verifiers) {
      const outcome = await v.verify(token);
      if (outcome) return outcome;
    }
    return this.apiKeys.verify(token);
  }
}
