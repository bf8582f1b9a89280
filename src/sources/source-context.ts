// What the host hands every source adapter: a logger, the metrics, tracing,
// and the directory that relative paths in the config are resolved against.
import type { Logger } from 'pino';
import type { HostMetrics } from '../observability/metrics.js';
import type { Tracing } from '../observability/tracing.js';

export interface SourceContext {
  logger: Logger;
  metrics: HostMetrics;
  /** Directory of the config file; relative paths in source options resolve against it. */
  configDir: string;
  /** Environment used for `${VAR}` references and secret lookups (process.env by default). */
  env: NodeJS.ProcessEnv;
  /** Puts `traceparent` on the requests a source makes upstream (absent: none). */
  tracing?: Tracing;
  /**
   * False: a source redoes its work on every read instead of reusing what
   * it read before (the MCP stdio page cache). Config `catalog.reuse`; absent: true.
   */
  reuse?: boolean;
}
