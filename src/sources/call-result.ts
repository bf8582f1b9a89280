// What one tool call returns, whichever source ran it (docs/mcp.md
// "tools/call"): an MCP CallToolResult and a status for the event log, or a
// CallAbort thrown for a deadline or a cancellation. It lives here, below the
// invocation layer, because each source's `invoke` produces it and the
// invocation layer only reads it.
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

/** How one dispatched call ended, for the event log. */
/** `invalid_output`: the tool answered, but not in the shape its outputSchema promises. */
export type CallStatus = 'ok' | 'error' | 'invalid' | 'invalid_output' | 'refused' | 'timeout' | 'cancelled';

export interface DispatchOutcome {
  result: CallToolResult;
  status: CallStatus;
}

/** A call that did not finish: its deadline passed, or the caller cancelled it. */
export class CallAbort extends Error {
  constructor(readonly status: 'timeout' | 'cancelled', message: string) {
    super(message);
  }
}

/** Text for every client, and structuredContent when the value is an object (clients check it against a declared outputSchema). */
export function resultOf(value: unknown): CallToolResult {
  const text = typeof value === 'string' ? value : JSON.stringify(value ?? null);
  const result: CallToolResult = { content: [{ type: 'text', text }] };
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) result.structuredContent = value as Record<string, unknown>;
  return result;
}

export function errorResult(message: string): CallToolResult {
  return { content: [{ type: 'text', text: message }], isError: true };
}

/** Runs `work` under a deadline and the caller's cancellation, passing one signal down. */
export async function withDeadline<T>(timeoutMs: number, outer: AbortSignal | undefined, work: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const onOuter = () => controller.abort(new CallAbort('cancelled', 'the call was cancelled'));
  if (outer?.aborted) onOuter();
  outer?.addEventListener('abort', onOuter, { once: true });
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const err = new CallAbort('timeout', `the call did not finish within ${timeoutMs} ms`);
      controller.abort(err);
      reject(err);
    }, timeoutMs);
    controller.signal.addEventListener('abort', () => reject(controller.signal.reason), { once: true });
  });
  try {
    return await Promise.race([work(controller.signal), deadline]);
  } finally {
    clearTimeout(timer);
    outer?.removeEventListener('abort', onOuter);
  }
}
