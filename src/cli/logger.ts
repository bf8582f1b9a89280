// The serving process's logger: one JSON object per line for log collectors,
// or readable lines when a person watches a terminal. The level comes from
// `--log-level`, else `LOG_LEVEL`, else `info` (docs/config.md "Logging").
import pino, { type Level, type Logger } from 'pino';
import pretty from 'pino-pretty';
import { LOG_LEVELS } from './choices.js';

export function resolveLogLevel(flag: string | undefined, env: NodeJS.ProcessEnv): Level | 'silent' {
  const level = (flag ?? env.LOG_LEVEL ?? 'info').toLowerCase();
  if (!LOG_LEVELS.includes(level)) throw new Error(`unknown log level "${level}"; use one of ${LOG_LEVELS.join(', ')}`);
  return level as Level | 'silent';
}

/** `format` `auto` picks pretty lines for a terminal and JSON otherwise. */
export function createLogger(level: Level | 'silent', format: 'auto' | 'json' | 'pretty' = 'auto', isTty = process.stdout.isTTY === true): Logger {
  const prettyLines = format === 'pretty' || (format === 'auto' && isTty);
  // pino-pretty as an in-process stream, not a transport: no worker thread for the host to carry.
  return prettyLines ? pino({ level }, pretty({ colorize: isTty, sync: true, translateTime: 'SYS:HH:MM:ss.l' })) : pino({ level });
}
