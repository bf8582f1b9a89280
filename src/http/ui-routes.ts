// Serves the catalog browser at /ui/ (docs/ui.md). Only its static shell is
// answered without a credential: everything the page shows it fetches from the
// same tenant-scoped API agents use, with the credential the person signs in
// with, so the page can never show more than that credential may see.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Authenticator } from '../auth/principal.js';
import { refuseAnonymous } from './auth-hook.js';
import { sendError } from './respond.js';
import { UI_SECURITY_HEADERS, type UiAsset, type UiAssets } from './ui-assets.js';

/** Scripts and styles sit under a content-hashed path: a new build gets new URLs. */
const IMMUTABLE = 'public, max-age=31536000, immutable';
/** The shell names the current build, so it is revalidated on every load. */
const REVALIDATE = 'no-cache';

function acceptsGzip(request: FastifyRequest): boolean {
  const header = request.headers['accept-encoding'];
  const text = Array.isArray(header) ? header.join(',') : header ?? '';
  return text.split(',').some((part) => {
    const [name, ...params] = part.trim().toLowerCase().split(';');
    return (name === 'gzip' || name === '*') && !params.some((p) => /^\s*q=0(?:\.0*)?\s*$/.test(p));
  });
}

function sendAsset(request: FastifyRequest, reply: FastifyReply, file: UiAsset, cacheControl: string): FastifyReply {
  reply.header('etag', file.etag).header('cache-control', cacheControl).header('vary', 'Accept-Encoding');
  const ifNoneMatch = request.headers['if-none-match'];
  if (ifNoneMatch !== undefined && ifNoneMatch.split(',').some((tag) => tag.trim().replace(/^W\//, '') === file.etag)) return reply.code(304).send();
  reply.header('content-type', file.type);
  if (file.gzip !== undefined && acceptsGzip(request)) return reply.header('content-encoding', 'gzip').send(file.gzip);
  return reply.send(file.bytes);
}

export interface UiRouteDeps {
  authenticator: Authenticator;
  /** The built files; undefined when `npm run build` has not made them (the routes then say so). */
  assets: UiAssets | undefined;
}

export function registerUiRoutes(app: FastifyInstance, deps: UiRouteDeps): void {
  const { assets, authenticator } = deps;
  // Every /ui answer, a refusal included, carries the page's security headers.
  const guard = (reply: FastifyReply): boolean => {
    reply.headers(UI_SECURITY_HEADERS);
    return refuseAnonymous(reply, authenticator);
  };
  const notBuilt = (reply: FastifyReply): FastifyReply => sendError(reply, 'not_found', 'the catalog browser is not built: run `npm run build`');

  app.get('/ui', (_request, reply) => {
    if (guard(reply)) return reply;
    return reply.code(308).header('location', '/ui/').header('cache-control', 'no-cache').send();
  });
  app.get('/ui/', (request, reply) => {
    if (guard(reply)) return reply;
    if (assets === undefined) return notBuilt(reply);
    return sendAsset(request, reply, assets.index, REVALIDATE);
  });
  app.get('/ui/:build/*', (request, reply) => {
    if (guard(reply)) return reply;
    if (assets === undefined) return notBuilt(reply);
    const { build, '*': name } = request.params as { build: string; '*': string };
    const file = build === assets.build ? assets.files.get(name) : undefined;
    if (file === undefined) return sendError(reply, 'not_found', 'no such resource');
    return sendAsset(request, reply, file, IMMUTABLE);
  });
}
