// One connector tool call (contract "tools/call" through the host's MCP front
// door): arguments → HTTP request → the credential, resolved only now → fetch
// → a CallToolResult. Two guarantees live here rather than in the caller:
// - the response is read with a byte cap while it streams; past the cap the
//   request is aborted (the host stops reading and closes the connection)
//   and the caller gets a clear error, so an API cannot make the host buffer
//   an unbounded body;
// - nothing the call returns holds the credential (scrub.ts): an API that
//   echoes headers, the URL or the body gets it replaced by `[redacted]`,
//   in the result text, the structured content and error messages alike.
// A credential that cannot be resolved (env variable unset, file missing) is
// "the connector is not configured" to the caller; which variable or file is
// only in the operator's log.
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from 'pino';
import { isPlainObject } from '../../util/json.js';
import type { ConnectorSourceConfig } from './config-schema.js';
import { applyConnectorAuth, buildHttpRequest, ConnectorRequestError } from './http-request.js';
import { SecretScrubber } from '../../util/scrub.js';
import { secretValues } from './scrub.js';
import { ConnectorSecretError, resolveConnectorSecret } from './secret.js';
import type { ConnectorOperation } from './types.js';
import { UpstreamCredentialRefused, type UpstreamCredential } from '../upstream-credential.js';
import { withCallerCredential } from './caller-credential.js';

/** The most response body bytes one call reads (4 MiB); a larger response is an error. */
export const MAX_CONNECTOR_RESPONSE_BYTES = 4 * 1024 * 1024;

export interface ConnectorCallOptions {
  env: NodeJS.ProcessEnv;
  configDir: string;
  /** The call's deadline and cancellation; when it aborts, its reason is thrown. */
  signal: AbortSignal;
  logger: Logger;
  maxResponseBytes?: number;
  /** Adds the active span's `traceparent` to the request's headers (tracing on). */
  injectTrace?: (headers: Record<string, string>) => void;
  /** This caller's own credential (credentials.mode other than shared). */
  credential?: UpstreamCredential;
}

export interface ConnectorCallOutcome {
  status: 'ok' | 'error';
  result: CallToolResult;
}

const NOT_CONFIGURED = 'the connector is not configured';

function failed(text: string): ConnectorCallOutcome {
  return { status: 'error', result: { content: [{ type: 'text', text }], isError: true } };
}

class ResponseTooLarge extends Error {}

/** Reads the body while it streams; past `cap` bytes aborts the request and throws ResponseTooLarge. */
async function readCapped(res: Response, cap: number, abortRequest: () => void): Promise<Buffer> {
  const declared = Number(res.headers.get('content-length') ?? NaN);
  if (Number.isFinite(declared) && declared > cap) {
    abortRequest();
    throw new ResponseTooLarge();
  }
  if (!res.body) return Buffer.alloc(0);
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > cap) {
      abortRequest();
      await reader.cancel().catch(() => {});
      throw new ResponseTooLarge();
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks, total);
}

export async function callConnectorOperation(config: ConnectorSourceConfig, op: ConnectorOperation, args: Record<string, unknown>, options: ConnectorCallOptions): Promise<ConnectorCallOutcome> {
  const { signal, logger } = options;
  const cap = options.maxResponseBytes ?? MAX_CONNECTOR_RESPONSE_BYTES;
  if (!op.baseUrl) return failed('the connector has no base URL to call');
  let scrubber = new SecretScrubber([]);
  try {
    let request = buildHttpRequest(op, args, op.baseUrl);
    const credential = options.credential;
    if (credential) {
      scrubber = new SecretScrubber([...credential.secrets]);
      request = withCallerCredential(request, credential);
    }
    if (config.auth && !credential?.replacesShared) {
      const secret = await resolveConnectorSecret(config, { env: options.env, configDir: options.configDir });
      if (secret !== undefined) {
        scrubber = new SecretScrubber([...secretValues(secret, config.auth.type), ...(credential?.secrets ?? [])]);
        request = applyConnectorAuth(request, config.auth, secret);
      }
    }
    const own = new AbortController();
    const headers: Record<string, string> = { ...request.headers };
    options.injectTrace?.(headers);
    const res = await fetch(request.url, { method: request.method, headers, body: request.body, signal: AbortSignal.any([signal, own.signal]), redirect: 'manual' });
    // The caller's own credential refused: the host asks the person to connect again rather than answer the API's 401.
    if (res.status === 401 && credential) {
      own.abort();
      throw new UpstreamCredentialRefused(`connector:${config.id}`);
    }
    const raw = (await readCapped(res, cap, () => own.abort())).toString('utf8');
    let body: unknown;
    if ((res.headers.get('content-type') ?? '').includes('json')) {
      try {
        // Parsed first, then every string scrubbed: JSON may escape the secret in ways text matching would miss.
        body = scrubber.value(JSON.parse(raw));
      } catch {
        body = undefined;
      }
    }
    body ??= scrubber.text(raw);
    const text = scrubber.text(JSON.stringify({ status: res.status, body }));
    if (!res.ok) return { status: 'error', result: { content: [{ type: 'text', text }], isError: true } };
    // The API's own JSON object is the structured result, so it matches the operation's outputSchema.
    const structured = isPlainObject(body) ? body : undefined;
    return { status: 'ok', result: { content: [{ type: 'text', text }], ...(structured ? { structuredContent: structured } : {}) } };
  } catch (err) {
    if (signal.aborted) throw signal.reason;
    if (err instanceof UpstreamCredentialRefused) throw err;
    if (err instanceof ConnectorSecretError) {
      // The message names the variable or file (never a value): for the operator only.
      logger.warn({ connector: config.id, toolId: op.toolId }, `connector call refused: ${err.message}`);
      return failed(NOT_CONFIGURED);
    }
    if (err instanceof ResponseTooLarge) return failed(`the API response is larger than the limit of ${cap} bytes; the host stopped reading it`);
    if (err instanceof ConnectorRequestError) return failed(`the API call failed: ${scrubber.text(err.message)}`);
    // A network error may quote the URL, and a query-string credential sits in it.
    return failed(`the API call failed: ${scrubber.text(String((err as Error).message))}`);
  }
}
