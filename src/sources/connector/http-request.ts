// Tool arguments → HTTP request, following OpenAPI parameter serialization
// (style/explode) for the common cases. The secret is added separately, by
// applyConnectorAuth, at call time.
//
// Serialization rules:
// - values: strings as is, numbers and booleans via String(); inside arrays
//   and objects, nested arrays/objects are sent as JSON text. `null` or an
//   absent argument leaves the parameter out (a required one is an error).
// - path (style simple (default), label, matrix; explode default false):
//   every value is percent-encoded with encodeURIComponent, so `/`, `?`, `#`
//   never leave the segment (label style also encodes `.`, its separator);
//   a substituted segment that would read as `.` or `..` (also as `%2e`) is
//   refused, since URL normalization would otherwise climb the path.
// - query (style form (default, explode default true), spaceDelimited,
//   pipeDelimited, deepObject): keys and values percent-encoded; arrays as
//   repeated `name=v` (form, explode), or joined with `,` / `%20` / `|`;
//   objects as `k=v` pairs (form, explode), `name=k,v,...` (not exploded) or
//   `name[k]=v` (deepObject). Empty arrays are left out. `allowReserved` is
//   not honoured: values are always encoded.
// - headers (style simple): arrays joined with `,`, objects `k,v,...` or
//   `k=v,...` (explode); names lower-cased; values holding characters not
//   allowed in an HTTP field value (control characters, non-ASCII) are refused.
// - parameters declared with `content` send the value JSON-encoded.
// - body: JSON (`JSON.stringify`), form (`application/x-www-form-urlencoded`
//   of the object's properties) or text; `content-type` set from the chosen
//   media type; `accept` from the JSON 2xx response, if any.
import { isPlainObject } from '../../util/json.js';
import type { ConnectorAuthConfig } from './config-schema.js';
import type { ConnectorHttpRequest, ConnectorOperation, ConnectorParameter } from './types.js';

/** Arguments that cannot be turned into a request (a caller error; the message holds no values). */
export class ConnectorRequestError extends Error {}

function enc(s: string, what: string): string {
  try {
    return encodeURIComponent(s);
  } catch {
    throw new ConnectorRequestError(`${what} is not well-formed Unicode`);
  }
}

function scalarText(v: unknown): string {
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint') return String(v);
  if (v === null || v === undefined) return '';
  return JSON.stringify(v);
}

function entriesOf(v: Record<string, unknown>): [string, string][] {
  return Object.entries(v)
    .filter(([, x]) => x !== undefined && x !== null)
    .map(([k, x]) => [k, scalarText(x)]);
}

function paramValue(p: ConnectorParameter, v: unknown): unknown {
  return p.content === 'json' ? JSON.stringify(v) : p.content === 'text' ? scalarText(v) : v;
}

function pathValue(p: ConnectorParameter, raw: unknown): string {
  const what = `path parameter ${JSON.stringify(p.name)}`;
  const v = paramValue(p, raw);
  // In label style `.` separates values, so a `.` inside a value is encoded too.
  const e = p.style === 'label' ? (s: string) => enc(s, what).replace(/\./g, '%2E') : (s: string) => enc(s, what);
  const name = e(p.name);
  if (Array.isArray(v)) {
    const items = v.map((x) => e(scalarText(x)));
    switch (p.style) {
      case 'label':
        return '.' + items.join(p.explode ? '.' : ',');
      case 'matrix':
        return p.explode ? items.map((x) => `;${name}=${x}`).join('') : `;${name}${items.length ? '=' : ''}${items.join(',')}`;
      default:
        return items.join(',');
    }
  }
  if (isPlainObject(v)) {
    const pairs = entriesOf(v).map(([k, x]) => [e(k), e(x)] as const);
    switch (p.style) {
      case 'label':
        return '.' + (p.explode ? pairs.map(([k, x]) => `${k}=${x}`).join('.') : pairs.flat().join(','));
      case 'matrix':
        return p.explode ? pairs.map(([k, x]) => `;${k}=${x}`).join('') : `;${name}=${pairs.flat().join(',')}`;
      default:
        return p.explode ? pairs.map(([k, x]) => `${k}=${x}`).join(',') : pairs.flat().join(',');
    }
  }
  const s = e(scalarText(v));
  switch (p.style) {
    case 'label':
      return `.${s}`;
    case 'matrix':
      return `;${name}=${s}`;
    default:
      return s;
  }
}

