// Per-principal rate-limit buckets shared by every replica through Redis
// (docs/auth.md "Shared rate limits", `auth.rateLimitStore: redis`): a
// caller spreading its requests over N replicas still gets one bucket, not
// N. One round trip per request: a Lua script (EVALSHA) refills, takes and
// stores the bucket atomically, with the same arithmetic as the local
// TokenBucket, and sets an expiry at the moment the bucket would be full
// again, so idle buckets vanish without a sweep. The answer is read by the
// same rule as the local one (retryAfterSeconds). While Redis is
// unavailable or slower than its timeout, the replica answers from its own
// local buckets at once: it keeps serving, with per-replica limits.
import type { RedisConnection } from './redis-connection.js';
import { retryAfterSeconds, type RateLimit, type RateLimiter } from './rate-limit.js';
import type { Principal } from './principal.js';

/**
 * KEYS[1]: the bucket. ARGV: requestsPerSecond, burst, now in ms ('' for
 * Redis's own clock, the one every replica then agrees on). Returns
 * { 1 | 0 (admitted or not), tokens left }. Numbers are stored and returned
 * with 17 significant digits, so a bucket round-trips exactly and refills as
 * the local TokenBucket does, operation for operation. The expiry is when the
 * bucket is full again: forgetting it then changes nothing (capped at 30 days).
 */
export const TAKE_SCRIPT = `
local rate = tonumber(ARGV[1])
local burst = tonumber(ARGV[2])
local now
if ARGV[3] == '' then
  local t = redis.call('TIME')
  now = tonumber(t[1]) * 1000 + tonumber(t[2]) / 1000
else
  now = tonumber(ARGV[3])
end
local perMs = rate / 1000
local state = redis.call('HMGET', KEYS[1], 't', 'l')
local tokens = burst
local last = now
if state[1] then
  tokens = tonumber(state[1])
  last = tonumber(state[2])
end
tokens = tokens + (now - last) * perMs
if tokens > burst then tokens = burst end
local admitted = 0
if tokens >= 1 then
  tokens = tokens - 1
  admitted = 1
end
local text = string.format('%.17g', tokens)
redis.call('HSET', KEYS[1], 't', text, 'l', string.format('%.17g', now))
local ttl = math.ceil((burst - tokens) / perMs) + 1000
if ttl > 2592000000 then ttl = 2592000000 end
redis.call('PEXPIRE', KEYS[1], string.format('%.0f', ttl))
return { admitted, text }
`;

type TakeCommand = (key: string, requestsPerSecond: string, burst: string, now: string) => Promise<[number, string]>;

/** The script as an ioredis command: EVALSHA, and EVAL once when Redis does not know the script yet (a restart). */
export function takeCommandOf(connection: RedisConnection): TakeCommand {
  const client = connection.client as unknown as Record<string, unknown>;
  if (typeof client.toolhostTakeToken !== 'function') connection.client.defineCommand('toolhostTakeToken', { numberOfKeys: 1, lua: TAKE_SCRIPT });
  const command = client.toolhostTakeToken as TakeCommand;
  return command.bind(connection.client);
}

/** Reads the script's answer by the local buckets' rule: 0 admitted, else whole seconds to wait. */
export function answerOf(reply: [number, string], limit: RateLimit): number {
  return reply[0] === 1 ? 0 : retryAfterSeconds(Number(reply[1]), limit);
}

export interface SharedRateLimiterOptions {
  connection: RedisConnection;
  /** The replica's own buckets: the limits per tenant, and the answer while Redis is unavailable. */
  local: RateLimiter;
  /** One request answered from the local buckets because Redis was unavailable or too slow. */
  onFallback?: () => void;
}

export class SharedRateLimiter {
  private readonly connection: RedisConnection;
  private readonly local: RateLimiter;
  private readonly take_: TakeCommand;
  private readonly onFallback: () => void;
  private readonly prefix: string;
  /** Per-tenant limit as the script's arguments, formatted once. */
  private readonly argsByTenant = new Map<string, [string, string]>();

  constructor(options: SharedRateLimiterOptions) {
    this.connection = options.connection;
    this.local = options.local;
    this.take_ = takeCommandOf(options.connection);
    this.onFallback = options.onFallback ?? (() => undefined);
    this.prefix = `${options.connection.keyPrefix}rl:`;
  }

  /** 0: admitted; otherwise seconds to wait. Synchronous when no round trip is made (no limit, or Redis unavailable). */
  take(principal: Principal): number | Promise<number> {
    const limit = this.local.limitOf(principal.tenant);
    if (limit === undefined) return 0;
    if (!this.connection.usable) return this.fallback(principal);
    let args = this.argsByTenant.get(principal.tenant);
    if (args === undefined) this.argsByTenant.set(principal.tenant, (args = [String(limit.requestsPerSecond), String(limit.burst)]));
    return this.take_(this.prefix + principal.key, args[0], args[1], '').then(
      (reply) => answerOf(reply, limit),
      (err: unknown) => {
        this.connection.failed(err);
        return this.fallback(principal);
      },
    );
  }

  private fallback(principal: Principal): number {
    this.onFallback();
    return this.local.take(principal);
  }
}
