// The audit trail (docs/auth.md "Audit"): one structured line per request
// that reached authentication (principal id, tenant, credential kind, route
// pattern, status, duration), and one per refused attempt with its reason;
// never the credential, never the raw URL.
//
// A line is queued when its answer is written and the queue goes to the
// logger once per turn of the event loop (setImmediate: the same turn's check
// phase, before the next poll for sockets). Under load a turn answers many
// requests, and their lines are then formatted back to back instead of
// between answers: measured 0 to 2.4 µs less server CPU per small answer
// (about 5 % at most; docs/benchmarks.md "Small answers, fourth round"), no
// change for a lone client. The line's content is read when it is queued, so
// what it says is what the request was; only pino's `time` is taken when the
// turn writes it, microseconds later. flush() writes what is still queued
// (the app's close).
import type { Logger } from 'pino';
import type { Principal } from '../auth/principal.js';

/** What an audit line reads of a request: FastifyRequest, or the catalog's fast path's own record. */
export interface AuditedRequest {
  readonly method: string;
  readonly principal: Principal | null;
  readonly authFailure: string | null;
}

const round3 = (ms: number): number => Math.round(ms * 1000) / 1000;

/** Fields per queued line, in `queue`: principal, failure reason, method, route, status, duration. */
const FIELDS = 6;

export class AuditLines {
  private readonly logger: Logger;
  /** Queued lines, flat (FIELDS values each): queuing one makes no object. */
  private queue: unknown[] = [];
  private scheduled = false;
  private readonly drain = (): void => this.flush();

  constructor(logger: Logger) {
    // `audit: true` is serialized once, in the child's bindings.
    this.logger = logger.child({ audit: true });
  }

  /** Queues the line of one answered request (nothing for a request that never reached authentication). */
  write(route: string, request: AuditedRequest, status: number, elapsedMs: number): void {
    const principal = request.principal;
    if (principal === null && request.authFailure === null) return;
    this.queue.push(principal, request.authFailure, request.method, route, status, round3(elapsedMs));
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(this.drain);
  }

  /** Hands every queued line to the logger, in order. */
  flush(): void {
    this.scheduled = false;
    const lines = this.queue;
    if (lines.length === 0) return;
    this.queue = [];
    for (let i = 0; i < lines.length; i += FIELDS) {
      const p = lines[i] as Principal | null;
      const method = lines[i + 2] as string;
      const route = lines[i + 3] as string;
      const status = lines[i + 4] as number;
      const durationMs = lines[i + 5] as number;
      if (p !== null) {
        this.logger.info({ principal: p.id, tenant: p.tenant, kind: p.kind, method, route, status, durationMs }, 'request');
      } else {
        this.logger.info({ principal: null, method, route, status, durationMs, reason: lines[i + 1] as string }, 'request refused');
      }
    }
  }
}
