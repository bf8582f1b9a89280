// What went wrong talking to the PostgreSQL event store, in the fixed reason
// set of log-health.ts (a metric label), and how the server is named in
// health and errors: host, port and database only. The connection URL holds
// the password, so no text from here may carry it: `scrubber` removes the
// password (and the whole URL) from any message before it is shown.
import { connectionUrlSecrets, SecretScrubber } from '../../util/scrub.js';
import type { AppendFailure, AppendFailureReason } from '../log-health.js';

/** Node's socket errors that mean the server is not there (or not answering). */
const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN', 'ENOENT']);

/** SQLSTATE (or socket error code) to reason. */
function reasonOf(code: string, message: string): AppendFailureReason {
  if (NETWORK_CODES.has(code)) return 'unreachable';
  if (code.startsWith('08') || code === '57P01' || code === '57P02' || code === '57P03' || code.startsWith('28') || code === '3D000') return 'unreachable';
  if (code === '53100') return 'disk_full';
  if (code === '25006') return 'read_only';
  if (code.startsWith('53') || code === '40P01' || code === '40001' || code === '55P03' || code === '57014') return 'busy';
  if (code.startsWith('58') || code === 'XX001' || code === 'XX002') return 'io_error';
  // node-postgres's own words for a connection that ended or never came.
  if (/connection terminated|timeout exceeded when trying to connect|connection (is )?closed|not queryable|client has encountered a connection error/i.test(message)) return 'unreachable';
  return 'other';
}

export function classifyPgFailure(err: unknown): AppendFailure {
  const rawCode = (err as { code?: unknown })?.code;
  const code = typeof rawCode === 'string' ? rawCode : 'UNKNOWN';
  const message = err instanceof Error ? err.message : String(err);
  return { reason: reasonOf(code, message), code, message };
}

/** `host:port/database` of a connection URL: what health and errors name. */
export function describeServer(url: string): string {
  try {
    const u = new URL(url);
    const host = u.hostname || new URLSearchParams(u.search).get('host') || 'localhost';
    return `${host}:${u.port || '5432'}${u.pathname || '/'}`;
  } catch {
    return 'postgres (unparsable URL)';
  }
}

/** A function that removes the URL, its password and its percent-decoded password from a text, in every form (util/scrub.ts). */
export function scrubber(url: string): (text: string) => string {
  const scrub = new SecretScrubber(connectionUrlSecrets(url));
  return (text) => scrub.text(text);
}
