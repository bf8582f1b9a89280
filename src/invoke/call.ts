// One catalog tool call, start to end (docs/mcp.md "tools/call" and "Tool
// sessions"): the same snapshot lookup and visibility rule as GET /tools,
// argument validation, approval, dispatch, and a complete content-free event
// bracket around it whatever happens (unknown tool, invalid arguments,
// refusal, timeout, cancellation).
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Principal } from '../auth/principal.js';
import { isReadOnlyTier } from '../contract/annotations.js';
import type { ToolDescriptor } from '../contract/descriptor.js';
import { EventLogUnavailableError } from '../events/log-health.js';
import { ToolSession } from '../events/session.js';
import { SpanKind } from '../observability/tracing.js';
import type { SessionOutcome } from '../events/event-types.js';
import { CallAbort, errorResult, type CallStatus, type DispatchOutcome } from '../sources/call-result.js';
import type { CallRelay } from '../sources/raw-tool.js';
import { argumentProblem } from './arguments.js';
import { profileArguments } from './profile-arguments.js';
import type { ApprovalAnswer, ApprovalPrompt, InvokeDeps } from './types.js';
import { invokeInScope, type CallScope } from './workflow-runner.js';
import type { ProfileId } from '../catalog/profiles/rules.js';
import type { ToolEntry } from '../catalog/entry.js';

/** A call refused before it ran; the MCP layer turns it into a protocol error. */
export class CallRefused extends Error {
  constructor(
    readonly kind: 'unknown_tool' | 'approval',
    message: string,
  ) {
    super(message);
  }
}

export interface CallRequest {
  principal: Principal;
  /** The resolved toolId, or undefined when the requested name maps to nothing. */
  toolId: string | undefined;
  /** What the caller asked for, recorded when nothing matched. */
  requested: string;
  args: unknown;
  signal?: AbortSignal;
  approve: ApprovalPrompt;
  /** Progress, log messages and upstream requests of the call, for the client that made it. */
  relay?: CallRelay;
  /** The provider profile the arguments come in (docs/compact-view.md "Arguments translated back"). */
  profile?: ProfileId;
}

/**
 * `approval: always` asks every time. `conditional` asks when the tool can
 * change something (tier write or exec) and proceeds otherwise. Inside a
 * workflow the workflow's own approval (the most demanding of its steps)
 * is asked once, before the first step.
 */
export function needsApproval(d: ToolDescriptor): boolean {
  return d.approval === 'always' || (d.approval === 'conditional' && !isReadOnlyTier(d.safetyTier));
}

export const UNKNOWN_TOOL = '(unknown)';

/** Why a call that needed approval did not run, as the caller is told. */
const APPROVAL_REFUSAL: Record<Exclude<ApprovalAnswer, 'accept'>, string> = {
  decline: 'the approval was declined',
  cancel: 'the approval was cancelled',
  unsupported: 'it needs approval and this client cannot be asked (no form elicitation support)',
  malformed: 'the approval answer was malformed (expected action "accept" with content {"approve": true})',
  error: 'the client answered the approval request with an error',
  timeout: 'no approval answer arrived in time',
  disconnected: 'the client went away while approval was pending',
};

const OUTCOME: Record<CallStatus, SessionOutcome> = { ok: 'completed', error: 'failed', invalid: 'failed', invalid_output: 'failed', refused: 'failed', timeout: 'failed', cancelled: 'cancelled' };

/** What the metrics and the span say of a call: filled in as the call learns it. */
interface CallObservation {
  toolId: string;
  source: string;
  tier: string;
  outcome: CallStatus | 'unknown';
}

/**
 * Runs one call, counted and timed (`toolhost_tool_call*`) and, when tracing
 * is on, inside a `tools/call` span whose attributes are ids and outcomes,
 * never arguments or results.
 */
