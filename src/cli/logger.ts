// The serving process's logger: one JSON object per line for log collectors,
// or readable lines when a person watches a terminal. The level comes from
// `--log-level`, else `LOG_LEVEL`, else `info` (docs/config.md "Logging").
//
// JSON lines are written asynchronously and in batches (docs/deploy.md
// "Logging"): with the audit line on, every request logs, and a synchronous
// write(2) per line was a large share of a small answer's cost. Whatever is
// buffered is written out on a clean stop (`closeLogger`) and, synchronously,
// on any exit that still runs JavaScript; a SIGKILL loses it.
import pino, { type DestinationStream, type Level, type Logger } from 'pino';
import pretty from 'pino-pretty';
import { LOG_LEVELS } from './choices.js';

export function resolveLogLevel(flag: string | undefined, env: NodeJS.ProcessEnv): Level | 'silent' {
  const level = (flag ?? env.LOG_LEVEL ?? 'info').toLowerCase();
  if (!LOG_LEVELS.includes(level)) throw new Error(`unknown log level "${level}"; use one of ${LOG_LEVELS.join(', ')}`);
  return level as Level | 'silent';
}

/** Lines are held until this many bytes are buffered, or until the next tick of the flush timer. */
export const LOG_BATCH_BYTES = 4096;
/** The longest a line waits in the buffer when traffic is low. */
export const LOG_FLUSH_INTERVAL_MS = 200;
/**
 * Beyond this many buffered bytes (the log's reader has stopped reading),
 * new lines are dropped rather than held without bound, and the drop is said
 * once on stderr.
 */
export const LOG_MAX_BUFFERED_BYTES = 16 * 2 ** 20;

type BufferedDestination = DestinationStream & { flush(cb?: (err?: Error) => void): void; on(event: string, listener: () => void): unknown };

const destinations = new WeakMap<Logger, { stream: BufferedDestination; timer: NodeJS.Timeout }>();

/**
 * A buffered, asynchronous destination for JSON lines: file descriptor 1
 * (standard output) or a file path. The flush timer does not keep the process alive.
 */
function bufferedDestination(dest: number | string): { stream: BufferedDestination; timer: NodeJS.Timeout } {
  const stream = pino.destination({ dest, sync: false, minLength: LOG_BATCH_BYTES, maxLength: LOG_MAX_BUFFERED_BYTES }) as unknown as BufferedDestination;
  let dropSaid = false;
  stream.on('drop', () => {
    if (dropSaid) return;
    dropSaid = true;
    process.stderr.write(`toolhost: log lines dropped: more than ${LOG_MAX_BUFFERED_BYTES} bytes waiting for the log's reader\n`);
  });
  const timer = setInterval(() => {
    try {
      stream.flush();
    } catch {
      // Not open yet or already closed: the next tick or closeLogger writes it.
    }
  }, LOG_FLUSH_INTERVAL_MS);
  timer.unref();
  return { stream, timer };
}

/**
 * `format` `auto` picks pretty lines for a terminal and JSON otherwise.
 * `dest`: where JSON lines go (standard output unless a path is given).
 */
export function createLogger(level: Level | 'silent', format: 'auto' | 'json' | 'pretty' = 'auto', isTty = process.stdout.isTTY === true, dest: number | string = 1): Logger {
  const prettyLines = format === 'pretty' || (format === 'auto' && isTty);
  // pino-pretty as an in-process stream, not a transport: no worker thread for the host to carry.
  // Readable lines are for a person at a terminal: written at once, not batched.
  if (prettyLines) return pino({ level }, pretty({ colorize: isTty, sync: true, translateTime: 'SYS:HH:MM:ss.l' }));
  const buffered = bufferedDestination(dest);
  const logger = pino({ level }, buffered.stream);
  destinations.set(logger, buffered);
  return logger;
}

/** Writes out every buffered line and stops the flush timer; resolves when the lines are written. */
export function closeLogger(logger: Logger): Promise<void> {
  const buffered = destinations.get(logger);
  if (buffered === undefined) return Promise.resolve();
  clearInterval(buffered.timer);
  return new Promise((resolve) => {
    try {
      buffered.stream.flush(() => resolve());
    } catch {
      resolve();
    }
  });
}
