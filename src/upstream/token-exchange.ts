// `token-exchange`: the caller's own JWT (the one it presented to the host)
// becomes the upstream's credential, either exchanged at a token endpoint
// for one issued to the upstream's audience (RFC 8693, the host
// authenticating as its own client), or, with `forward`, sent unchanged to
// an upstream that trusts the same identity provider.
// - An exchanged token is cached per source and presented token (so per
//   principal), until shortly before it expires; concurrent calls needing
//   one make one exchange.
// - Tokens, the subject token and the client secret never appear in a
//   message, a log line or an error: a refusal reports the endpoint's error
//   code and a bounded, scrubbed description.
import { createHash } from 'node:crypto';
import type { Logger } from 'pino';
import type { Principal } from '../auth/principal.js';
import type { CredentialsConfig } from '../sources/credentials-schema.js';
import type { UpstreamCredential } from '../sources/upstream-credential.js';
import { SecretScrubber } from '../util/scrub.js';
import { secretCredential } from './principal-secret.js';

export const TOKEN_EXCHANGE_GRANT = 'urn:ietf:params:oauth:grant-type:token-exchange';
const TOKEN_TYPES = { jwt: 'urn:ietf:params:oauth:token-type:jwt', access_token: 'urn:ietf:params:oauth:token-type:access_token' } as const;
/** An exchanged token this close to its expiry is exchanged again before use. */
const RENEW_EARLY_MS = 30_000;
/** Without `expires_in`, an exchanged token is reused this long. */
const DEFAULT_LIFETIME_MS = 60_000;
const MAX_CACHED = 4096;
const TIMEOUT_MS = 10_000;

export interface TokenExchangeSettings {
  sourceId: string;
  config: CredentialsConfig;
  /** The client secret, read at start from its secret reference. */
  clientSecret?: string;
  logger: Logger;
}

export type ExchangeOutcome = { credential: UpstreamCredential } | { error: string };

interface Cached {
  token: string;
  renewAt: number;
}

export class TokenExchange {
  private readonly cache = new Map<string, Cached>();
  private readonly running = new Map<string, Promise<Cached | string>>();

  constructor(private readonly s: TokenExchangeSettings) {}

  async credential(principal: Principal, connectionOwner: string): Promise<ExchangeOutcome> {
    const subject = principal.presentedToken?.();
    if (subject === undefined) return { error: `${this.label()} acts as the caller with the caller's own JWT; call it with a JWT from the host's identity provider, not an API key.` };
    const te = this.s.config.tokenExchange;
    if (te?.forward) return { credential: secretCredential({ mode: 'per-principal' }, connectionOwner, subject) };
    const id = `${connectionOwner}\u0000${createHash('sha256').update(subject).digest('base64url')}`;
    const cached = this.cache.get(id);
    let got: Cached | string;
    if (cached && cached.renewAt > Date.now()) got = cached;
    else got = await this.exchangeOnce(id, subject);
    if (typeof got === 'string') return { error: got };
    const credential = secretCredential({ mode: 'per-principal' }, connectionOwner, got.token);
    // The subject token is scrubbed too: an upstream or endpoint echoing it must not hand it out.
    return { credential: { ...credential, secrets: [...credential.secrets, subject] } };
  }

  /** The upstream refused an exchanged token: the next call exchanges again. */
  forget(principal: Principal, connectionOwner: string): void {
    const subject = principal.presentedToken?.();
    if (subject !== undefined) this.cache.delete(`${connectionOwner}\u0000${createHash('sha256').update(subject).digest('base64url')}`);
  }

  private exchangeOnce(id: string, subject: string): Promise<Cached | string> {
    let running = this.running.get(id);
    if (!running) {
      running = this.exchange(subject)
        .then((got) => {
          if (typeof got !== 'string') this.remember(id, got);
          return got;
        })
        .finally(() => this.running.delete(id));
      this.running.set(id, running);
    }
    return running;
  }

  private remember(id: string, got: Cached): void {
    if (this.cache.size >= MAX_CACHED) this.cache.delete(this.cache.keys().next().value!);
    this.cache.set(id, got);
  }

  /** One RFC 8693 request; a string is the refusal, fit for the caller and the log. */
  private async exchange(subject: string): Promise<Cached | string> {
    const te = this.s.config.tokenExchange!;
    const form = new URLSearchParams({ grant_type: TOKEN_EXCHANGE_GRANT, subject_token: subject, subject_token_type: TOKEN_TYPES[te.subjectTokenType ?? 'jwt'] });
    if (te.audience) form.set('audience', te.audience);
    if (te.resource) form.set('resource', te.resource);
    if (te.scopes?.length) form.set('scope', te.scopes.join(' '));
    const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' };
    if (te.clientId && this.s.clientSecret !== undefined) headers.authorization = `Basic ${Buffer.from(`${encodeURIComponent(te.clientId)}:${encodeURIComponent(this.s.clientSecret)}`).toString('base64')}`;
    else if (te.clientId) form.set('client_id', te.clientId);
    const scrub = new SecretScrubber([subject, ...(this.s.clientSecret ? [this.s.clientSecret] : [])]);
    let status: number;
    let body: Record<string, unknown>;
    try {
      const res = await fetch(te.tokenEndpoint!, { method: 'POST', headers, body: form, signal: AbortSignal.timeout(TIMEOUT_MS), redirect: 'error' });
      status = res.status;
      body = ((await res.json().catch(() => ({}))) ?? {}) as Record<string, unknown>;
    } catch {
      return this.refusal('the token endpoint could not be reached', 'unreachable');
    }
    if (status === 200 && typeof body.access_token === 'string' && /^[\x21-\x7e]{1,16384}$/.test(body.access_token)) {
      const lifetime = typeof body.expires_in === 'number' && body.expires_in > 0 ? body.expires_in * 1000 : DEFAULT_LIFETIME_MS;
      return { token: body.access_token, renewAt: Date.now() + Math.max(lifetime - RENEW_EARLY_MS, lifetime / 2) };
    }
    const code = typeof body.error === 'string' ? bounded(body.error, 64) : `HTTP ${status}`;
    const description = typeof body.error_description === 'string' ? `: ${scrub.text(bounded(body.error_description, 200))}` : '';
    return this.refusal(`the token exchange was refused (${scrub.text(code)}${description})`, code);
  }

  private refusal(what: string, code: string): string {
    this.s.logger.info({ source: this.s.sourceId, error: code }, 'an upstream token exchange failed');
    return `${this.label()} could not be called as you: ${what}.`;
  }

  private label(): string {
    return this.s.config.label ?? this.s.sourceId;
  }
}

function bounded(text: string, max: number): string {
  return text.slice(0, max).replace(/[^\x20-\x7e]/g, '?');
}
