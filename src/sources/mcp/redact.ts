// Keeping credentials out of logs and health: every message that leaves the
// adapter (log lines, `lastError`) passes through a Redactor that knows the
// resolved header/env/argument values of the current connection, and strips
// URL userinfo and query strings. Upstream error text is untrusted too: a
// server may echo the Authorization header it received.

import { boundedLine, maskCredentialPatterns } from '../../util/log-text.js';

const MIN_SECRET_LENGTH = 3;
const MAX_MESSAGE_LENGTH = 300;

function merged(current: string[], values: Iterable<string>): string[] {
  const set = new Set(current);
  for (const v of values) if (v.length >= MIN_SECRET_LENGTH) set.add(v);
  // Longest first, so a value containing another is replaced whole.
  return [...set].sort((a, b) => b.length - a.length);
}

function replaceAll(s: string, values: string[]): string {
  let out = s;
  for (const v of values) if (out.includes(v)) out = out.split(v).join('[redacted]');
  return out;
}

export class Redactor {
  /** Credentials: `${VAR}` values, auth-like headers, URL userinfo. Kept out of everything. */
  private secrets: string[] = [];
  /** Every other configured header/env value: kept out of logs and health only. */
  private sensitive: string[] = [];

  /**
   * `secret` values never appear in logs, health or served tool data;
   * `sensitive` ones (plain config values that are probably harmless, e.g.
   * `Accept: application/json`) never appear in logs or health.
   */
  add(values: Iterable<string>, kind: 'secret' | 'sensitive' = 'secret'): void {
    if (kind === 'secret') this.secrets = merged(this.secrets, values);
    else this.sensitive = merged(this.sensitive, values);
  }

  get size(): number {
    return this.secrets.length;
  }

  /** Replaces the secret values only (no URL/Bearer patterns), in a string. */
  secretsIn(s: string): string {
    return replaceAll(s, this.secrets);
  }

  /**
   * A copy of a JSON value with known secret values replaced in every string
   * and key, or the value itself when it holds none. `hit` tells which.
   */
  scrub<T>(value: T): { value: T; hit: boolean } {
    let hit = false;
    const walk = (v: unknown): unknown => {
      if (typeof v === 'string') {
        const r = this.secretsIn(v);
        if (r !== v) hit = true;
        return r;
      }
      if (Array.isArray(v)) return v.map(walk);
      if (typeof v === 'object' && v !== null) {
        const out: Record<string, unknown> = {};
        for (const [k, x] of Object.entries(v)) out[walk(k) as string] = walk(x);
        return out;
      }
      return v;
    };
    if (this.secrets.length === 0) return { value, hit: false };
    const copy = walk(value) as T;
    return hit ? { value: copy, hit } : { value, hit };
  }

  /** Redacted, single-line, bounded. */
  text(input: string, max = MAX_MESSAGE_LENGTH): string {
    return boundedLine(maskCredentialPatterns(replaceAll(replaceAll(input, this.secrets), this.sensitive)), max);
  }

  error(err: unknown, max = MAX_MESSAGE_LENGTH): string {
    const message = err instanceof Error ? err.message || err.name : typeof err === 'string' ? err : 'unknown error';
    return this.text(message, max) || 'unknown error';
  }
}
