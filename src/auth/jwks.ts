// The signing keys JWTs are checked against (docs/auth.md "Keys"): a JWKS
// fetched from a URL and cached, or a local JWKS file watched for changes.
//
// Remote timing, all measured from the last successful fetch (`fetchedAt`):
//   age < refresh                  fresh: used as is
//   refresh <= age < refresh+stale used, and a background fetch is started
//                                  (at most one per cooldown); a failed fetch
//                                  keeps these keys
//   age >= refresh+stale           no longer used: a request waits for a fetch
//                                  (if the cooldown allows one); without keys
//                                  the answer is 503 `toolhost.unavailable`
// An unknown `kid` triggers a fetch unless one happened within the cooldown.
import { readFileSync } from 'node:fs';
import { createLocalJWKSet, type FlattenedJWSInput, type JSONWebKeySet, type JWSHeaderParameters } from 'jose';
import type { Logger } from 'pino';
import { displayUrl } from '../util/log-text.js';
import { ConfigError } from '../util/validated-yaml.js';
import { watchFileText, type FileWatch } from './watch.js';

export type KeyLookup = ReturnType<typeof createLocalJWKSet>;
type ResolvedKey = Awaited<ReturnType<KeyLookup>>;

/** Thrown by `current()` when no usable key set exists (never fetched, or too stale). */
export class KeysUnavailableError extends Error {
  constructor(readonly detail: string) {
    super(`signing keys unavailable: ${detail}`);
    this.name = 'KeysUnavailableError';
  }
}

export interface KeySource {
  /** The key set to verify with now; throws KeysUnavailableError. */
  current(): KeyLookup | Promise<KeyLookup>;
  /** After an unknown `kid`: fetch again if allowed; true when a newer set may now hold it. */
  refreshForUnknownKid(): Promise<boolean>;
  /** False when cached verifications must not be trusted any more (keys too stale). */
  usableNow(): boolean;
  start(): void;
  stop(): void;
}

/** Checks the JWKS and builds its lookup; throws with a short reason. */
function lookupOf(json: unknown): KeyLookup {
  const set = json as JSONWebKeySet;
  if (typeof json !== 'object' || json === null || !Array.isArray(set.keys)) throw new Error('not a JWK Set (no "keys" array)');
  for (const k of set.keys) {
    if (typeof k !== 'object' || k === null) throw new Error('a member of "keys" is not an object');
    // A private key or a shared secret in a published key set is a mistake we refuse to use.
    if ('d' in k || k.kty === 'oct') throw new Error('the key set holds private or symmetric key material');
  }
  return createLocalJWKSet(set);
}

const MAX_JWKS_BYTES = 1_048_576;

async function fetchJwksText(url: URL, timeoutMs: number, abort: AbortSignal): Promise<string> {
  const res = await fetch(url, {
    method: 'GET',
    redirect: 'manual',
    signal: AbortSignal.any([abort, AbortSignal.timeout(timeoutMs)]),
    headers: { accept: 'application/jwk-set+json, application/json' },
  });
  if (res.status !== 200) {
    await res.body?.cancel();
    throw new Error(`HTTP ${res.status}`);
  }
  const declared = Number(res.headers.get('content-length') ?? 0);
  if (declared > MAX_JWKS_BYTES) {
    await res.body?.cancel();
    throw new Error('key set larger than 1 MiB');
  }
  const text = await res.text();
  if (text.length > MAX_JWKS_BYTES) throw new Error('key set larger than 1 MiB');
  return text;
}

export interface RemoteJwksOptions {
  url: URL;
  refreshMs: number;
  cooldownMs: number;
  maxStaleMs: number;
  timeoutMs: number;
  logger: Logger;
  /** Called when the fetched key set differs from the previous one. */
  onChange?: () => void;
  /** Clock, for tests of the timing rules. */
  now?: () => number;
}

export class RemoteJwks implements KeySource {
  private lookup: KeyLookup | undefined;
  private text: string | undefined;
  private fetchedAt = -Infinity;
  private lastAttempt = -Infinity;
  private pending: Promise<boolean> | undefined;
  private lastError: string | undefined;
  private readonly abort = new AbortController();
  private readonly now: () => number;

  constructor(private readonly options: RemoteJwksOptions) {
    this.now = options.now ?? Date.now;
  }

  start(): void {
    void this.fetch();
  }

  stop(): void {
    this.abort.abort();
  }

  /** Milliseconds since the last successful fetch (Infinity before the first). */
  age(): number {
    return this.now() - this.fetchedAt;
  }

  usableNow(): boolean {
    return this.lookup !== undefined && this.age() < this.options.refreshMs + this.options.maxStaleMs;
  }

  private mayFetch(): boolean {
    return this.now() - this.lastAttempt >= this.options.cooldownMs;
  }

  current(): KeyLookup | Promise<KeyLookup> {
    const age = this.age();
    if (this.lookup && age < this.options.refreshMs) return this.lookup;
    if (this.lookup && age < this.options.refreshMs + this.options.maxStaleMs) {
      if (!this.pending && this.mayFetch()) void this.fetch();
      return this.lookup;
    }
    return this.waitForKeys();
  }

