// One tool session (CONTRACT.md "Tool sessions"): a `tools/call`, or a whole
// workflow run, bracketed by `tool.session.opened` and `tool.session.closed`,
// with an `agent.toolCalled` / `agent.toolReturned` pair for each call inside.
// The class makes the bracket hard to get wrong:
//
// - `open` appends `tool.session.opened` before any call event can exist;
// - `close` first returns every call still outstanding (status `cancelled`),
//   then appends `tool.session.closed`, so every toolCalled has its
//   toolReturned and both come before the close;
// - a second `close` is a no-op, and so is a late `returned` for a call that
//   close already returned (a cancellation racing the call's own end);
// - a call after close, or `returned` for a callId this session never issued
//   or with another toolId, is a programming error and throws;
// - a `returned` the log refused (a storage fault, see log-health.ts) keeps
//   the call outstanding with the status it ended with, so a later `close`
//   records that status, not `cancelled`: the call did end, only its record
//   was late.
//
// Every payload is content-free: sessionId, toolId, callId, status, outcome
// and durationMs. There is no parameter through which arguments or results
// could reach the log (and the log refuses any other payload key).
import { randomUUID } from 'node:crypto';
import type { EventLog, ReturnStatus, SessionOutcome } from './log.js';

interface OpenCall {
  toolId: string;
  startedAt: number;
  /** Set when the call ended but its toolReturned could not be appended. */
  ended?: { status: ReturnStatus; durationMs: number };
}

/** Whole milliseconds, never negative; NaN or infinities count as 0. */
function cleanDuration(ms: number): number {
  return Number.isFinite(ms) && ms > 0 ? Math.round(ms) : 0;
}

export class ToolSession {
  readonly sessionId: string;
  /** Calls made and not yet returned. */
  private readonly calls = new Map<string, OpenCall>();
  /** Calls that have returned: a late `returned` for one of them is ignored. */
  private readonly finished = new Set<string>();
  private closedWith: SessionOutcome | undefined;

  private constructor(
    private readonly log: EventLog,
    private readonly who: { tenant: string; principal: string },
    readonly toolId: string,
  ) {
    this.sessionId = randomUUID();
  }

  /** Starts a session for `toolId` (the tool the agent called) and appends `tool.session.opened`. */
  static open(log: EventLog, who: { tenant: string; principal: string }, toolId: string): ToolSession {
    const session = new ToolSession(log, { tenant: who.tenant, principal: who.principal }, toolId);
    session.append('tool.session.opened', { sessionId: session.sessionId, toolId });
    return session;
  }

  /** The outcome the session was closed with, or undefined while open. */
  get outcome(): SessionOutcome | undefined {
    return this.closedWith;
  }

  /** Appends `agent.toolCalled {sessionId, toolId, callId}`; returns the new callId. */
  called(toolId: string): string {
    if (this.closedWith !== undefined) throw new Error(`tool session ${this.sessionId} is closed`);
    const callId = randomUUID();
    this.append('agent.toolCalled', { sessionId: this.sessionId, toolId, callId });
    this.calls.set(callId, { toolId, startedAt: performance.now() });
    return callId;
  }

  /** Appends `agent.toolReturned {sessionId, toolId, callId, status, durationMs}` for a call from `called`. */
  returned(callId: string, toolId: string, status: ReturnStatus, durationMs: number): void {
    const call = this.calls.get(callId);
    if (call === undefined) {
      if (this.finished.has(callId)) return; // already returned, or returned by close
      throw new Error(`tool session ${this.sessionId} issued no call ${callId}`);
    }
    if (call.toolId !== toolId) throw new Error(`call ${callId} was made to ${call.toolId}, not ${toolId}`);
    call.ended ??= { status, durationMs };
    this.append('agent.toolReturned', { sessionId: this.sessionId, toolId, callId, status, durationMs: cleanDuration(durationMs) });
    this.calls.delete(callId);
    this.finished.add(callId);
  }

  /** Returns any outstanding call as `cancelled`, then appends `tool.session.closed`. A second close does nothing. */
  close(outcome: SessionOutcome): void {
    if (this.closedWith !== undefined) return;
    for (const [callId, call] of [...this.calls]) {
      const ended = call.ended ?? { status: 'cancelled', durationMs: performance.now() - call.startedAt };
      this.returned(callId, call.toolId, ended.status, ended.durationMs);
    }
    this.append('tool.session.closed', { sessionId: this.sessionId, toolId: this.toolId, outcome });
    this.closedWith = outcome;
  }

  private append(type: Parameters<EventLog['append']>[0]['type'], payload: Record<string, string | number>): void {
    this.log.append({ type, tenant: this.who.tenant, principal: this.who.principal, sessionId: this.sessionId, payload });
  }
}
