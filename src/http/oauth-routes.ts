// The browser leg of connecting an `oauth` upstream (docs/auth.md "Upstream
// credentials"). Both routes are opened by a person's browser, which holds no
// host credential: the connect link carries a sealed ticket naming the
// principal, and the callback is bound to the browser that started by a
// sealed cookie (upstream/oauth-grants.ts). What goes wrong is said in one
// line, never with a token or a stack.
//
//   GET /connections/{source}/authorize?ticket=...  -> 302 to the authorization server, Set-Cookie
//   GET /oauth/callback?code&state[&iss]            -> 200 "connected" page, or 400
import type { FastifyInstance, FastifyReply } from 'fastify';
import { OAuthFlowError, PENDING_COOKIE, type OAuthGrants } from '../upstream/oauth-grants.js';
import type { HttpDeps } from './deps.js';
import { refuseAnonymous } from './auth-hook.js';
import { sendError } from './respond.js';

function page(reply: FastifyReply, status: number, text: string): FastifyReply {
  const html = `<!doctype html><meta charset="utf-8"><title>toolhost</title><p>${text.replace(/[<>&"]/g, (c) => `&#${c.charCodeAt(0)};`)}</p>`;
  return reply.code(status).header('content-type', 'text/html; charset=utf-8').header('cache-control', 'no-store').header('content-security-policy', "default-src 'none'").send(html);
}

function cookieValue(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

export function registerOAuthRoutes(app: FastifyInstance, deps: Pick<HttpDeps, 'authenticator' | 'logger'>, grants: OAuthGrants): void {
  const failed = (reply: FastifyReply, err: unknown, what: string) => {
    if (err instanceof OAuthFlowError) return page(reply, 400, err.message);
    deps.logger.warn({ err: err instanceof Error ? err.name : 'unknown', what }, 'an upstream OAuth step failed');
    return sendError(reply, 'toolhost.unavailable', `the upstream's authorization server could not be used (${what}); try again later`);
  };

  app.get('/connections/:source/authorize', async (request, reply) => {
    if (refuseAnonymous(reply, deps.authenticator)) return reply;
    const { source } = request.params as { source: string };
    const { ticket } = (request.query ?? {}) as { ticket?: unknown };
    if (typeof ticket !== 'string' || ticket.length > 4096) return page(reply, 400, 'this connect link is not valid; ask for a new one');
    try {
      const { location, cookie } = await grants.begin(source, ticket);
      return reply.code(302).header('location', location).header('set-cookie', cookie).header('cache-control', 'no-store').send();
    } catch (err) {
      return failed(reply, err, 'discovery or registration');
    }
  });

  app.get('/oauth/callback', async (request, reply) => {
    if (refuseAnonymous(reply, deps.authenticator)) return reply;
    const raw = (request.query ?? {}) as Record<string, unknown>;
    const query: Record<string, string | undefined> = {};
    for (const k of ['code', 'state', 'iss', 'error']) if (typeof raw[k] === 'string') query[k] = raw[k];
    reply.header('set-cookie', `${PENDING_COOKIE}=; Path=/oauth/callback; HttpOnly; SameSite=Lax; Max-Age=0`);
    try {
      const source = await grants.complete(query, cookieValue(request.headers.cookie, PENDING_COOKIE));
      return page(reply, 200, `Connected ${source}. You can close this window; the call that asked for it goes on.`);
    } catch (err) {
      return failed(reply, err, 'token exchange');
    }
  });
}
