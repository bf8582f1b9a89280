// Resolves the caller of a catalog request (CONTRACT.md "Authentication and
// tenancy"): a bearer credential is required; any failure is 401 with
// `WWW-Authenticate: Bearer`, never the credential echoed back.
import type { FastifyRequest } from 'fastify';
import { bearerToken, type Authenticator, type Principal } from '../auth/principal.js';
import { ContractError } from '../contract/errors.js';

const REALM = 'Bearer realm="toolhost"';

export async function requirePrincipal(request: FastifyRequest, authenticator: Authenticator): Promise<Principal> {
  const token = bearerToken(request.headers.authorization);
  if (token === null) {
    throw new ContractError('unauthenticated', 'malformed Authorization header: expected "Bearer <token>"', undefined, {
      'www-authenticate': `${REALM}, error="invalid_request"`,
    });
  }
  const outcome = await authenticator.authenticate(token);
  if (outcome.ok) return outcome.principal;
  const challenge = outcome.presented ? `${REALM}, error="invalid_token"` : REALM;
  throw new ContractError('unauthenticated', outcome.reason, undefined, { 'www-authenticate': challenge });
}