export async function callCatalogTool(deps: InvokeDeps, req: CallRequest): Promise<CallToolResult> {
  const observed: CallObservation = { toolId: UNKNOWN_TOOL, source: 'unknown', tier: 'unknown', outcome: 'unknown' };
  const started = performance.now();
  const tracing = deps.tracing?.enabled ? deps.tracing : undefined;
  // Without tracing, no span, no attributes and no closure per call.
  if (tracing === undefined) {
    try {
      return await runCall(deps, req, observed);
    } finally {
      deps.toolCalls?.observe(observed, (performance.now() - started) / 1000);
    }
  }
  return tracing.inSpan('tools/call', SpanKind.INTERNAL, { 'toolhost.tenant': req.principal.tenant }, async (span) => {
    try {
      return await runCall(deps, req, observed);
    } finally {
      span?.setAttributes({ 'toolhost.tool_id': observed.toolId, 'toolhost.source': observed.source, 'toolhost.safety_tier': observed.tier, 'toolhost.outcome': observed.outcome });
      deps.toolCalls?.observe(observed, (performance.now() - started) / 1000);
    }
  });
}

type Refuse = (status: CallStatus, outcome?: SessionOutcome) => Promise<void>;

async function runCall(deps: InvokeDeps, req: CallRequest, observed: CallObservation): Promise<CallToolResult> {
  const snapshot = deps.store.current();
  const entry = req.toolId === undefined ? undefined : snapshot.lookup(req.principal, req.toolId);
  // What an agent asks for is free text: an unmatched name (unknown or invisible alike) is logged as a fixed placeholder, never echoed.
  const toolId = entry?.tool.descriptor.toolId ?? UNKNOWN_TOOL;
  if (entry) Object.assign(observed, { toolId, source: entry.tool.descriptor.source, tier: entry.tool.descriptor.safetyTier });
  const session = deps.events ? ToolSession.open(deps.events, { tenant: req.principal.tenant, principal: req.principal.id }, toolId, req.profile) : undefined;
  const started = performance.now();
  // For refusals before dispatch: one call/return pair, so the bracket is always
  // complete; committed before the refusal is answered (nothing ran: no write-ahead record).
  const refuse: Refuse = async (status, outcome = 'failed') => {
    observed.outcome = entry ? status : 'unknown';
    if (!session) return;
    const callId = session.called(toolId);
    session.returned(callId, toolId, status, Math.round(performance.now() - started));
    await session.finish(outcome);
  };

  if (!entry) {
    await refuse('refused');
    throw new CallRefused('unknown_tool', `Unknown tool: ${req.requested.slice(0, 128)}`);
  }
  const admitted = await admitCall(req, entry, session, refuse);
  if ('refusal' in admitted) return admitted.refusal;
  const scope: CallScope = { deps, snapshot, caller: req.principal, session, signal: req.signal, depth: 0, relay: req.relay };
  let outcome: DispatchOutcome;
  try {
    outcome = await dispatchRecorded(scope, entry, admitted.args);
  } catch (err) {
    return endFailedCall(deps, session, observed, toolId, err);
  }
  observed.outcome = outcome.status;
  // The answer record, committed (and under events.synchronous full, fsync'd) before the answer goes out.
  try {
    await session?.finish(OUTCOME[outcome.status]);
  } catch (err) {
    // A refused record withholds the answer: the metrics and the span say what the caller got.
    observed.outcome = 'error';
    throw err;
  }
  return outcome.result;
}

