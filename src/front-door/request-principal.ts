// How a request's principal reaches the SDK handlers of its session's
// Server: as the transport's auth info (never the credential itself), read
// back by every handler, so what a request may list, call and approve is
// that request's principal's view.
import type { IncomingMessage } from 'node:http';
import type { FastifyReply } from 'fastify';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import type { Principal } from '../auth/principal.js';

/**
 * The request with its principal as auth info, and a signal that fires when
 * the client drops the connection before its answer was written: nobody
 * could receive that answer any more, so a call (or an approval) waiting on
 * it is cancelled. The signal is made when a handler first asks for it.
 */
export function withPrincipal(raw: IncomingMessage, reply: FastifyReply, principal: Principal): IncomingMessage & { auth: AuthInfo } {
  const req = raw as IncomingMessage & { auth: AuthInfo };
  const res = reply.raw;
  let gone: AbortController | undefined;
  let lost = false;
  res.once('close', () => {
    if (res.writableFinished) return;
    lost = true;
    gone?.abort(disconnected());
  });
  const extra = {
    principal,
    get gone(): AbortSignal {
      if (gone === undefined) {
        gone = new AbortController();
        if (lost) gone.abort(disconnected());
      }
      return gone.signal;
    },
  };
  req.auth = { token: '', clientId: principal.id, scopes: [], extra };
  return req;
}

const disconnected = (): Error => new Error('the client disconnected');

/**
 * The auth info of a request whose transport cancels it itself when its
 * client goes away (front-door/fast-call.ts): the principal, and no signal of
 * its own, so its handlers follow the request's own signal alone.
 */
export function principalOnly(auth: AuthInfo): AuthInfo {
  return { token: auth.token, clientId: auth.clientId, scopes: auth.scopes, extra: { principal: auth.extra?.principal } };
}

/** The principal of the request a handler serves, and the signal that cancels its work. */
export function callerOf(extra: { authInfo?: AuthInfo; signal: AbortSignal }): { principal: Principal; signal: AbortSignal } {
  const principal = extra.authInfo?.extra?.principal as Principal | undefined;
  // Every request reaching a handler passed through withPrincipal; anything else is a bug, not a caller.
  if (principal === undefined) throw new McpError(ErrorCode.InternalError, 'request without a principal');
  const gone = extra.authInfo?.extra?.gone as AbortSignal | undefined;
  return { principal, signal: gone === undefined ? extra.signal : AbortSignal.any([extra.signal, gone]) };
}
