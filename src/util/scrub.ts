// The one home of scrubbing: keeping credentials out of everything the host
// says (tool results, errors, health, logs, events, descriptors). Two kinds
// of knowledge, each written once:
// - credential shapes (CREDENTIAL_SHAPES: `Bearer …`, JWTs, provider keys,
//   private keys, URL userinfo…), for text whose secrets the host does not
//   know: upstream schemas and descriptions (catalog/redact.ts) and log text
//   (maskCredentialPatterns, util/log-text.ts);
// - the secrets the host does know, because it resolved them for a source
//   (an MCP server's env values and headers, a connector's credential, a
//   connection URL's password): SecretScrubber removes each in every
//   encoding an upstream is likely to echo it in.
//
// SecretScrubber: each value is matched as is, percent-encoded (any hex
// case; `encodeURI`, `encodeURIComponent` and form encoding with `+`),
// base64 (with and without padding), base64url, JSON-escaped (also with
// non-ASCII as `\uXXXX` and `/` as `\/`), and hex (lower and upper case).
// Base64 is matched only as the encoding of the value on its own (as in an
// echoed `Authorization` header), not at other offsets inside a longer
// base64 text. Every match becomes REDACTED. Should the marker and its
// neighbours form the secret again (a secret like `d]x`, or one inside the
// marker), the whole text becomes the marker, or empty when even the marker
// holds the secret: no form of the secret is ever returned.

export const REDACTED = '[redacted]';

/**
 * Credential shapes, each with a literal its match must contain where there
 * is one: a substring search is far cheaper than a regular expression that
 * may start at every word boundary (the URL pattern was the slowest step of
 * a cold catalog build), and a pattern is only skipped when it cannot match.
 */
const CREDENTIAL_SHAPES: { re: RegExp; literal?: string }[] = [
  { re: /\bBearer\s+[A-Za-z0-9\-._~+/]{8,}=*/i },
  { re: /\bBasic\s+[A-Za-z0-9+/]{12,}=*/, literal: 'Basic' },
  { re: /-----BEGIN (?:[A-Z ]+ )?PRIVATE KEY-----/, literal: 'PRIVATE KEY-----' },
  { re: /\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*/, literal: 'eyJ' }, // JWT
  { re: /\b(?:sk|pk|rk)[-_](?:live|test|proj|ant)?[-_]?[A-Za-z0-9]{16,}/ }, // provider API keys
  { re: /\bgh[pousr]_[A-Za-z0-9]{30,}/ }, // GitHub tokens
  { re: /\bxox[abprs]-[A-Za-z0-9-]{10,}/, literal: 'xox' }, // Slack tokens
  { re: /\bAKIA[0-9A-Z]{16}\b/, literal: 'AKIA' }, // AWS access key id
  { re: /\bAIza[0-9A-Za-z_-]{35}\b/, literal: 'AIza' }, // Google API key
  { re: /\b[a-z][a-z0-9+.-]*:\/\/[^\s/:@]+:[^\s/@]+@/i, literal: '://' }, // URL with user:password@
];
const CREDENTIAL_SHAPES_GLOBAL = CREDENTIAL_SHAPES.map(({ re }) => new RegExp(re.source, `${re.flags}g`));


/** Whether the text holds a run shaped like a credential. */
export function looksLikeSecret(value: string): boolean {
  for (const { re, literal } of CREDENTIAL_SHAPES) {
    if (literal !== undefined && !value.includes(literal)) continue;
    if (re.test(value)) return true;
  }
  return false;
}

/** The text with every credential-shaped run replaced by REDACTED (free text keeps its other words). */
export function replaceCredentialShapes(value: string): string {
  return CREDENTIAL_SHAPES_GLOBAL.reduce((text, re) => text.replace(re, REDACTED), value);
}