/** The call's arguments (translated from its provider profile) once they are valid and a person has approved where asked; otherwise its refusal. */
async function admitCall(req: CallRequest, entry: ToolEntry, session: ToolSession | undefined, refuse: Refuse): Promise<{ args: Record<string, unknown> } | { refusal: CallToolResult }> {
  const descriptor = entry.tool.descriptor;
  const toolId = descriptor.toolId;
  const translated = req.profile === undefined ? { args: req.args } : profileArguments(descriptor, req.profile, req.args);
  const problem = translated.problem ?? argumentProblem(entry, translated.args);
  if (problem) {
    // A tool error, not a protocol error: the model reads it and can correct its call.
    await refuse('invalid');
    return { refusal: errorResult(`Invalid arguments for ${toolId}: ${problem}`) };
  }
  if (needsApproval(descriptor)) {
    // Recorded before a person is asked: a log that cannot be written refuses the call before anyone approves it.
    await session?.commit({ writeAhead: true });
    const answer = await req.approve(`Allow ${descriptor.title ?? toolId} (${toolId}, ${descriptor.safetyTier})?`).catch((): ApprovalAnswer => 'error');
    if (answer !== 'accept') {
      await refuse('refused', answer === 'cancel' || answer === 'disconnected' ? 'cancelled' : 'failed');
      throw new CallRefused('approval', `${toolId} was not run: ${APPROVAL_REFUSAL[answer]}`);
    }
  }
  return { args: translated.args as Record<string, unknown> };
}

/** Runs the tool, its call and return recorded around it (a workflow records each step instead). */
async function dispatchRecorded(scope: CallScope, entry: ToolEntry, args: Record<string, unknown>): Promise<DispatchOutcome> {
  // A tool made of steps (a workflow): the session records each step, not the tool itself.
  if (entry.tool.raw.steps !== undefined) return invokeInScope(scope, entry, args);
  const { deps, session } = scope;
  const descriptor = entry.tool.descriptor;
  const toolId = descriptor.toolId;
  const callId = session?.called(toolId) ?? '';
  // Under `events.writeAhead: changes` a tool that changes nothing runs first: its whole bracket is one commit, before its answer goes out.
  if (session && (deps.writeAhead !== 'changes' || !isReadOnlyTier(descriptor.safetyTier))) await writeAhead(session, callId, toolId);
  const callStarted = performance.now();
  let outcome: DispatchOutcome;
  try {
    outcome = deps.tracing?.enabled
      ? await deps.tracing.inSpan(`upstream ${descriptor.source}`, SpanKind.CLIENT, { 'toolhost.tool_id': toolId, 'toolhost.source': descriptor.source }, () => invokeInScope(scope, entry, args))
      : await invokeInScope(scope, entry, args);
  } catch (err) {
    if (err instanceof CallAbort) session?.returned(callId, toolId, err.status, Math.round(performance.now() - callStarted));
    throw err;
  }
  session?.returned(callId, toolId, outcome.status, Math.round(performance.now() - callStarted));
  return outcome;
}

/** A dispatch that threw: the session closed with what happened, and the answer the caller gets. */
async function endFailedCall(deps: InvokeDeps, session: ToolSession | undefined, observed: CallObservation, toolId: string, err: unknown): Promise<CallToolResult> {
  if (err instanceof EventLogUnavailableError) {
    // A write-ahead record refused: the call is refused. A session already
    // recorded (an approval asked, earlier workflow steps) is closed if the log allows.
    observed.outcome = 'error';
    if (session?.recorded) await session.finish('failed').catch(() => {});
    throw err;
  }
  if (!(err instanceof CallAbort)) {
    observed.outcome = 'error';
    deps.logger.error({ err, toolId }, 'tool call failed unexpectedly');
    await session?.finish('failed');
    return errorResult('the tool call failed inside the host');
  }
  observed.outcome = err.status;
  await session?.finish(OUTCOME[err.status]);
  return errorResult(err.message);
}

/**
 * Commits the call's write-ahead record (its toolCalled, with whatever the
 * session still buffers) before the tool runs. A refusal refuses the call:
 * it rejects with the call returned as `refused`, for runCall to close.
 */
async function writeAhead(session: ToolSession, callId: string, toolId: string): Promise<void> {
  try {
    await session.commit({ writeAhead: true });
  } catch (err) {
    session.returned(callId, toolId, 'refused', 0);
    throw err;
  }
}
