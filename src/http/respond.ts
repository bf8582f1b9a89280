// Shared reply helpers for the HTTP layer: the error envelope on the wire,
// pre-serialized JSON bodies with ETag revalidation and pre-compressed
// encodings (CONTRACT.md "Error body"; issue 8: no per-request work).
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Body, Encoding } from '../catalog/body.js';
import { ContractError, ERROR_STATUS, errorBody, type ErrorCode } from '../contract/errors.js';

export const JSON_TYPE = 'application/json; charset=utf-8';

export function sendError(reply: FastifyReply, code: ErrorCode, message: string, details?: Record<string, unknown>, headers: Record<string, string> = {}): FastifyReply {
  reply.code(ERROR_STATUS[code]).header('content-type', JSON_TYPE).header('cache-control', 'no-store');
  for (const [k, v] of Object.entries(headers)) reply.header(k, v);
  return reply.send(JSON.stringify(errorBody(code, message, details)));
}

export function sendContractError(reply: FastifyReply, err: ContractError): FastifyReply {
  return sendError(reply, err.code, err.message, err.details, err.headers);
}

/** Bodies at least this large are sent compressed when the client accepts it. */
const COMPRESS_MIN_BYTES = 1024;

function acceptedEncoding(header: string | string[] | undefined): Encoding | undefined {
  if (header === undefined) return undefined;
  const text = Array.isArray(header) ? header.join(',') : header;
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

function variantTag(etag: string, encoding: Encoding | undefined): string {
  return encoding === undefined ? etag : `${etag.slice(0, -1)}-${encoding}"`;
}

/** True when If-None-Match names any representation of this body. */
function notModified(ifNoneMatch: string | undefined, body: Body): boolean {
  if (ifNoneMatch === undefined) return false;
  if (ifNoneMatch.trim() === '*') return true;
  const base = body.etag.slice(0, -1);
  for (let tag of ifNoneMatch.split(',')) {
    tag = tag.trim();
    if (tag.startsWith('W/')) tag = tag.slice(2);
    if (tag === body.etag || tag === `${base}-gzip"` || tag === `${base}-br"`) return true;
  }
  return false;
}

/** Sends a pre-built JSON body: 304 on a matching If-None-Match, else the best accepted encoding. */
export function sendBody(request: FastifyRequest, reply: FastifyReply, body: Body, cacheControl = 'private, no-cache'): FastifyReply {
  const encoding = body.bytes.length >= COMPRESS_MIN_BYTES ? acceptedEncoding(request.headers['accept-encoding']) : undefined;
  reply.header('etag', variantTag(body.etag, encoding)).header('cache-control', cacheControl).header('vary', 'Accept-Encoding, Authorization');
  if (notModified(request.headers['if-none-match'], body)) return reply.code(304).send();
  reply.header('content-type', JSON_TYPE);
  if (encoding === undefined) return reply.send(body.bytes);
  return reply.header('content-encoding', encoding).send(body.encoded(encoding));
}
