// Asking an MCP client to approve a call (docs/mcp.md "Approval"): one form
// elicitation with a boolean `approve`, sent on the call's own response
// stream (so a client without a GET /mcp stream is still asked), bounded by
// the approval timeout. Every way the exchange can go wrong (a client that
// cannot do form elicitation, a malformed or error answer, no answer, a
// disconnect) becomes an outcome the invocation layer records and refuses
// with a reason; nothing here throws.
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { ErrorCode, McpError, type RequestId } from '@modelcontextprotocol/sdk/types.js';
import type { ApprovalAnswer, ApprovalPrompt } from '../invoke/types.js';

export const DEFAULT_APPROVAL_TIMEOUT_MS = 50_000;

const APPROVE_SCHEMA = {
  type: 'object' as const,
  properties: { approve: { type: 'boolean' as const, title: 'Approve this call' } },
  required: ['approve'],
};

/** What a failed elicitation means for the call: the client's answer was unusable, never came, or the client went away. */
function failureOutcome(err: unknown, signal: AbortSignal): ApprovalAnswer {
  if (signal.aborted) return 'disconnected';
  if (err instanceof McpError) {
    if (err.code === ErrorCode.RequestTimeout) return 'timeout';
    if (err.code === ErrorCode.ConnectionClosed) return 'disconnected';
    // The SDK checks the answer against ElicitResult and the requested schema and says InvalidParams when it does not fit.
    if (err.code === ErrorCode.InvalidParams) return 'malformed';
    return 'error';
  }
  // A schema failure of the answer's shape (e.g. `action: "ACCEPT"`) surfaces as a plain validation error.
  return 'malformed';
}

/** The approval prompt for one tools/call request of `server`. */
export function elicitationPrompt(server: Server, call: { requestId: RequestId; signal: AbortSignal }, timeoutMs: number): ApprovalPrompt {
  return async (message) => {
    // `elicitation: {}` means form; a client that declared only `url` cannot answer a form.
    if (!server.getClientCapabilities()?.elicitation?.form) return 'unsupported';
    try {
      const answer = await server.elicitInput(
        { message, requestedSchema: APPROVE_SCHEMA },
        { relatedRequestId: call.requestId, signal: call.signal, timeout: timeoutMs },
      );
      if (answer.action === 'accept') return answer.content?.approve === true ? 'accept' : 'decline';
      return answer.action;
    } catch (err) {
      return failureOutcome(err, call.signal);
    }
  };
}
