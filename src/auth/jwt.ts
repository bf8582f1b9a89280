// JWT bearer tokens (docs/auth.md): verified with `jose` against a JWKS
// (asymmetric algorithms only), issuer, audience, expiry and not-before with a
// clock tolerance; claims mapped to a principal of a configured tenant.
//
// A token that is not JWT-shaped is declined (undefined), so API keys keep
// working beside JWTs without any async work. A JWT-shaped token that fails is
// a 401 naming the check that failed, never handed on to the API keys, and the
// token itself never appears in a reason.
import { jwtVerify, type JWTPayload } from 'jose';
import type { Logger } from 'pino';
import type { TokenVerifier } from './authenticator.js';
import { JWT_DEFAULTS, type ClaimPath, type JwtAlgorithm, type JwtConfig } from './config.js';
import { keyResolver, KeysUnavailableError, type KeySource } from './jwks.js';
import { principalKey, type AuthOutcome, type Principal } from './principal.js';

/** The most scopes one token may carry (a view is memoized per scope set). */
const MAX_SCOPES = 256;
const MAX_CACHED_TOKENS = 10_000;

export interface JwtVerifierOptions {
  issuer: string | string[];
  audience: string | string[];
  algorithms: readonly JwtAlgorithm[];
  clockToleranceSec: number;
  claims: { tenant: ClaimPath; scopes: ClaimPath; principal: ClaimPath };
  /** Tenant ids the host knows; a token naming another is refused. */
  tenants: ReadonlySet<string>;
  keys: KeySource;
  /** 0 disables the verified-token cache. */
  verifiedTokenCacheMs: number;
  logger?: Logger;
}

/** Options from the config section, defaults applied. */
export function jwtVerifierOptions(config: JwtConfig, tenants: ReadonlySet<string>, keys: KeySource, logger?: Logger): JwtVerifierOptions {
  return {
    issuer: config.issuer,
    audience: config.audience,
    algorithms: config.algorithms ?? JWT_DEFAULTS.algorithms,
    clockToleranceSec: config.clockToleranceSec ?? JWT_DEFAULTS.clockToleranceSec,
    claims: {
      tenant: config.claims?.tenant ?? JWT_DEFAULTS.claims.tenant,
      scopes: config.claims?.scopes ?? JWT_DEFAULTS.claims.scopes,
      principal: config.claims?.principal ?? JWT_DEFAULTS.claims.principal,
    },
    tenants,
    keys,
    verifiedTokenCacheMs: (config.verifiedTokenCacheSec ?? JWT_DEFAULTS.verifiedTokenCacheSec) * 1000,
    logger,
  };
}