/** `scheme://user:pass@host/path?query#frag` -> `scheme://***@host/path?***` */
const URL_USERINFO = /\b([a-z][a-z0-9+.-]*:\/\/)[^\s/?#@]*@/gi;
const URL_QUERY = /\b([a-z][a-z0-9+.-]*:\/\/[^\s?#]*)[?#][^\s]*/gi;
const AUTH_WORD = /\b(bearer|basic|token)\s+[A-Za-z0-9._~+/=-]{4,}/gi;

/** For log text: URL userinfo and query (with fragment) masked, `Bearer`/`Basic`/`token` values and every credential shape replaced. */
export function maskCredentialPatterns(s: string): string {
  return replaceCredentialShapes(s.replace(URL_USERINFO, '$1***@').replace(URL_QUERY, '$1?***').replace(AUTH_WORD, '$1 [redacted]'));
}

/**
 * What of a connection URL (PostgreSQL, Redis) is secret: the URL itself,
 * its user and password (as written and percent-decoded) and a `password`
 * query parameter. Empty parts are left out; a text that is no URL is
 * secret as a whole.
 */
export function connectionUrlSecrets(url: string): string[] {
  const secrets = new Set<string>([url]);
  try {
    const u = new URL(url);
    for (const part of [u.username, u.password]) {
      secrets.add(part);
      secrets.add(safeDecode(part));
    }
    const query = new URLSearchParams(u.search).get('password');
    if (query) secrets.add(query);
  } catch {
    // Not a URL: only the text itself is known to be secret.
  }
  return [...secrets].filter((s) => s.length > 0);
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}


function regexLiteral(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');
}

/** A percent-encoded form as a pattern whose `%XX` escapes match in either case. */
function percentPattern(s: string): string {
  return s
    .split(/(%[0-9A-Fa-f]{2})/)
    .map((part) => (/^%[0-9A-Fa-f]{2}$/.test(part) ? `%[${part[1].toLowerCase()}${part[1].toUpperCase()}][${part[2].toLowerCase()}${part[2].toUpperCase()}]` : regexLiteral(part)))
    .join('');
}

function tryEncode(f: (s: string) => string, s: string): string | undefined {
  try {
    return f(s);
  } catch {
    return undefined; // lone surrogates cannot be percent-encoded: then nothing could have sent them so
  }
}

function jsonEscaped(s: string): string[] {
  const plain = JSON.stringify(s).slice(1, -1);
  const ascii = plain.replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  return [plain, ascii, ascii.replace(/\\u([0-9a-f]{4})/g, (_, h: string) => `\\u${h.toUpperCase()}`), plain.replace(/\//g, '\\/')];
}

/** The patterns (regex source) under which one secret value may be echoed. */
export function secretPatterns(value: string): string[] {
  const literals = new Set<string>([value, ...jsonEscaped(value)]);
  const bytes = Buffer.from(value, 'utf8');
  const base64 = bytes.toString('base64');
  literals.add(base64);
  literals.add(base64.replace(/=+$/, ''));
  literals.add(bytes.toString('base64url'));
  literals.add(bytes.toString('hex'));
  literals.add(bytes.toString('hex').toUpperCase());
  const percent = new Set<string>();
  for (const encoded of [tryEncode(encodeURIComponent, value), tryEncode(encodeURI, value), tryEncode((s) => new URLSearchParams([['', s]]).toString().slice(1), value)]) {
    if (encoded !== undefined && encoded !== value) percent.add(encoded);
  }
  const patterns = [...literals].filter((l) => l !== '').map(regexLiteral);
  for (const p of percent) patterns.push(percentPattern(p));
  return patterns;
}

/** Replaces every echoed form of the given secrets; see the module comment. */
export class SecretScrubber {
  private readonly find: RegExp | undefined;
  private readonly test: RegExp | undefined;

  constructor(values: readonly string[]) {
    const patterns = [...new Set(values.filter((v) => v !== '').flatMap(secretPatterns))];
    // Longest first, so a longer form is replaced whole rather than around a shorter one inside it.
    patterns.sort((a, b) => b.length - a.length);
    if (patterns.length === 0) return;
    const source = patterns.join('|');
    this.find = new RegExp(source, 'g');
    this.test = new RegExp(source);
  }

  /** Whether some form of a secret occurs in the text (of a JSON value's serialization: its strings and keys appear there raw or JSON-escaped). */
  matches(s: string): boolean {
    return this.test !== undefined && this.test.test(s);
  }

  text(s: string): string {
    if (!this.find || !this.test) return s;
    const out = s.replace(this.find, REDACTED);
    if (!this.test.test(out)) return out;
    return this.test.test(REDACTED) ? '' : REDACTED;
  }

  /** A copy of a JSON value with every string (keys too) scrubbed. */
  value(v: unknown): unknown {
    if (!this.find) return v;
    if (typeof v === 'string') return this.text(v);
    // A number can spell a secret too (a numeric key echoed as a number): then it becomes the scrubbed text.
    if (typeof v === 'number' && this.test!.test(String(v))) return this.text(String(v));
    if (Array.isArray(v)) return v.map((x) => this.value(x));
    if (v !== null && typeof v === 'object') {
      const out: Record<string, unknown> = {};
      // defineProperty: an echoed `__proto__` key stays a plain key.
      for (const [k, x] of Object.entries(v)) Object.defineProperty(out, this.text(k), { value: this.value(x), enumerable: true, writable: true, configurable: true });
      return out;
    }
    return v;
  }
}
