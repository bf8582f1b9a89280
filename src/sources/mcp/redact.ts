// Keeping credentials out of logs and health: every message that leaves the
// adapter (log lines, `lastError`) passes through a Redactor that knows the
// resolved header/env/argument values of the current connection, and strips
// URL userinfo and query strings. Upstream error text is untrusted too: a
// server may echo the Authorization header it received.

const MIN_SECRET_LENGTH = 3;
const MAX_MESSAGE_LENGTH = 300;

/** `scheme://user:pass@host/path?query#frag` -> `scheme://***@host/path?***` */
const URL_USERINFO = /\b([a-z][a-z0-9+.-]*:\/\/)[^\s/?#@]*@/gi;
const URL_QUERY = /\b([a-z][a-z0-9+.-]*:\/\/[^\s?#]*)[?#][^\s]*/gi;
const BEARER = /\b(bearer|basic|token)\s+[A-Za-z0-9._~+/=-]{4,}/gi;

export class Redactor {
  private secrets: string[] = [];

  /** Adds values that must never appear in output (resolved headers, env, refs). */
  add(values: Iterable<string>): void {
    const set = new Set(this.secrets);
    for (const v of values) {
      if (v.length >= MIN_SECRET_LENGTH) set.add(v);
    }
    // Longest first, so a secret containing another is replaced whole.
    this.secrets = [...set].sort((a, b) => b.length - a.length);
  }

  /** Redacted, single-line, bounded. */
  text(input: string, max = MAX_MESSAGE_LENGTH): string {
    let s = input;
    for (const secret of this.secrets) s = s.split(secret).join('[redacted]');
    s = s.replace(URL_USERINFO, '$1***@').replace(URL_QUERY, '$1?***').replace(BEARER, '$1 [redacted]');
    s = s.replace(/[\u0000-\u001f\u007f]+/g, ' ').trim();
    if (s.length > max) s = `${s.slice(0, max - 1)}…`;
    return s;
  }

  error(err: unknown, max = MAX_MESSAGE_LENGTH): string {
    const message = err instanceof Error ? err.message || err.name : typeof err === 'string' ? err : 'unknown error';
    return this.text(message, max) || 'unknown error';
  }
}

/** A configured URL (before `${VAR}` resolution) made safe to show: no userinfo, no query. */
export function displayUrl(configured: string): string {
  return new Redactor().text(configured, 200);
}
