// Dispatch by source (issue 7 "tools/call"): MCP forwards upstream over the
// source's own connection, node-pack calls the pack's handler in-process,
// host-extension runs its command, connector builds and sends the HTTP
// request with the credential resolved only now. Workflows are run by
// workflow-runner.ts on top of this.
import { applyConnectorAuth, buildHttpRequest, resolveConnectorSecret } from '../sources/connector/index.js';
import { McpCallError } from '../sources/mcp/index.js';
import { parseToolId } from '../contract/tool-id.js';
import type { ToolEntry } from '../catalog/snapshot.js';
import { runHostCommand, DEFAULT_COMMAND_TIMEOUT_MS } from './host-command.js';
import { errorResult, resultOf, withDeadline } from './results.js';
import { CallAbort, type DispatchOutcome, type InvokeDeps } from './types.js';

const MAX_CONNECTOR_RESPONSE_BYTES = 4 * 1024 * 1024;

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
      if (!op.baseUrl) return { status: 'error', result: errorResult('the connector has no base URL to call') };
      return withDeadline(deps.callTimeoutMs, signal, async (s) => {
        let secret: string | undefined;
        try {
          let req = buildHttpRequest(op, args, op.baseUrl!);
          secret = source.config.auth ? await resolveConnectorSecret(source.config, { env: deps.env, configDir: deps.configDir }) : undefined;
          if (secret !== undefined && source.config.auth) req = applyConnectorAuth(req, source.config.auth, secret);
          const res = await fetch(req.url, { method: req.method, headers: req.headers, body: req.body, signal: s, redirect: 'manual' });
          const buf = Buffer.from(await res.arrayBuffer());
          const raw = buf.subarray(0, MAX_CONNECTOR_RESPONSE_BYTES).toString('utf8');
          let body: unknown = raw;
          if ((res.headers.get('content-type') ?? '').includes('json')) {
            try {
              body = JSON.parse(raw);
            } catch {
              /* keep the text */
            }
          }
          const text = JSON.stringify({ status: res.status, body });
          if (!res.ok) return { status: 'error', result: { content: [{ type: 'text', text }], isError: true } };
          // The API's own JSON object is the structured result, so it matches the operation's outputSchema.
          const structured = body !== null && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>) : undefined;
          return { status: 'ok', result: { content: [{ type: 'text', text }], ...(structured ? { structuredContent: structured } : {}) } };
        } catch (err) {
          if (err instanceof CallAbort || s.aborted) throw s.reason instanceof CallAbort ? s.reason : err;
          // A query-string credential sits in the URL, which a network error may quote: scrub it either way.
          const message = String((err as Error).message);
          return { status: 'error', result: errorResult(`the API call failed: ${secret ? message.split(secret).join('[redacted]') : message}`) };
        }
      });
    }
    default:
      return { status: 'error', result: errorResult('this tool cannot be called directly') };
  }
}