  private async waitForKeys(): Promise<KeyLookup> {
    if (this.pending) await this.pending;
    else if (this.mayFetch()) await this.fetch();
    if (this.lookup && this.usableNow()) return this.lookup;
    throw new KeysUnavailableError(this.lookup ? `the key set is older than allowed and cannot be fetched (${this.lastError ?? 'cooling down'})` : `the key set has not been fetched (${this.lastError ?? 'cooling down'})`);
  }

  async refreshForUnknownKid(): Promise<boolean> {
    if (this.pending) return this.pending;
    if (!this.mayFetch()) return false;
    return this.fetch();
  }

  /** One fetch at a time; resolves true when a key set was fetched. Never rejects. */
  private fetch(): Promise<boolean> {
    if (this.pending) return this.pending;
    this.lastAttempt = this.now();
    const { url, timeoutMs, logger } = this.options;
    this.pending = (async () => {
      try {
        const text = await fetchJwksText(url, timeoutMs, this.abort.signal);
        const lookup = lookupOf(JSON.parse(text));
        const changed = text !== this.text;
        this.lookup = lookup;
        this.text = text;
        this.fetchedAt = this.now();
        if (this.lastError !== undefined) logger.info({ jwksUrl: displayUrl(url) }, 'JWKS fetched again after failures');
        this.lastError = undefined;
        if (changed) {
          logger.info({ jwksUrl: displayUrl(url), keys: lookup.jwks().keys.length }, 'JWKS loaded');
          this.options.onChange?.();
        }
        return true;
      } catch (err) {
        if (this.abort.signal.aborted) return false;
        const e = err as Error;
        const cause = (e.cause as { code?: string } | undefined)?.code;
        this.lastError = e.name === 'TimeoutError' ? `timed out after ${timeoutMs} ms` : `${e.message || String(err)}${cause ? ` (${cause})` : ''}`;
        logger.warn(
          { jwksUrl: displayUrl(url), err: this.lastError, keysAgeSec: Number.isFinite(this.age()) ? Math.round(this.age() / 1000) : null },
          this.lookup ? 'JWKS fetch failed; using the last good keys' : 'JWKS fetch failed; JWTs cannot be verified yet',
        );
        return false;
      } finally {
        this.pending = undefined;
      }
    })();
    return this.pending;
  }
}

export interface FileJwksOptions {
  file: string;
  logger: Logger;
  debounceMs?: number;
  onChange?: () => void;
}

/** A JWKS file on disk: strict at start, reloaded on change (a broken edit keeps the last good keys). */
export class FileJwks implements KeySource {
  private lookup: KeyLookup | undefined;
  private watch: FileWatch | undefined;

  constructor(private readonly options: FileJwksOptions) {}

  start(): void {
    let text: string;
    try {
      text = readFileSync(this.options.file, 'utf8');
    } catch (err) {
      throw new ConfigError([`${this.options.file}: cannot read JWKS file: ${(err as NodeJS.ErrnoException).code ?? String(err)}`]);
    }
    try {
      this.lookup = lookupOf(JSON.parse(text));
    } catch (err) {
      throw new ConfigError([`${this.options.file}: invalid JWKS: ${(err as Error).message}`]);
    }
    this.watch = watchFileText(
      this.options.file,
      text,
      {
        onText: (next) => {
          try {
            this.lookup = lookupOf(JSON.parse(next));
          } catch (err) {
            this.options.logger.error({ jwksFile: this.options.file, err: (err as Error).message }, 'JWKS file rejected; keeping the last good keys');
            return;
          }
          this.options.logger.info({ jwksFile: this.options.file, keys: this.lookup.jwks().keys.length }, 'JWKS file reloaded');
          this.options.onChange?.();
        },
        onError: (message) => this.options.logger.error({ jwksFile: this.options.file, err: message }, 'JWKS file unreadable; keeping the last good keys'),
      },
      { debounceMs: this.options.debounceMs, logger: this.options.logger },
    );
  }

  stop(): void {
    this.watch?.close();
  }

  usableNow(): boolean {
    return this.lookup !== undefined;
  }

  current(): KeyLookup {
    if (!this.lookup) throw new KeysUnavailableError('the JWKS file is not loaded');
    return this.lookup;
  }

  async refreshForUnknownKid(): Promise<boolean> {
    return false;
  }
}

/** The key resolver handed to jose's jwtVerify: current keys, one re-fetch on an unknown `kid`. */
export function keyResolver(source: KeySource): (header: JWSHeaderParameters, token: FlattenedJWSInput) => Promise<ResolvedKey> {
  return async (header, token) => {
    const lookup = await source.current();
    try {
      return await lookup(header, token);
    } catch (err) {
      if ((err as { code?: string }).code !== 'ERR_JWKS_NO_MATCHING_KEY') throw err;
      if (!(await source.refreshForUnknownKid())) throw err;
      return (await source.current())(header, token);
    }
  };
}