function queryPairs(p: ConnectorParameter, raw: unknown): string[] {
  const what = `query parameter ${JSON.stringify(p.name)}`;
  const v = paramValue(p, raw);
  const e = (s: string) => enc(s, what);
  const name = e(p.name);
  if (Array.isArray(v)) {
    if (v.length === 0) return [];
    const items = v.map((x) => e(scalarText(x)));
    if (p.explode && p.style !== 'deepObject') return items.map((x) => `${name}=${x}`);
    const sep = p.style === 'spaceDelimited' ? '%20' : p.style === 'pipeDelimited' ? '|' : ',';
    return [`${name}=${items.join(sep)}`];
  }
  if (isPlainObject(v)) {
    const pairs = entriesOf(v).map(([k, x]) => [e(k), e(x)] as const);
    if (p.style === 'deepObject') return pairs.map(([k, x]) => `${name}[${k}]=${x}`);
    if (p.explode) return pairs.map(([k, x]) => `${k}=${x}`);
    const sep = p.style === 'spaceDelimited' ? '%20' : p.style === 'pipeDelimited' ? '|' : ',';
    return [`${name}=${pairs.flat().join(sep)}`];
  }
  return [`${name}=${e(scalarText(v))}`];
}

const FIELD_VALUE = /^[\t\x20-\x7e]*$/;

function headerValue(p: ConnectorParameter, raw: unknown): string {
  const v = paramValue(p, raw);
  let s: string;
  if (Array.isArray(v)) s = v.map(scalarText).join(',');
  else if (isPlainObject(v)) {
    const pairs = entriesOf(v);
    s = p.explode ? pairs.map(([k, x]) => `${k}=${x}`).join(',') : pairs.flat().join(',');
  } else s = scalarText(v);
  if (!FIELD_VALUE.test(s)) throw new ConnectorRequestError(`header parameter ${JSON.stringify(p.name)} holds characters not allowed in an HTTP header`);
  return s;
}

function isDotSegment(seg: string): boolean {
  const d = seg.replace(/%2e/gi, '.');
  return d === '.' || d === '..';
}

function formBody(v: unknown): string {
  if (!isPlainObject(v)) throw new ConnectorRequestError('the form body must be an object');
  const out: string[] = [];
  for (const [k, x] of Object.entries(v)) {
    if (x === undefined || x === null) continue;
    const items = Array.isArray(x) ? x : [x];
    for (const item of items) out.push(`${enc(k, 'body')}=${enc(scalarText(item), 'body')}`);
  }
  return out.join('&');
}

/**
 * Builds the request for one operation call. `args` are the tool arguments
 * (keys as in the input schema); unknown keys are ignored. Throws
 * ConnectorRequestError for missing required arguments or unsendable values.
 */
