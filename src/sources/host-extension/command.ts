// Calling a host-extension tool runs its command (docs/config.md "Host
// extensions"): an argv array, never a shell, a timeout, a cap on output
// bytes, a clean environment plus only what config grants. Hostile argument
// values such as `; rm -rf /` or `$(...)` reach the program as literal argv
// entries because no shell ever parses them.
import { spawn } from 'node:child_process';
import { resolveEnvRefsInRecord } from '../../util/env-refs.js';
import { CallAbort, errorResult, withDeadline, type DispatchOutcome } from '../call-result.js';
import type { InvokeContext } from '../raw-tool.js';
import type { SourceContext } from '../source-context.js';
import type { HostExtensionConfig } from './config-schema.js';

export const DEFAULT_COMMAND_TIMEOUT_MS = 30_000;
export const DEFAULT_MAX_OUTPUT_BYTES = 1_048_576;
const SAFE_PATH = '/usr/local/bin:/usr/bin:/bin';

/** The argv entries for the call: each named argument in order; arrays give one entry per element. */
export function commandArgv(config: HostExtensionConfig, args: Record<string, unknown>): string[] {
  const out = [...config.command.slice(1)];
  for (const name of config.argv ?? []) {
    const value = args[name];
    if (value === undefined || value === null) continue;
    for (const v of Array.isArray(value) ? value : [value]) out.push(typeof v === 'string' ? v : JSON.stringify(v));
  }
  return out;
}

export function runHostCommand(config: HostExtensionConfig, args: Record<string, unknown>, env: NodeJS.ProcessEnv, signal: AbortSignal, cwd: string): Promise<DispatchOutcome> {
  const maxBytes = config.maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES;
  const childEnv = { PATH: env.PATH ?? SAFE_PATH, ...resolveEnvRefsInRecord(config.env, env) };
  return new Promise((resolve, reject) => {
    const child = spawn(config.command[0], commandArgv(config, args), { shell: false, env: childEnv, cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    const chunks: Buffer[] = [];
    let bytes = 0;
    let truncated = false;
    const take = (chunk: Buffer) => {
      if (bytes >= maxBytes) {
        truncated = true;
        return;
      }
      const room = maxBytes - bytes;
      chunks.push(chunk.length > room ? chunk.subarray(0, room) : chunk);
      if (chunk.length > room) truncated = true;
      bytes += Math.min(room, chunk.length);
    };
    child.stdout.on('data', take);
    child.stderr.on('data', take);
    const onAbort = () => child.kill('SIGKILL');
    signal.addEventListener('abort', onAbort, { once: true });
    child.on('error', (err) => {
      signal.removeEventListener('abort', onAbort);
      resolve({ status: 'error', result: errorResult(`the command could not start: ${(err as NodeJS.ErrnoException).code ?? err.message}`) });
    });
    child.on('close', (code, sig) => {
      signal.removeEventListener('abort', onAbort);
      if (signal.aborted) return reject(signal.reason instanceof CallAbort ? signal.reason : new CallAbort('cancelled', 'the call was cancelled'));
      const output = Buffer.concat(chunks).toString('utf8') + (truncated ? `\n[output truncated at ${maxBytes} bytes]` : '');
      const structured = { exitCode: code ?? -1, output, truncated };
      if (code === 0) resolve({ status: 'ok', result: { content: [{ type: 'text', text: output }], structuredContent: structured } });
      else resolve({ status: 'error', result: { content: [{ type: 'text', text: `exit ${code ?? sig}: ${output}` }], structuredContent: structured, isError: true } });
    });
  });
}

/** The source's `invoke`: each tool's command under its own timeout (not the host's default), run in the config's directory. */
export function commandCall(byToolId: ReadonlyMap<string, HostExtensionConfig>, ctx: Pick<SourceContext, 'env' | 'configDir'>) {
  return (toolId: string, args: Record<string, unknown>, context: InvokeContext): Promise<DispatchOutcome> => {
    const config = byToolId.get(toolId);
    if (!config) return Promise.resolve({ status: 'error', result: errorResult('no command is configured for this tool') });
    return withDeadline(config.timeoutMs ?? DEFAULT_COMMAND_TIMEOUT_MS, context.signal, (signal) => runHostCommand(config, args, ctx.env, signal, ctx.configDir));
  };
}
