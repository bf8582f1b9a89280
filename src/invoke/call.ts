// One catalog tool call, start to end (docs/mcp.md "tools/call" and "Tool
// sessions"): the same snapshot lookup and visibility rule as GET /tools,
// argument validation, approval, dispatch, and a complete content-free event
// bracket around it whatever happens (unknown tool, invalid arguments,
// refusal, timeout, cancellation).
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Principal } from '../auth/principal.js';
import type { ToolDescriptor } from '../contract/descriptor.js';
import { ToolSession } from '../events/session.js';
import type { SessionOutcome } from '../events/log.js';
import { argumentProblem } from './arguments.js';
import { dispatchCall } from './dispatch.js';
import { errorResult } from './results.js';
import { CallAbort, type ApprovalAnswer, type ApprovalPrompt, type CallStatus, type DispatchOutcome, type InvokeDeps } from './types.js';
import { runWorkflow } from './workflow-runner.js';

/** A call refused before it ran; the MCP layer turns it into a protocol error. */
export class CallRefused extends Error {
  constructor(
    readonly kind: 'unknown_tool' | 'invalid_arguments' | 'approval',
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
}

/**
 * `approval: always` asks every time. `conditional` asks when the tool can
 * change something (tier write or exec) and proceeds otherwise. Inside a
 * workflow the workflow's own approval (the most demanding of its steps)
 * is asked once, before the first step.
 */
export function needsApproval(d: ToolDescriptor): boolean {
  return d.approval === 'always' || (d.approval === 'conditional' && (d.safetyTier === 'write' || d.safetyTier === 'exec'));
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

const OUTCOME: Record<CallStatus, SessionOutcome> = { ok: 'completed', error: 'failed', invalid: 'failed', refused: 'failed', timeout: 'failed', cancelled: 'cancelled' };

export async function callCatalogTool(deps: InvokeDeps, req: CallRequest): Promise<CallToolResult> {
  const snapshot = deps.store.current();
  const entry = req.toolId === undefined ? undefined : snapshot.lookup(req.principal, req.toolId);
  // What an agent asks for is free text: an unmatched name (unknown or invisible alike) is logged as a fixed placeholder, never echoed.
  const toolId = entry?.tool.descriptor.toolId ?? UNKNOWN_TOOL;
  const session = deps.events ? ToolSession.open(deps.events, { tenant: req.principal.tenant, principal: req.principal.id }, toolId) : undefined;
  const started = performance.now();
  // For refusals before dispatch: one call/return pair, so the bracket is always complete.
  const refuse = (status: CallStatus, outcome: SessionOutcome = 'failed') => {
    if (!session) return;
    const callId = session.called(toolId);
    session.returned(callId, toolId, status, Math.round(performance.now() - started));
    session.close(outcome);
  };

  if (!entry) {
    refuse('refused');
    throw new CallRefused('unknown_tool', `Unknown tool: ${req.requested.slice(0, 128)}`);
  }
  const problem = argumentProblem(entry, req.args);
  if (problem) {
    refuse('invalid');
    throw new CallRefused('invalid_arguments', `Invalid arguments for ${toolId}: ${problem}`);
  }
  const descriptor = entry.tool.descriptor;
  if (needsApproval(descriptor)) {
    const answer = await req.approve(`Allow ${descriptor.title ?? toolId} (${toolId}, ${descriptor.safetyTier})?`).catch((): ApprovalAnswer => 'error');
    if (answer !== 'accept') {
      refuse('refused', answer === 'cancel' || answer === 'disconnected' ? 'cancelled' : 'failed');
      throw new CallRefused('approval', `${toolId} was not run: ${APPROVAL_REFUSAL[answer]}`);
    }
  }

  const args = req.args as Record<string, unknown>;
  let outcome: DispatchOutcome;
  try {
    if (descriptor.source === 'workflow') {
      outcome = await runWorkflow(deps, snapshot, req.principal, entry, args, session, req.signal);
    } else {
      const callId = session?.called(toolId) ?? '';
      const callStarted = performance.now();
      try {
        outcome = await dispatchCall(deps, entry, args, req.signal);
      } catch (err) {
        if (err instanceof CallAbort) session?.returned(callId, toolId, err.status, Math.round(performance.now() - callStarted));
        throw err;
      }
      session?.returned(callId, toolId, outcome.status, Math.round(performance.now() - callStarted));
    }
  } catch (err) {
    if (!(err instanceof CallAbort)) {
      deps.logger.error({ err, toolId }, 'tool call failed unexpectedly');
      session?.close('failed');
      return errorResult('the tool call failed inside the host');
    }
    session?.close(OUTCOME[err.status]);
    return errorResult(err.message);
  }
  session?.close(OUTCOME[outcome.status]);
  return outcome.result;
}
