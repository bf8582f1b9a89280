// One tool session (docs/contract.md "Tool sessions"): a `tools/call`, or a whole
// workflow run, bracketed by `tool.session.opened` and `tool.session.closed`,
// with an `agent.toolCalled` / `agent.toolReturned` pair for each call inside.
// The class makes the bracket hard to get wrong:
//
// - `open` makes `tool.session.opened` before any call event can exist;
// - `close` first returns every call still outstanding (status `cancelled`),
//   then makes `tool.session.closed`, so every toolCalled has its
//   toolReturned and both come before the close;
// - a second `close` is a no-op, and so is a late `returned` for a call that
//   close already returned (a cancellation racing the call's own end);
// - a call after close, or `returned` for a callId this session never issued
//   or with another toolId, is a programming error and throws.
//
// Events are buffered and written by `commit`, all of them as one append, so
// a call costs two commits, each shared with concurrent calls by the store's
// group commit (log.ts): the write-ahead record (opened + toolCalled),
// committed before the tool runs (`commit({ writeAhead: true })`: no call
// runs unrecorded, and a log that refuses it refuses the call), and the
// answer record (toolReturned + closed), committed before the answer goes
// out. A commit the log refused (a storage fault, see log-health.ts) keeps
// its events buffered, in order, and the next commit stores them: a call
// whose toolReturned was refused is recorded with the status it ended with,
// not `cancelled`: the call did end, only its record was late.
//
// Every payload is content-free: sessionId, toolId, callId, status, outcome
// and durationMs. There is no parameter through which arguments or results
// could reach the log (and the log refuses any other payload key).
import { randomUUID } from 'node:crypto';
import { timeOrderedId } from './time-ordered-id.js';
import type { AppendInput, ReturnStatus, SessionOutcome, ToolEventType } from './event-types.js';
import type { AppendOptions, EventStore } from './store.js';

/** Whole milliseconds, never negative; NaN or infinities count as 0. */
function cleanDuration(ms: number): number {
  return Number.isFinite(ms) && ms > 0 ? Math.round(ms) : 0;
}

export class ToolSession {
  readonly sessionId: string;
  /** Calls made and not yet returned: their toolId and when they started. */
  private readonly calls = new Map<string, { toolId: string; startedAt: number }>();
  /** Calls that have returned: a late `returned` for one of them is ignored. */
  private readonly finished = new Set<string>();
  private closedWith: SessionOutcome | undefined;
  /** Events made since the last commit began, in order. */
  private buffer: AppendInput[] = [];
  /** Events of refused commits, oldest first: the next commit writes them ahead of its own. */
  private refused: AppendInput[] = [];
  /** The last commit started: each runs after the one before. */
  private committing: Promise<unknown> = Promise.resolve();
  private stored = false;

  private constructor(
    private readonly log: EventStore,
    private readonly who: { tenant: string; principal: string },
    readonly toolId: string,
  ) {
    this.sessionId = timeOrderedId();
  }

  /** Starts a session for `toolId` (the tool the agent called), with `tool.session.opened` buffered (and the provider profile its arguments came in, if any). */
  static open(log: EventStore, who: { tenant: string; principal: string }, toolId: string, profile?: string): ToolSession {
    const session = new ToolSession(log, { tenant: who.tenant, principal: who.principal }, toolId);
    session.add('tool.session.opened', profile === undefined ? { sessionId: session.sessionId, toolId } : { sessionId: session.sessionId, toolId, profile });
    return session;
  }

  /** The outcome the session was closed with, or undefined while open. */
  get outcome(): SessionOutcome | undefined {
    return this.closedWith;
  }

  /** Whether any of this session's events are in the log. */
  get recorded(): boolean {
    return this.stored;
  }

  /** Buffers `agent.toolCalled {sessionId, toolId, callId}`; returns the new callId. */
  called(toolId: string): string {
    if (this.closedWith !== undefined) throw new Error(`tool session ${this.sessionId} is closed`);
    const callId = randomUUID();
    this.add('agent.toolCalled', { sessionId: this.sessionId, toolId, callId });
    this.calls.set(callId, { toolId, startedAt: performance.now() });
    return callId;
  }

  /** Buffers `agent.toolReturned {sessionId, toolId, callId, status, durationMs}` for a call from `called`. */
  returned(callId: string, toolId: string, status: ReturnStatus, durationMs: number): void {
    const call = this.calls.get(callId);
    if (call === undefined) {
      if (this.finished.has(callId)) return; // already returned, or returned by close
      throw new Error(`tool session ${this.sessionId} issued no call ${callId}`);
    }
    if (call.toolId !== toolId) throw new Error(`call ${callId} was made to ${call.toolId}, not ${toolId}`);
    this.add('agent.toolReturned', { sessionId: this.sessionId, toolId, callId, status, durationMs: cleanDuration(durationMs) });
    this.calls.delete(callId);
    this.finished.add(callId);
  }

  /** Returns any outstanding call as `cancelled`, then buffers `tool.session.closed`. A second close does nothing. */
  close(outcome: SessionOutcome): void {
    if (this.closedWith !== undefined) return;
    for (const [callId, call] of [...this.calls]) this.returned(callId, call.toolId, 'cancelled', performance.now() - call.startedAt);
    this.add('tool.session.closed', { sessionId: this.sessionId, toolId: this.toolId, outcome });
    this.closedWith = outcome;
  }

  /**
   * Writes every event made so far, and any a refused commit left, as one
   * append; resolves once it is committed. Commits run one after another, so
   * events reach the log in the order they were made. Rejects as the log does
   * (EventLogUnavailableError); the events are kept then, and the next
   * commit stores them ahead of its own.
   */
  commit(options?: AppendOptions): Promise<void> {
    const made = this.buffer;
    this.buffer = [];
    const run = this.committing.then(
      () => this.write(made, options),
      () => this.write(made, options),
    );
    this.committing = run;
    return run;
  }

  /** Closes the session and commits: the answer record. */
  finish(outcome: SessionOutcome): Promise<void> {
    this.close(outcome);
    return this.commit();
  }

  private async write(made: AppendInput[], options: AppendOptions | undefined): Promise<void> {
    const events = this.refused.length > 0 ? [...this.refused, ...made] : made;
    this.refused = [];
    if (events.length === 0) return;
    try {
      await this.log.append(events, options);
      this.stored = true;
    } catch (err) {
      this.refused = events;
      throw err;
    }
  }

  private add(type: ToolEventType, payload: Record<string, string | number>): void {
    this.buffer.push({ type, tenant: this.who.tenant, principal: this.who.principal, sessionId: this.sessionId, payload });
  }
}
