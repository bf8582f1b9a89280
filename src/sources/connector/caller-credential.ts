// Puts a caller's own credential (sources/upstream-credential.ts) on a
// connector request: its headers replace same-named ones, its query
// parameters are appended. Values holding characters not allowed in an HTTP
// header are refused, never quoted.
import { ConnectorRequestError } from './http-request.js';
import type { ConnectorHttpRequest } from './types.js';
import type { UpstreamCredential } from '../upstream-credential.js';

const FIELD_VALUE = /^[\t\x20-\x7e]*$/;

export function withCallerCredential(request: ConnectorHttpRequest, credential: UpstreamCredential): ConnectorHttpRequest {
  const headers = { ...request.headers };
  for (const [name, value] of Object.entries(credential.headers)) {
    if (!FIELD_VALUE.test(value)) throw new ConnectorRequestError("the caller's credential holds characters not allowed in an HTTP header");
    headers[name.toLowerCase()] = value;
  }
  let url = request.url;
  if (credential.query && credential.query.length > 0) {
    const hash = url.indexOf('#');
    const [before, after] = hash < 0 ? [url, ''] : [url.slice(0, hash), url.slice(hash)];
    const pairs = credential.query.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&');
    url = `${before}${before.includes('?') ? '&' : '?'}${pairs}${after}`;
  }
  return { ...request, headers, url };
}
