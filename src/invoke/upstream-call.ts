// Dispatch with the caller's own upstream credential (docs/auth.md
// "Upstream credentials"), for a source whose credentials are not shared.
// The credential is resolved for this caller only and handed to the source
// with this call only. A caller who has none yet (or whose credential the
// upstream refused) is asked to connect: by a URL-mode elicitation when its
// client declared one, the call then waiting until the person has connected
// and running as if nothing had happened; otherwise by an error result
// carrying the link (text, and `_meta["toolhost/connect"]` for programs).
// Whatever the call returns passes the scrubber for the caller's credential,
// so an upstream echoing it back cannot hand it out.
import { randomUUID } from 'node:crypto';
import type { Principal } from '../auth/principal.js';
import type { DispatchOutcome } from '../sources/call-result.js';
import { SecretScrubber } from '../util/scrub.js';
import type { InvokeContext } from '../sources/raw-tool.js';
import { UpstreamCredentialRefused, type UpstreamCredential } from '../sources/upstream-credential.js';
import type { ConnectNeeded, UpstreamCredentials } from '../upstream/credentials.js';
import { dispatchCall } from './dispatch.js';
import type { InvokeDeps } from './types.js';

/** The `_meta` key of a result that asks the person to connect. */
export const CONNECT_META_KEY = 'toolhost/connect';

export async function dispatchAsCaller(deps: InvokeDeps, caller: Principal, toolId: string, args: Record<string, unknown>, context: InvokeContext): Promise<DispatchOutcome> {
  const credentials = deps.credentials;
  const source = deps.sources.sourceFor(toolId);
  if (!credentials || !source || !credentials.governs(source.id)) return dispatchCall(deps.sources, toolId, args, context);
  let resolved = await credentials.forCall(source.id, caller);
  if (resolved && 'error' in resolved) return errorResult(resolved.error);
  if (resolved && 'connect' in resolved) {
    if (!(await askToConnect(credentials, caller, resolved.connect, context, deps.callTimeoutMs))) return connectResult(resolved.connect);
    resolved = await credentials.forCall(source.id, caller);
    if (resolved && !('credential' in resolved)) return 'connect' in resolved ? connectResult(resolved.connect) : errorResult(resolved.error);
  }
  const credential = resolved?.credential;
  try {
    return scrubbed(await dispatchCall(deps.sources, toolId, args, { ...context, credential }), credential);
  } catch (err) {
    if (err instanceof UpstreamCredentialRefused) {
      const refusal = await credentials.refused(source.id, caller);
      return 'error' in refusal ? errorResult(refusal.error) : connectResult(refusal);
    }
    throw err;
  }
}

/** The one place call results meet the scrubber for a caller's credential. */
function scrubbed(outcome: DispatchOutcome, credential: UpstreamCredential | undefined): DispatchOutcome {
  if (!credential || credential.secrets.length === 0) return outcome;
  return { ...outcome, result: new SecretScrubber(credential.secrets).value(outcome.result) as DispatchOutcome['result'] };
}

/** A call that cannot carry the caller's credential (no JWT, a refused exchange): an error, no connect link. */
function errorResult(message: string): DispatchOutcome {
  return { status: 'error', result: { content: [{ type: 'text', text: message }], isError: true } };
}

function connectResult(need: ConnectNeeded): DispatchOutcome {
  return {
    status: 'error',
    result: { content: [{ type: 'text', text: need.message }], isError: true, _meta: { [CONNECT_META_KEY]: { source: need.sourceId, url: need.url } } },
  };
}

/**
 * A URL-mode elicitation, when the caller's client can take one; true once
 * the person has connected within the call's deadline.
 */
async function askToConnect(credentials: UpstreamCredentials, caller: Principal, need: ConnectNeeded, context: InvokeContext, timeoutMs: number): Promise<boolean> {
  const ask = context.requestFromCaller;
  if (!ask?.elicitation) return false;
  const signal = AbortSignal.any([AbortSignal.timeout(timeoutMs), ...(context.signal ? [context.signal] : [])]);
  try {
    const answer = await ask.send('elicitation/create', { mode: 'url', elicitationId: randomUUID(), url: need.url, message: `Connect ${need.label} to continue.` }, signal);
    if (answer.action !== 'accept') return false;
  } catch {
    return false; // no URL mode, or no answer: the link goes back in the result instead
  }
  return credentials.waitForConnection(need.sourceId, caller, signal);
}
