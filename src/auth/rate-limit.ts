// Per-principal rate limits (token buckets) and the global bound on requests
// that carry no credential (docs/auth.md "Rate limits"). O(1) per request: one
// map lookup and a little arithmetic on a bucket mutated in place. Memory is
// bounded: a bucket that has refilled completely is indistinguishable from a
// new one and is dropped by the periodic sweep; past `maxBuckets` the oldest
// bucket gives way.
import { Type, type Static } from '@sinclair/typebox';
import type { Principal } from './principal.js';

const RATE_LIMIT_PROPERTIES = {
  /** Sustained rate, tokens added per second. */
  requestsPerSecond: Type.Number({ exclusiveMinimum: 0, maximum: 1_000_000 }),
  /** Bucket size: how many requests may arrive at once after a quiet spell. */
  burst: Type.Integer({ minimum: 1, maximum: 10_000_000 }),
};

const rateLimitObjectSchema = Type.Object(RATE_LIMIT_PROPERTIES);
export type RateLimit = Static<typeof rateLimitObjectSchema>;

/**
 * JSON Schema of a rate-limit setting: `true` (the default limit), `false` (no
 * limit) or `{ requestsPerSecond, burst }`. One schema of two types rather
 * than a union, so a wrong value is one error line.
 */
export const rateLimitSchema = Type.Unsafe<boolean | RateLimit>({
  type: ['boolean', 'object'],
  additionalProperties: false,
  required: rateLimitObjectSchema.required,
  properties: RATE_LIMIT_PROPERTIES,
});
export type RateLimitSetting = Static<typeof rateLimitSchema>;

/** Built-in per-principal limit when neither the tenant nor `auth.defaultRateLimit` says otherwise. */
export const DEFAULT_RATE_LIMIT: RateLimit = { requestsPerSecond: 50, burst: 100 };
/** Built-in global bound on discovery, metrics and unrouted requests (probes take from no bucket). */
export const DEFAULT_ANONYMOUS_RATE_LIMIT: RateLimit = { requestsPerSecond: 1000, burst: 2000 };
export const DEFAULT_MAX_BUCKETS = 100_000;

/** Resolves a setting against a default; undefined means "no limit". */
export function resolveRateLimit(setting: RateLimitSetting | undefined, fallback: RateLimit | undefined): RateLimit | undefined {
  if (setting === undefined || setting === true) return fallback;
  if (setting === false) return undefined;
  return setting;
}

/**
 * Whole seconds (at least 1) until a bucket holding `tokens` (< 1) has one
 * again: the `Retry-After` of a refusal. The one rule both bucket stores
 * answer by, the local one here and the shared one in Redis
 * (redis-rate-limit.ts, whose script does the same refill arithmetic).
 */
export function retryAfterSeconds(tokens: number, limit: RateLimit): number {
  const seconds = Math.ceil((1 - tokens) / limit.requestsPerSecond);
  return seconds < 1 ? 1 : seconds;
}

/** Milliseconds on a monotonic clock. */
const nowMs = (): number => performance.now();

/** One token bucket. `take` returns 0 when a token was taken, else whole seconds (>= 1) until one is available. */
export class TokenBucket {
  private tokens: number;
  private readonly perMs: number;
  constructor(
    readonly limit: RateLimit,
    public last = nowMs(),
  ) {
    this.tokens = limit.burst;
    this.perMs = limit.requestsPerSecond / 1000;
  }

  take(now = nowMs()): number {
    let tokens = this.tokens + (now - this.last) * this.perMs;
    if (tokens > this.limit.burst) tokens = this.limit.burst;
    this.last = now;
    if (tokens >= 1) {
      this.tokens = tokens - 1;
      return 0;
    }
    this.tokens = tokens;
    return retryAfterSeconds(tokens, this.limit);
  }

  /** True when the bucket would be full at `now`: forgetting it changes nothing. */
  idle(now: number): boolean {
    return this.tokens + (now - this.last) * this.perMs >= this.limit.burst;
  }
}

export interface RateLimiterOptions {
  /** Per-tenant limit; a tenant absent from the map (or mapped to undefined) is not limited. */
  tenants: ReadonlyMap<string, RateLimit | undefined>;
  maxBuckets?: number;
  /** How often idle buckets are swept (ms); 0 disables the timer. */
  sweepIntervalMs?: number;
}

/** Token buckets per principal, with per-tenant limits. */
export class RateLimiter {
  private readonly buckets = new Map<string, TokenBucket>();
  private readonly tenants: ReadonlyMap<string, RateLimit | undefined>;
  private readonly maxBuckets: number;
  private readonly timer: NodeJS.Timeout | undefined;
  private lastFullSweep = -Infinity;
  private readonly sweepIntervalMs: number;

  constructor(options: RateLimiterOptions) {
    this.tenants = options.tenants;
    this.maxBuckets = options.maxBuckets ?? DEFAULT_MAX_BUCKETS;
    this.sweepIntervalMs = options.sweepIntervalMs ?? 60_000;
    if (this.sweepIntervalMs > 0) {
      this.timer = setInterval(() => this.sweep(), this.sweepIntervalMs);
      this.timer.unref();
    }
  }

  /** The limit of a tenant's principals; undefined: not limited. */
  limitOf(tenant: string): RateLimit | undefined {
    return this.tenants.get(tenant);
  }

  /** 0: admitted; otherwise seconds until the principal may retry. */
  take(principal: Principal): number {
    const limit = this.tenants.get(principal.tenant);
    if (limit === undefined) return 0;
    // One bucket per identity (kind, tenant, id), whatever store holds it.
    const key = principal.key;
    const now = nowMs();
    let bucket = this.buckets.get(key);
    // A bucket made under another limit (the tenant's limit changed by a config reload) starts over under the new one.
    if (bucket === undefined || bucket.limit !== limit) {
      if (this.buckets.size >= this.maxBuckets) this.makeRoom(now);
      bucket = new TokenBucket(limit, now);
      this.buckets.set(key, bucket);
    }
    return bucket.take(now);
  }

  get size(): number {
    return this.buckets.size;
  }

  /** Drops every bucket that has refilled completely. */
  sweep(now = nowMs()): number {
    let dropped = 0;
    for (const [key, bucket] of this.buckets) {
      if (bucket.idle(now)) {
        this.buckets.delete(key);
        dropped++;
      }
    }
    return dropped;
  }

  /** At the cap: sweep (at most once per sweep interval), else evict the oldest bucket. */
  private makeRoom(now: number): void {
    if (now - this.lastFullSweep >= Math.max(this.sweepIntervalMs, 1000)) {
      this.lastFullSweep = now;
      if (this.sweep(now) > 0) return;
    }
    const oldest = this.buckets.keys().next();
    if (!oldest.done) this.buckets.delete(oldest.value);
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
  }
}
