// Keeping an MCP server's credentials out of everything that leaves the
// adapter: tool results (both transports), log lines, `lastError`, relayed
// log messages. A Redactor knows the resolved header/env/argument/URL
// values of the current connection and hands them to the host's one
// scrubber (util/scrub.ts), which removes each in every encoding a server
// may echo it in (raw, percent-encoded, base64, JSON-escaped, hex); log text
// also loses credential-shaped runs and URL userinfo and query strings.
// Upstream text is untrusted: a server may echo the Authorization header it
// received, or print the env secret it was started with.
import { boundedLine } from '../../util/log-text.js';
import { maskCredentialPatterns, SecretScrubber } from '../../util/scrub.js';

const MIN_SECRET_LENGTH = 3;
const MAX_MESSAGE_LENGTH = 300;

export class Redactor {
  /** Credentials: `${VAR}` values, auth-like headers, URL userinfo. Kept out of everything. */
  private readonly secrets = new Set<string>();
  /** Every other configured header/env value: kept out of logs and health only. */
  private readonly sensitive = new Set<string>();
  private secretScrubber = new SecretScrubber([]);
  private logScrubber = new SecretScrubber([]);

  /**
   * `secret` values never appear in results, logs, health or served tool
   * data; `sensitive` ones (plain config values that are probably harmless,
   * e.g. `Accept: application/json`) never appear in logs or health.
   */
  add(values: Iterable<string>, kind: 'secret' | 'sensitive' = 'secret'): void {
    const set = kind === 'secret' ? this.secrets : this.sensitive;
    const before = set.size;
    for (const v of values) if (typeof v === 'string' && v.length >= MIN_SECRET_LENGTH) set.add(v);
    if (set.size === before) return;
    this.secretScrubber = new SecretScrubber([...this.secrets]);
    this.logScrubber = new SecretScrubber([...this.secrets, ...this.sensitive]);
  }

  get size(): number {
    return this.secrets.size;
  }

  /** Replaces the secret values only (no URL/Bearer patterns), in a string. */
  secretsIn(s: string): string {
    return this.secretScrubber.text(s);
  }

  /**
   * A copy of a JSON value (a tool result, a listed tool) with every form of
   * the secret values replaced in every string and key, or the value itself
   * when it holds none. `hit` tells which.
   */
  scrub<T>(value: T): { value: T; hit: boolean } {
    if (this.secrets.size === 0 || !this.secretScrubber.matches(JSON.stringify(value) ?? '')) return { value, hit: false };
    return { value: this.secretScrubber.value(value) as T, hit: true };
  }

  /** Redacted, single-line, bounded. */
  text(input: string, max = MAX_MESSAGE_LENGTH): string {
    return boundedLine(maskCredentialPatterns(this.logScrubber.text(input)), max);
  }

  error(err: unknown, max = MAX_MESSAGE_LENGTH): string {
    const message = err instanceof Error ? err.message || err.name : typeof err === 'string' ? err : 'unknown error';
    return this.text(message, max) || 'unknown error';
  }
}
