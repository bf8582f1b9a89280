// Keeps a connector's credential out of what a call returns (tool results,
// error messages): an API that echoes request headers, the URL or the body
// would otherwise hand `Bearer <secret>` to every caller of the tool, also to
// tenants that never saw the secret. Serves the contract's rule that no
// credential appears in a tool result, event or log line.
//
// What counts as the secret: the resolved value and, for `basic`, also the
// password after the first `:`. Each is matched in the encodings an API is
// likely to echo it in: as is, percent-encoded (any hex case; `encodeURI`,
// `encodeURIComponent` and form encoding with `+`), base64 (with and without
// padding), base64url, JSON-escaped (also with non-ASCII as `\uXXXX` and `/`
// as `\/`), and hex (lower and upper case). Base64 is matched only as the
// encoding of the value on its own (as in an echoed `Authorization` header),
// not at other offsets inside a longer base64 text.
//
// Every match becomes REDACTED. Should the marker and its neighbours form the
// secret again (a secret like `d]x`, or one inside the marker), the whole text
// becomes the marker, or empty when even the marker holds the secret: the
// guarantee is that no form of the secret is ever returned.
import type { ConnectorAuthType } from './config-schema.js';

export const REDACTED = '[redacted]';

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

/** The values to keep out of results for one resolved connector secret. */
export function secretValues(secret: string, authType: ConnectorAuthType | undefined): string[] {
  const values = [secret];
  if (authType === 'basic') {
    const colon = secret.indexOf(':');
    if (colon >= 0 && colon < secret.length - 1) values.push(secret.slice(colon + 1));
  }
  return values;
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
