// Shared reply helpers for the HTTP layer: the error envelope on the wire,
// pre-serialized JSON bodies with ETag revalidation and pre-compressed
// encodings (docs/contract.md "Error body"). Bodies are made once per snapshot, so a
// request does no serialization or compression of its own.
import type { IncomingHttpHeaders } from 'node:http';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Body, Encoding } from '../catalog/body.js';
import { ContractError, echoed, ERROR_STATUS, errorBody, type ErrorCode } from '../contract/errors.js';
import { isServedVersion, PROTOCOL_HEADER, PROTOCOL_VERSION } from '../contract/protocol.js';

export const JSON_TYPE = 'application/json; charset=utf-8';

/** Serialized error bodies without details (the 401s and 404s of every refused request), by code and message. */
const errorTexts = new Map<string, string>();
const MAX_ERROR_TEXTS = 256;

export function errorText(code: ErrorCode, message: string, details: Record<string, unknown> | undefined): string {
  if (details !== undefined) return JSON.stringify(errorBody(code, message, details));
  const key = `${code}\n${message}`;
  let text = errorTexts.get(key);
  if (text === undefined) {
    text = JSON.stringify(errorBody(code, message));
    // Messages may carry request data (a version header): keep the cache bounded.
    if (errorTexts.size >= MAX_ERROR_TEXTS) errorTexts.clear();
    errorTexts.set(key, text);
  }
  return text;
}

/**
 * Answers with the error envelope. Every error goes through here, so it
 * stamps `OpenWOP-Version` itself: an error raised before any route hook
 * (a body that fails to parse, a body over the limit) carries it too.
 */
export function sendError(reply: FastifyReply, code: ErrorCode, message: string, details?: Record<string, unknown>, headers: Record<string, string> = {}): FastifyReply {
  reply.code(ERROR_STATUS[code]).header('openwop-version', PROTOCOL_VERSION).header('content-type', JSON_TYPE).header('cache-control', 'no-store');
  for (const k in headers) reply.header(k, headers[k]);
  return reply.send(errorText(code, message, details));
}

/**
 * Stamps `OpenWOP-Version` on the reply and refuses a request that asks for
 * a version not served (406 protocol_version_unsupported; the asked value is
 * quoted in `details.requested`, bounded: a header may be kilobytes long).
 * Also refuses an HTTP/1.1 request without a Host header (400), which Node
 * is told to let through so that the refusal is an envelope too (app.ts).
 * False when it answered: the caller must stop.
 */
export function protocolGate(request: FastifyRequest, reply: FastifyReply): boolean {
  reply.header('openwop-version', PROTOCOL_VERSION);
  const asked = request.headers[PROTOCOL_HEADER];
  const version = Array.isArray(asked) ? asked[0] : asked;
  if (!isServedVersion(version)) {
    sendError(reply, 'protocol_version_unsupported', 'the requested OpenWOP-Version is not served', {
      protocolVersions: [PROTOCOL_VERSION],
      requested: echoed(String(version)),
    });
    return false;
  }
  if (request.headers.host === undefined && request.raw.httpVersion === '1.1') {
    sendError(reply, 'validation_error', 'an HTTP/1.1 request needs a Host header');
    return false;
  }
  return true;
}

export function sendContractError(reply: FastifyReply, err: ContractError): FastifyReply {
  return sendError(reply, err.code, err.message, err.details, err.headers);
}

/** Bodies at least this large are sent compressed when the client accepts it. */
export const COMPRESS_MIN_BYTES = 1024;

function parseAcceptEncoding(text: string): Encoding | undefined {
  let gzip = false;
  for (const part of text.split(',')) {
    const [name, ...params] = part.trim().toLowerCase().split(';');
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    if (q !== undefined && Number(q.slice(2)) === 0) continue;
    if (name === 'br') return 'br';
    if (name === 'gzip' || name === '*') gzip = true;
  }
  return gzip ? 'gzip' : undefined;
}

/** Clients send a handful of distinct Accept-Encoding values: parse each once. */
const acceptedByHeader = new Map<string, Encoding | null>();
const MAX_ACCEPT_VALUES = 128;