const B64URL = new Uint8Array(128);
for (const c of 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_') B64URL[c.charCodeAt(0)] = 1;

/**
 * 'jws' for `eyJ<b64url>.<b64url>.<b64url>` (a compact JWS whose header starts
 * with `{"`), 'jwe' for five such parts, undefined for anything else.
 */
export function jwtShape(token: string): 'jws' | 'jwe' | undefined {
  if (token.length < 8 || token.charCodeAt(0) !== 0x65 || token.charCodeAt(1) !== 0x79 || token.charCodeAt(2) !== 0x4a) return undefined;
  let dots = 0;
  for (let i = 3; i < token.length; i++) {
    const c = token.charCodeAt(i);
    if (c === 0x2e) dots++;
    else if (c >= 128 || B64URL[c] === 0) return undefined;
  }
  return dots === 2 ? 'jws' : dots === 4 ? 'jwe' : undefined;
}

function claimAt(payload: JWTPayload, path: ClaimPath): unknown {
  if (typeof path === 'string') return Object.hasOwn(payload, path) ? payload[path] : undefined;
  let node: unknown = payload;
  for (const seg of path) {
    if (typeof node !== 'object' || node === null || Array.isArray(node) || !Object.hasOwn(node, seg)) return undefined;
    node = (node as Record<string, unknown>)[seg];
  }
  return node;
}

const claimName = (path: ClaimPath): string => (typeof path === 'string' ? path : path.join('.'));

function fail(reason: string): AuthOutcome {
  return { ok: false, presented: true, reason };
}

/** The failed check, in words, for a jose error (never the token, never a claim value). */
export function describeJoseError(err: unknown, algorithms: readonly string[]): string | undefined {
  const e = err as { code?: string; claim?: string; reason?: string };
  switch (e.code) {
    case 'ERR_JWT_EXPIRED':
      return 'JWT expired (exp is in the past)';
    case 'ERR_JWT_CLAIM_VALIDATION_FAILED':
      if (e.reason === 'missing') {
        const what = { iss: 'issuer', aud: 'audience', exp: 'expiry' }[e.claim ?? ''] ?? 'required';
        return `JWT has no ${what} claim (${e.claim})`;
      }
      switch (e.claim) {
        case 'nbf':
          return 'JWT not yet valid (nbf is in the future)';
        case 'iss':
          return 'JWT issuer unknown (iss is not an accepted issuer)';
        case 'aud':
          return 'JWT audience wrong (aud does not name this host)';
        case 'exp':
        case 'iat':
        case 'typ':
          return `JWT claim ${e.claim} is malformed`;
        default:
          return 'JWT claim check failed';
      }
    case 'ERR_JOSE_ALG_NOT_ALLOWED':
      return `JWT algorithm not allowed (accepted: ${algorithms.join(', ')})`;
    case 'ERR_JOSE_NOT_SUPPORTED':
      return 'JWT algorithm not supported';
    case 'ERR_JWKS_NO_MATCHING_KEY':
      return 'JWT key id unknown (no key in the key set matches kid and alg)';
    case 'ERR_JWKS_MULTIPLE_MATCHING_KEYS':
      return 'JWT key id ambiguous (several keys match; the token needs a kid)';
    case 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED':
      return 'JWT signature invalid';
    case 'ERR_JWS_INVALID':
    case 'ERR_JWT_INVALID':
      return 'JWT malformed';
    case 'ERR_JWK_INVALID':
    case 'ERR_JWKS_INVALID':
      return 'JWT key unusable (the matching key in the key set is invalid)';
    default:
      return undefined;
  }
}

interface CachedVerification {
  principal: Principal;
  untilMs: number;
}

export class JwtVerifier implements TokenVerifier {
  private readonly resolve: ReturnType<typeof keyResolver>;
  private readonly verifyOptions: Parameters<typeof jwtVerify>[2];
  private readonly cache = new Map<string, CachedVerification>();

  constructor(private readonly options: JwtVerifierOptions) {
    this.resolve = keyResolver(options.keys);
    this.verifyOptions = {
      issuer: options.issuer,
      audience: options.audience,
      algorithms: [...options.algorithms],
      clockTolerance: options.clockToleranceSec,
      requiredClaims: ['exp'],
    };
  }

  /** Forget every remembered verification (the key set changed). */
  clearCache(): void {
    this.cache.clear();
  }

  verify(token: string): AuthOutcome | undefined | Promise<AuthOutcome> {
    const shape = jwtShape(token);
    if (shape === undefined) return undefined;
    if (shape === 'jwe') return fail('JWT encrypted (JWE) tokens are not accepted; send a signed JWT');
    if (this.options.verifiedTokenCacheMs > 0) {
      const hit = this.cache.get(token);
      if (hit !== undefined) {
        if (Date.now() < hit.untilMs && this.options.keys.usableNow()) return { ok: true, principal: hit.principal };
        this.cache.delete(token);
      }
    }
    return this.verifySlow(token);
  }

  private async verifySlow(token: string): Promise<AuthOutcome> {
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, this.resolve, this.verifyOptions));
    } catch (err) {
      if (err instanceof KeysUnavailableError) return { ok: false, presented: true, unavailable: true, reason: `JWT cannot be checked now: ${err.message}` };
      const reason = describeJoseError(err, this.options.algorithms);
      if (reason !== undefined) return fail(reason);
      this.options.logger?.warn({ err: (err as Error).message }, 'unexpected error verifying a JWT');
      return fail('JWT verification failed');
    }
    const outcome = this.principalOf(payload, token);
    if (outcome.ok && this.options.verifiedTokenCacheMs > 0) this.remember(token, outcome.principal, payload.exp as number);
    return outcome;
  }

  private principalOf(payload: JWTPayload, token: string): AuthOutcome {
    const { claims, tenants } = this.options;
    const id = claimAt(payload, claims.principal);
    if (typeof id !== 'string' || id.length === 0 || id.length > 256) return fail(`JWT has no usable principal claim (${claimName(claims.principal)})`);
    const tenant = claimAt(payload, claims.tenant);
    if (tenant === undefined || tenant === null || tenant === '') return fail(`JWT has no tenant claim (${claimName(claims.tenant)})`);
    if (typeof tenant !== 'string' || !tenants.has(tenant)) return fail(`JWT tenant unknown (the ${claimName(claims.tenant)} claim names no tenant of this host)`);
    const raw = claimAt(payload, claims.scopes);
    let scopes: string[];
    if (raw === undefined || raw === null) scopes = [];
    else if (typeof raw === 'string') scopes = raw.split(' ').filter((s) => s.length > 0);
    else if (Array.isArray(raw) && raw.every((s) => typeof s === 'string')) scopes = raw as string[];
    else return fail(`JWT scopes claim (${claimName(claims.scopes)}) is malformed: expected a space-separated string or an array of strings`);
    if (scopes.length > MAX_SCOPES) return fail(`JWT carries more than ${MAX_SCOPES} scopes`);
    return { ok: true, principal: { id, tenant, scopes: new Set(scopes), kind: 'jwt', key: principalKey('jwt', tenant, id), claims: payload, presentedToken: () => token } };
  }

  private remember(token: string, principal: Principal, exp: number): void {
    const now = Date.now();
    const untilMs = Math.min(exp * 1000 + this.options.clockToleranceSec * 1000, now + this.options.verifiedTokenCacheMs);
    if (untilMs <= now) return;
    if (this.cache.size >= MAX_CACHED_TOKENS) {
      const oldest = this.cache.keys().next();
      if (!oldest.done) this.cache.delete(oldest.value);
    }
    this.cache.set(token, { principal, untilMs });
  }
}
