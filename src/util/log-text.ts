// Making text safe and small to show in logs and health (no credential in
// logs): credential-shaped runs masked (URL userinfo and query, `Bearer xyz`
// and the like: scrub.ts), one line, bounded. The one home of `displayUrl`,
// used for configured upstream URLs (MCP) and key-set URLs (JWT auth).
import { maskCredentialPatterns } from './scrub.js';

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
