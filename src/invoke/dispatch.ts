// Dispatch by source (issue 7 "tools/call"): MCP forwards upstream over the
// source's own connection, node-pack calls the pack's handler in-process,
// host-extension runs its command, connector builds and sends the HTTP
// request with the credential resolved only now. Workflows are run by
// workflow-runner.ts on top of this.
import { callConnectorOperation } from '../sources/connector/index.js';
import { McpCallError } from '../sources/mcp/index.js';
import { parseToolId } from '../contract/tool-id.js';
import type { ToolEntry } from '../catalog/snapshot.js';
import { runHostCommand, DEFAULT_COMMAND_TIMEOUT_MS } from './host-command.js';
import { errorResult, resultOf, withDeadline } from './results.js';
import { CallAbort, type DispatchOutcome, type InvokeDeps } from './types.js';

export async function dispatchCall(deps: InvokeDeps, entry: ToolEntry, args: Record<string, unknown>, signal: AbortSignal | undefined): Promise<DispatchOutcome> {
  const d = entry.tool.descriptor;
  const parts = parseToolId(d.toolId);
  switch (parts?.source) {
    case 'node-pack': {
      const handler = deps.handlers.get(d.toolId);
      if (!handler) return { status: 'error', result: errorResult('no handler is loaded for this tool') };
      return withDeadline(deps.callTimeoutMs, signal, async (s) => {
        try {
          return { status: 'ok', result: resultOf(await handler(args, { signal: s, toolId: d.toolId })) };
        } catch (err) {
          if (err instanceof CallAbort) throw err;
          return { status: 'error', result: errorResult(`the tool failed: ${(err as Error).message ?? String(err)}`) };
        }
      });
    }
    case 'host-extension': {
      const config = deps.hostExtensions.get(d.toolId);
      if (!config) return { status: 'error', result: errorResult('no command is configured for this tool') };
      return withDeadline(config.timeoutMs ?? DEFAULT_COMMAND_TIMEOUT_MS, signal, (s) => runHostCommand(config, args, deps.env, s, deps.configDir));
    }
    case 'mcp': {
      const source = deps.mcpSources.get(parts.serverId);
      if (!source) return { status: 'error', result: errorResult('the MCP server of this tool is not configured') };
      try {
        const result = await source.callTool(parts.toolName, args, { signal });
        return { status: result.isError ? 'error' : 'ok', result };
      } catch (err) {
        if (err instanceof McpCallError && (err.code === 'timeout' || err.code === 'cancelled')) throw new CallAbort(err.code, err.message);
        return { status: 'error', result: errorResult(err instanceof McpCallError ? err.message : 'the upstream call failed') };
      }
    }
    case 'connector': {
      const source = deps.connectors.get(parts.connectorId);
      const op = source?.operation(d.toolId);
      if (!source || !op) return { status: 'error', result: errorResult('the connector operation is not available') };
      // The call, its response cap and the scrubbing of the credential from what comes back: sources/connector/call.ts.
      return withDeadline(deps.callTimeoutMs, signal, (s) => callConnectorOperation(source.config, op, args, { env: deps.env, configDir: deps.configDir, signal: s, logger: deps.logger, injectTrace: deps.tracing?.enabled ? (h) => deps.tracing!.injectHeaders(h) : undefined }));
    }
    default:
      return { status: 'error', result: errorResult('this tool cannot be called directly') };
  }
}