export function buildHttpRequest(op: ConnectorOperation, args: Record<string, unknown>, baseUrl: string): ConnectorHttpRequest {
  let base: URL;
  try {
    base = new URL(baseUrl);
  } catch {
    throw new ConnectorRequestError('the base URL is not a valid URL');
  }
  if (base.protocol !== 'http:' && base.protocol !== 'https:') throw new ConnectorRequestError('the base URL must be http or https');
  const has = (k: string) => Object.prototype.hasOwnProperty.call(args, k) && args[k] !== undefined && args[k] !== null;

  const headers: Record<string, string> = {};
  const query: string[] = [];
  const pathValues = new Map<string, string>();
  for (const p of op.parameters) {
    if (!has(p.property)) {
      if (p.required) throw new ConnectorRequestError(`missing required argument ${JSON.stringify(p.property)}`);
      continue;
    }
    const v = args[p.property];
    if (p.in === 'path') pathValues.set(p.name, pathValue(p, v));
    else if (p.in === 'query') query.push(...queryPairs(p, v));
    else {
      const value = headerValue(p, v);
      if (!(Array.isArray(v) && v.length === 0)) headers[p.name.toLowerCase()] = value;
    }
  }

  let substituted = false;
  // A `#...` in a path key is documentation only (some documents use it to
  // describe several operations on one path); a fragment is never sent, and
  // left in place it would swallow the query string.
  const template = op.path.split('#')[0];
  const path = template.replace(/\{([^}]+)\}/g, (_match, name: string) => {
    const value = pathValues.get(name);
    if (value === undefined) throw new ConnectorRequestError(`missing required argument for path parameter ${JSON.stringify(name)}`);
    substituted = true;
    return value;
  });
  if (substituted && path.split('/').some(isDotSegment)) {
    throw new ConnectorRequestError('a path parameter value would form a "." or ".." path segment');
  }

  let body: string | undefined;
  if (op.body) {
    if (has(op.body.property) || (Object.prototype.hasOwnProperty.call(args, op.body.property) && args[op.body.property] === null && op.body.encoding === 'json')) {
      const v = args[op.body.property];
      body = op.body.encoding === 'json' ? JSON.stringify(v) : op.body.encoding === 'form' ? formBody(v) : scalarText(v);
      headers['content-type'] = op.body.mediaType;
    } else if (op.body.required) {
      throw new ConnectorRequestError(`missing required argument ${JSON.stringify(op.body.property)}`);
    }
  }
  if (op.responseMediaType !== undefined && headers.accept === undefined) headers.accept = op.responseMediaType;

  const url = baseUrl.replace(/\/+$/, '') + path + (query.length > 0 ? `${path.includes('?') ? '&' : '?'}${query.join('&')}` : '');
  return { method: op.method, url, headers, ...(body !== undefined ? { body } : {}) };
}

/**
 * Returns a copy of the request carrying the credential. The secret goes only
 * into the returned request; errors never quote it.
 */
export function applyConnectorAuth(request: ConnectorHttpRequest, auth: ConnectorAuthConfig, secretValue: string): ConnectorHttpRequest {
  const headers = { ...request.headers };
  const needsFieldValue = auth.type === 'bearer' || auth.type === 'header';
  if (needsFieldValue && !FIELD_VALUE.test(secretValue)) {
    throw new ConnectorRequestError('the connector secret holds characters not allowed in an HTTP header');
  }
  switch (auth.type) {
    case 'bearer':
      headers.authorization = `Bearer ${secretValue}`;
      return { ...request, headers };
    case 'basic':
      headers.authorization = `Basic ${Buffer.from(secretValue, 'utf8').toString('base64')}`;
      return { ...request, headers };
    case 'header':
      if (!auth.name) throw new ConnectorRequestError('auth type "header" needs a name');
      headers[auth.name.toLowerCase()] = secretValue;
      return { ...request, headers };
    case 'query': {
      if (!auth.name) throw new ConnectorRequestError('auth type "query" needs a name');
      const [beforeHash, hash] = splitHash(request.url);
      const sep = beforeHash.includes('?') ? '&' : '?';
      return { ...request, headers, url: `${beforeHash}${sep}${enc(auth.name, 'auth name')}=${enc(secretValue, 'the connector secret')}${hash}` };
    }
  }
}

function splitHash(url: string): [string, string] {
  const i = url.indexOf('#');
  return i < 0 ? [url, ''] : [url.slice(0, i), url.slice(i)];
}
