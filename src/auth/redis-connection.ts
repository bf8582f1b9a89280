// The Redis (or Valkey) server that replicas of one deployment share
// (docs/deploy.md "Redis", docs/config.md "redis"): the `redis:` config
// section and the one connection a host keeps to it. Its users (the shared
// rate-limit buckets, docs/auth.md) never wait for it: while it is not
// answering, or answers later than `commandTimeoutMs`, its state is
// `unavailable` and they fall back to what the replica can do alone; the
// connection reconnects by itself and probes until Redis answers in time
// again. The URL (which may hold a password) comes from an env variable or
// a file and is never logged or reported: health carries the state, the
// time it began and a scrubbed error text. The `ioredis` driver is loaded
// when the first connection is made, not with the config's schema: a host
// with no `redis:` never loads it.
import { createRequire } from 'node:module';
import { Type, type Static } from '@sinclair/typebox';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { CLOSED } from '../util/schema-builders.js';
import { connectionUrlSecrets, SecretScrubber } from '../util/scrub.js';
import { secretRefSchema } from '../util/secret-ref.js';

export const REDIS_DEFAULTS = { keyPrefix: 'toolhost:', commandTimeoutMs: 250, connectTimeoutMs: 2000, probeIntervalMs: 1000 } as const;

export const redisConfigSchema = Type.Object(
  {
    /** `redis://[:password@]host:port[/db]` or `rediss://` (TLS), read from an env variable or a file: it may hold a password. */
    url: secretRefSchema,
    /** Prefix of every key and channel the host uses, so deployments can share one Redis (default `toolhost:`). */
    keyPrefix: Type.Optional(Type.String({ minLength: 1, maxLength: 64, pattern: '^[\\x21-\\x7e]+$' })),
    /** How long a request waits for Redis before it is answered without it (default 5 ms). */
    commandTimeoutMs: Type.Optional(Type.Integer({ minimum: 1, maximum: 10_000 })),
    /** How long one connection attempt may take (default 2000 ms). */
    connectTimeoutMs: Type.Optional(Type.Integer({ minimum: 10, maximum: 60_000 })),
  },
  CLOSED,
);
export type RedisConfig = Static<typeof redisConfigSchema>;

export type RedisState = 'connecting' | 'connected' | 'unavailable';

/** What `/readyz` and `/health/sources` say about Redis. */
export interface RedisHealth {
  state: RedisState;
  /** When this state began (ISO 8601). */
  since: string;
  /** Why Redis is not usable, without the URL or its password. */
  error?: string;
}

export interface RedisConnectionOptions {
  /** The resolved URL (never logged). */
  url: string;
  keyPrefix?: string;
  commandTimeoutMs?: number;
  connectTimeoutMs?: number;
  /** How often an unavailable connection that is up is probed (PING within the command timeout). */
  probeIntervalMs?: number;
  logger: Logger;
}

const MAX_ERROR_CHARS = 200;

/** Error text safe to report: no form of the URL's password and user appears (util/scrub.ts), and it is bounded. */
export function scrubbedError(err: unknown, url: string): string {
  const text = new SecretScrubber(connectionUrlSecrets(url)).text(err instanceof Error ? err.message : String(err));
  return text.length > MAX_ERROR_CHARS ? `${text.slice(0, MAX_ERROR_CHARS)}…` : text;
}

const requireDriver = createRequire(import.meta.url);
const redisDriver = (): typeof Redis => (requireDriver('ioredis') as typeof import('ioredis')).Redis;

export class RedisConnection {
  readonly client: Redis;
  readonly keyPrefix: string;
  readonly commandTimeoutMs: number;
  private state: RedisState = 'connecting';
  private since = new Date();
  private error: string | undefined;
  private probing = false;
  private stopped = false;
  private readonly probeTimer: NodeJS.Timeout;
  private readonly listeners = new Set<(health: RedisHealth) => void>();
  private readonly url: string;
  private readonly logger: Logger;

  constructor(options: RedisConnectionOptions) {
    this.url = options.url;
    this.logger = options.logger;
    this.keyPrefix = options.keyPrefix ?? REDIS_DEFAULTS.keyPrefix;
    this.commandTimeoutMs = options.commandTimeoutMs ?? REDIS_DEFAULTS.commandTimeoutMs;
    this.client = new (redisDriver())(options.url, {
      // A command while disconnected fails at once instead of queueing: its caller falls back.
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      commandTimeout: this.commandTimeoutMs,
      connectTimeout: options.connectTimeoutMs ?? REDIS_DEFAULTS.connectTimeoutMs,
      // Commands issued in the same tick by concurrent requests go out as one write.
      enableAutoPipelining: true,
      retryStrategy: (times) => Math.min(50 * times, 1000),
      lazyConnect: false,
    });
    this.client.on('ready', () => this.probe());
    this.client.on('error', (err) => this.failed(err));
    this.client.on('close', () => this.failed(new Error('connection closed')));
    const probeIntervalMs = options.probeIntervalMs ?? REDIS_DEFAULTS.probeIntervalMs;
    this.probeTimer = setInterval(() => {
      if (this.state !== 'connected' && this.client.status === 'ready') this.probe();
    }, probeIntervalMs);
    this.probeTimer.unref();
  }

  /** True while commands are worth sending; false means answer without Redis. */
  get usable(): boolean {
    return this.state === 'connected';
  }

  health(): RedisHealth {
    return { state: this.state, since: this.since.toISOString(), ...(this.error === undefined ? {} : { error: this.error }) };
  }

  /** Called on every change of state (metrics); returns the unsubscribe. */
  onChange(listener: (health: RedisHealth) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** A command failed or timed out: stop using Redis until a probe answers in time. */
  failed(err: unknown): void {
    if (this.stopped) return;
    this.enter('unavailable', scrubbedError(err, this.url));
  }

  /** Waits until the connection is usable (start-up, tests); false after `timeoutMs`. */
  async whenUsable(timeoutMs: number): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    while (!this.usable && Date.now() < deadline && !this.stopped) await new Promise((r) => setTimeout(r, 10));
    return this.usable;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.probeTimer);
    this.listeners.clear();
    this.client.disconnect();
  }

  private probe(): void {
    if (this.probing || this.stopped) return;
    this.probing = true;
    this.client
      .ping()
      .then(
        () => this.enter('connected', undefined),
        (err: unknown) => this.failed(err),
      )
      .finally(() => (this.probing = false));
  }

  private enter(state: RedisState, error: string | undefined): void {
    if (this.stopped) return;
    if (state === this.state) {
      // The first error of an outage is the one reported; later ones (each reconnect attempt) change nothing.
      return;
    }
    this.state = state;
    this.since = new Date();
    this.error = error;
    // Once per transition, never per failed request or reconnect attempt.
    if (state === 'connected') this.logger.info({ redis: this.health() }, 'Redis is answering: state is shared with the other replicas');
    else this.logger.warn({ redis: this.health() }, 'Redis is unavailable: this replica answers alone (local rate-limit buckets) until it is back');
    const health = this.health();
    for (const listener of this.listeners) listener(health);
  }
}
