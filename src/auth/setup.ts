// Assembles the auth layer from the config (docs/auth.md): API keys (inline
// and from the keys file, reloaded), the JWT verifier and its key source, the
// per-principal rate limiter (local, or shared through Redis), the anonymous
// bound and the audit switch.
import { resolve } from 'node:path';
import type { Logger } from 'pino';
import { ApiKeyStore, recordOfEntry, type PrincipalEntry } from './api-keys.js';
import { HostAuthenticator, type TokenVerifier } from './authenticator.js';
import { JWT_DEFAULTS, type AuthConfig } from './config.js';
import { FileJwks, RemoteJwks, type KeySource } from './jwks.js';
import { JwtVerifier, jwtVerifierOptions } from './jwt.js';
import { KeysFileReloader } from './key-file.js';
import { protectedResourceOf, type ProtectedResource } from './protected-resource.js';
import type { PrincipalLimiter } from './authenticator.js';
import type { RedisConnection } from './redis-connection.js';
import { SharedRateLimiter } from './redis-rate-limit.js';
import { DEFAULT_ANONYMOUS_RATE_LIMIT, DEFAULT_RATE_LIMIT, RateLimiter, resolveRateLimit, TokenBucket, type RateLimit, type RateLimitSetting } from './rate-limit.js';

export interface AuthSetupInput {
  auth?: AuthConfig;
  /** Tenant id → its `rateLimit` setting (absent: the default). */
  tenants: ReadonlyMap<string, RateLimitSetting | undefined>;
  /** The main config's inline `principals` (not reloaded). */
  principals: readonly PrincipalEntry[];
  /** Relative `keysFile` / `jwksFile` paths resolve here. */
  configDir: string;
  logger: Logger;
  /** The shared Redis connection; required when `auth.rateLimitStore` is `redis`. */
  redis?: RedisConnection;
  /** A request answered from local buckets because Redis was unavailable (metrics). */
  onRateLimitFallback?: () => void;
}

export interface AuthRuntime {
  authenticator: HostAuthenticator;
  apiKeys: ApiKeyStore;
  jwt?: JwtVerifier;
  keySource?: KeySource;
  keysFile?: KeysFileReloader;
  /** This replica's own buckets (with `rateLimitStore: redis`, the fallback while Redis is unavailable). */
  rateLimiter: RateLimiter;
  /** What admits a principal: `rateLimiter` itself, or the buckets shared through Redis. */
  principalLimiter: PrincipalLimiter;
  /** Effective per-principal limit per tenant (undefined: unlimited); a config reload updates it in place. */
  tenantLimits: Map<string, RateLimit | undefined>;
  /** The tenant ids JWTs and the keys file may name; a config reload updates it in place. */
  tenantIds: Set<string>;
  /** The limit of a tenant without a `rateLimit` of its own. */
  defaultLimit?: RateLimit;
  anonymousLimit?: RateLimit;
  audit: boolean;
  /** RFC 9728 metadata, when `auth.oauth` is configured. */
  protectedResource?: ProtectedResource;
  stop(): void;
}

/** Builds and starts the auth layer; a broken keys file or JWKS file throws ConfigError. */
export function setUpAuth(input: AuthSetupInput): AuthRuntime {
  const { auth, logger } = input;
  const apiKeys = new ApiKeyStore(input.principals.map(recordOfEntry));
  const tenantIds = new Set(input.tenants.keys());
  const stops: (() => void)[] = [];
  try {
    let keysFile: KeysFileReloader | undefined;
    if (auth?.keysFile !== undefined) {
      keysFile = new KeysFileReloader({ file: resolve(input.configDir, auth.keysFile), store: apiKeys, logger, tenants: tenantIds, inline: input.principals });
      keysFile.start();
      stops.push(() => keysFile!.stop());
    }

    const verifiers: TokenVerifier[] = [];
    let jwt: JwtVerifier | undefined;
    let keySource: KeySource | undefined;
    if (auth?.jwt) {
      const cfg = auth.jwt;
      const onChange = (): void => jwt?.clearCache();
      if (cfg.jwksFile !== undefined) {
        keySource = new FileJwks({ file: resolve(input.configDir, cfg.jwksFile), logger, onChange });
      } else {
        const url = new URL(cfg.jwksUrl!);
        if (url.protocol === 'http:' && !['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname)) {
          logger.warn({ jwksUrl: `${url.protocol}//${url.host}${url.pathname}` }, 'JWKS is fetched over plain HTTP; use https outside a trusted network');
        }
        const t = { ...JWT_DEFAULTS.jwks, ...cfg.jwks };
        keySource = new RemoteJwks({ url, refreshMs: t.refreshSec * 1000, cooldownMs: t.cooldownSec * 1000, maxStaleMs: t.maxStaleSec * 1000, timeoutMs: t.timeoutMs, logger, onChange });
      }
      jwt = new JwtVerifier(jwtVerifierOptions(cfg, tenantIds, keySource, logger));
      keySource.start();
      const ks = keySource;
      stops.push(() => ks.stop());
      verifiers.push(jwt);
    }

    const fallback = resolveRateLimit(auth?.defaultRateLimit, DEFAULT_RATE_LIMIT);
    const tenantLimits = new Map<string, RateLimit | undefined>();
    for (const [id, setting] of input.tenants) tenantLimits.set(id, resolveRateLimit(setting, fallback));
    const rateLimiter = new RateLimiter({ tenants: tenantLimits });
    stops.push(() => rateLimiter.stop());
    let principalLimiter: PrincipalLimiter = rateLimiter;
    if (auth?.rateLimitStore === 'redis') {
      // The config loader refuses `redis` without a `redis` section; the host passes its connection.
      if (input.redis === undefined) throw new Error('auth.rateLimitStore is redis but no Redis connection was given');
      principalLimiter = new SharedRateLimiter({ connection: input.redis, local: rateLimiter, onFallback: input.onRateLimitFallback });
    }
    const anonymousLimit = resolveRateLimit(auth?.anonymousRateLimit, DEFAULT_ANONYMOUS_RATE_LIMIT);
    const audit = auth?.audit ?? true;
    const protectedResource = protectedResourceOf(auth);

    const authenticator = new HostAuthenticator(apiKeys, verifiers, {
      rateLimiter: principalLimiter,
      anonymousBucket: anonymousLimit === undefined ? undefined : new TokenBucket(anonymousLimit),
      audit,
      challenge: protectedResource?.challenge,
    });
    return {
      protectedResource,
      authenticator,
      apiKeys,
      jwt,
      keySource,
      keysFile,
      rateLimiter,
      principalLimiter,
      tenantLimits,
      tenantIds,
      defaultLimit: fallback,
      anonymousLimit,
      audit,
      stop: () => {
        for (const s of stops) s();
      },
    };
  } catch (err) {
    for (const s of stops) s();
    throw err;
  }
}
