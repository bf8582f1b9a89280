// Making text safe and small to show in logs and health (no credential in
// logs): credential-shaped runs masked (URL userinfo and query, `Bearer xyz`
// and the like), one line, bounded. The one home of `displayUrl`, used for
// configured upstream URLs (MCP) and key-set URLs (JWT auth).

/** `scheme://user:pass@host/path?query#frag` -> `scheme://***@host/path?***` */
const URL_USERINFO = /\b([a-z][a-z0-9+.-]*:\/\/)[^\s/?#@]*@/gi;
const URL_QUERY = /\b([a-z][a-z0-9+.-]*:\/\/[^\s?#]*)[?#][^\s]*/gi;
const BEARER = /\b(bearer|basic|token)\s+[A-Za-z0-9._~+/=-]{4,}/gi;

/** URL userinfo and query (with fragment) and `Bearer`/`Basic`/`token` values masked. */
export function maskCredentialPatterns(s: string): string {
  return s.replace(URL_USERINFO, '$1***@').replace(URL_QUERY, '$1?***').replace(BEARER, '$1 [redacted]');
}

/** Control characters as spaces, trimmed, at most `max` characters (an ellipsis marks a cut). */
export function boundedLine(s: string, max: number): string {
  let out = s.replace(/[\u0000-\u001f\u007f]+/g, ' ').trim();
  if (out.length > max) out = `${out.slice(0, max - 1)}…`;
  return out;
}

/**
 * A URL safe to show: no userinfo, no query or fragment, one line, bounded.
 * Also for configured text before `${VAR}` resolution, which may not parse
 * as a URL.
 */
export function displayUrl(url: string | URL, max = 200): string {
  return boundedLine(maskCredentialPatterns(typeof url === 'string' ? url : url.href), max);
}