export function acceptedEncoding(header: string | string[] | undefined): Encoding | undefined {
  if (header === undefined) return undefined;
  const text = Array.isArray(header) ? header.join(',') : header;
  const known = acceptedByHeader.get(text);
  if (known !== undefined) return known ?? undefined;
  const parsed = parseAcceptEncoding(text);
  if (acceptedByHeader.size >= MAX_ACCEPT_VALUES) acceptedByHeader.clear();
  acceptedByHeader.set(text, parsed ?? null);
  return parsed;
}

/** True when If-None-Match names any representation of this body. */
export function notModified(ifNoneMatch: string, body: Body): boolean {
  const etag = body.etag;
  // The common case: the client sends back exactly the tag it was given.
  if (ifNoneMatch === etag || ifNoneMatch === body.tagFor('gzip') || ifNoneMatch === body.tagFor('br')) return true;
  if (ifNoneMatch.trim() === '*') return true;
  const base = etag.slice(0, -1);
  for (let tag of ifNoneMatch.split(',')) {
    tag = tag.trim();
    if (tag.startsWith('W/')) tag = tag.slice(2);
    if (tag === etag || tag === `${base}-gzip"` || tag === `${base}-br"`) return true;
  }
  return false;
}

/** The cache rule of a caller's own answers (the catalog). */
export const PRIVATE_CACHE = 'private, no-cache';
const VARY = 'Accept-Encoding, Authorization';

/**
 * How a pre-built body answers one request: 304 when If-None-Match names
 * it, else 200 with its bytes in the best encoding the client accepts. A
 * revalidation never builds a lazy body's bytes; a large body whose
 * encoding is still being compressed (off the event loop) has its bytes as
 * a promise. Both roads of the catalog read (fastify's, and node:http's in
 * catalog-fast-path.ts) answer through this and `bodyHeaders`.
 */
export interface BodyAnswer {
  status: 200 | 304;
  etag: string;
  /** The content encoding of a 200 (undefined: identity). */
  encoding: Encoding | undefined;
  /** Undefined for a 304; an identity answer may be several buffers to write in order (`parts`). */
  bytes: Buffer | readonly Buffer[] | Promise<Buffer> | undefined;
}

/** `parts`: the writer takes an identity body as several buffers (a list body is then not joined). */
export function bodyAnswer(headers: IncomingHttpHeaders, body: Body, parts = false): BodyAnswer {
  const encoding = body.size >= COMPRESS_MIN_BYTES ? acceptedEncoding(headers['accept-encoding']) : undefined;
  const etag = body.tagFor(encoding);
  const ifNoneMatch = headers['if-none-match'];
  if (ifNoneMatch !== undefined && notModified(ifNoneMatch, body)) return { status: 304, etag, encoding: undefined, bytes: undefined };
  return { status: 200, etag, encoding, bytes: encoding !== undefined ? body.encodedSoon(encoding) : parts ? body.parts : body.bytes };
}

/**
 * The answer's representation headers, in their order on the wire, appended
 * to `into` as name, value, name, value (the length is the writer's). A flat
 * list, which `writeHead` takes as it is. Built as an object one header at a
 * time, these stores took a tenth of a small answer's CPU in the host with
 * the audit line on, ten times what they took without it (V8's slow path for
 * that object's shape; docs/benchmarks.md, "Small answers, third round").
 */
export function bodyHeaders(answer: BodyAnswer, cacheControl: string, into: string[]): string[] {
  into.push('etag', answer.etag, 'cache-control', cacheControl, 'vary', VARY);
  if (answer.status === 304) return into;
  into.push('content-type', JSON_TYPE);
  if (answer.encoding !== undefined) into.push('content-encoding', answer.encoding);
  return into;
}

/** Sends a pre-built JSON body (`bodyAnswer`); a promise while its encoding is still being compressed. */
export function sendBody(request: FastifyRequest, reply: FastifyReply, body: Body, cacheControl = PRIVATE_CACHE): FastifyReply | Promise<FastifyReply> {
  const answer = bodyAnswer(request.headers, body);
  const headers = bodyHeaders(answer, cacheControl, []);
  for (let i = 0; i < headers.length; i += 2) reply.header(headers[i], headers[i + 1]);
  const bytes = answer.bytes as Buffer | Promise<Buffer> | undefined;
  if (bytes === undefined) return reply.code(304).send();
  return bytes instanceof Promise ? bytes.then((b) => reply.send(b)) : reply.send(bytes);
}
