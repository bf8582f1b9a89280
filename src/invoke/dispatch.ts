// Dispatch by source (docs/mcp.md "tools/call"): the source that owns the
// toolId calls the tool, however it does that (an MCP server over its own
// connection, a pack's handler in-process, a host command, an HTTP request).
// Nothing here knows the kinds of sources; workflow-runner.ts builds the
// per-call context, including the step runner a workflow's call uses.
import { errorResult, type DispatchOutcome } from '../sources/call-result.js';
import type { InvokeContext } from '../sources/raw-tool.js';
import type { SourceRegistry } from '../sources/registry.js';

export function dispatchCall(sources: SourceRegistry, toolId: string, args: Record<string, unknown>, context: InvokeContext): Promise<DispatchOutcome> {
  const source = sources.sourceFor(toolId);
  if (!source) return Promise.resolve({ status: 'error', result: errorResult('this tool cannot be called directly') });
  return sources.invoke(source, toolId, args, context);
}
