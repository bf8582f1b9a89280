// What the host hands every source adapter: a logger, the metrics, and the
// directory that relative paths in the config are resolved against.
import type { Logger } from 'pino';
import type { HostMetrics } from '../observability/metrics.js';

export interface SourceContext {
  logger: Logger;
  metrics: HostMetrics;
  /** Directory of the config file; relative paths in source options resolve against it. */
  configDir: string;
  /** Environment used for `${VAR}` references and secret lookups (process.env by default). */
  env: NodeJS.ProcessEnv;
}
