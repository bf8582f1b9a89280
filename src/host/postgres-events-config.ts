// From `events.postgres` in the config to the options of the PostgreSQL event
// store (docs/config.md "events.postgres", docs/deploy.md). The connection URL
// carries the database password, so the config file may only refer to it: the
// whole URL by `${VAR}`, `{ env }` or `{ file }`, or a URL whose password part
// is a `${VAR}`. A password written into the file is refused at start, and
// errors name the variable or file, never a value.
import type { Logger } from 'pino';
import type { EventsConfig } from '../config/schema.js';
import { describeServer } from '../events/postgres/errors.js';
import { PostgresEventStore, type PostgresEventStoreOptions } from '../events/postgres/store.js';
import type { EventLogMetrics } from '../observability/metrics.js';
import { envRefNames, resolveEnvRefs } from '../util/env-refs.js';
import { readSecretRef, SecretRefError } from '../util/secret-ref.js';
import { ConfigError } from '../util/validated-yaml.js';
import { createEventLogMonitor } from './event-log-monitor.js';

const USERINFO = /^[a-z][a-z0-9+.-]*:\/\/([^/?#]*)@/i;
const ONE_REF = /^\$\{[A-Za-z_][A-Za-z0-9_]*\}$/;

export class PostgresUrlError extends Error {}

/** Refuses a URL text whose password (userinfo or `password=` parameter) is written out rather than referred to. */
export function checkNoLiteralPassword(text: string): void {
  const userinfo = USERINFO.exec(text)?.[1];
  const colon = userinfo?.indexOf(':') ?? -1;
  const password = userinfo !== undefined && colon >= 0 ? userinfo.slice(colon + 1) : undefined;
  const query = /[?&]password=([^&#]*)/i.exec(text)?.[1];
  for (const value of [password, query]) {
    if (value !== undefined && value !== '' && !ONE_REF.test(value)) {
      throw new PostgresUrlError('events.postgres.url: the password is written in the config file; refer to it instead (`${PGPASSWORD}` in its place, or the whole URL as `${DATABASE_URL}`, `{ env: NAME }` or `{ file: path }`)');
    }
  }
}

/** The resolved URL (a secret: never log it). */
export function resolvePostgresUrl(url: NonNullable<EventsConfig['postgres']>['url'], env: NodeJS.ProcessEnv, configDir: string): string {
  if (typeof url !== 'string') return readSecretRef(url, { env, configDir }, 'events.postgres.url');
  checkNoLiteralPassword(url);
  for (const name of envRefNames(url)) {
    if (env[name] === undefined || env[name] === '') throw new PostgresUrlError(`events.postgres.url: environment variable ${name} is not set`);
  }
  return resolveEnvRefs(url, env);
}

export function postgresStoreOptions(events: EventsConfig, env: NodeJS.ProcessEnv, configDir: string): PostgresEventStoreOptions {
  const pg = events.postgres!;
  return {
    url: resolvePostgresUrl(pg.url, env, configDir),
    poolSize: pg.poolSize,
    channel: pg.channel,
    pollIntervalMs: pg.pollIntervalMs,
    connectTimeoutMs: pg.connectTimeoutMs,
    retentionDays: events.retentionDays,
    maxEvents: events.maxEvents,
  };
}

export interface OpenPostgresContext {
  env: NodeJS.ProcessEnv;
  configDir: string;
  logger: Logger;
  metrics: EventLogMetrics | undefined;
  /** Registers a stop with the host's started parts (run newest first on a failed start or a stop). */
  onStop: (stop: () => unknown) => void;
}

/** Opens the PostgreSQL event store the config names (migrating it if needed), with the host's fault monitor on it. */
export async function openPostgresEvents(events: EventsConfig, ctx: OpenPostgresContext): Promise<PostgresEventStore> {
  let options: PostgresEventStoreOptions;
  try {
    options = postgresStoreOptions(events, ctx.env, ctx.configDir);
  } catch (err) {
    if (err instanceof PostgresUrlError || err instanceof SecretRefError) throw new ConfigError([err.message]);
    throw err;
  }
  // Logs and metrics name the server (host:port/database), never the URL.
  const label = `postgres://${describeServer(options.url)}`;
  const monitor = createEventLogMonitor(ctx.logger, ctx.metrics, label);
  ctx.onStop(() => monitor.stop());
  const store = await PostgresEventStore.open({ ...options, onAppendFailure: monitor.onAppendFailure, onHealthChange: monitor.onHealthChange });
  ctx.onStop(() => store.close());
  ctx.metrics?.writable.set(1);
  ctx.logger.info({ eventLog: label, logId: store.logId }, 'event store open (PostgreSQL)');
  return store;
}
