// Node's own refusals in the contract's shape (docs/contract.md "Error body",
// "Endpoints"): a request Node's HTTP parser refuses (a malformed request
// line or header, an unknown method, headers too large, a request that took
// too long to arrive) never reaches fastify. Node then calls the server's
// `clientError` handler with the bare socket; this one writes the error
// envelope with `OpenWOP-Version` by hand and destroys the socket (the
// connection's state is unknown after a parse error).
import type { Socket } from 'node:net';
import { ERROR_STATUS, errorBody, type ErrorCode } from '../contract/errors.js';
import { PROTOCOL_VERSION } from '../contract/protocol.js';

const REASONS: Partial<Record<number, string>> = { 400: 'Bad Request', 408: 'Request Timeout', 431: 'Request Header Fields Too Large' };

/** The refusal for one parser error: by Node's error code. */
function refusalFor(code: string | undefined): { error: ErrorCode; message: string } {
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') return { error: 'toolhost.request_timeout', message: 'the request did not arrive in time' };
  if (code === 'HPE_HEADER_OVERFLOW') return { error: 'toolhost.headers_too_large', message: 'the request headers are too large' };
  if (code === 'HPE_INVALID_METHOD') return { error: 'validation_error', message: 'unknown HTTP method' };
  return { error: 'validation_error', message: 'malformed HTTP request' };
}

/** The raw HTTP/1.1 response for a parser error (exported for its test). */
export function clientErrorResponse(code: string | undefined): string {
  const { error, message } = refusalFor(code);
  const status = ERROR_STATUS[error];
  const body = JSON.stringify(errorBody(error, message));
  return (
    `HTTP/1.1 ${status} ${REASONS[status] ?? 'Error'}\r\n` +
    `openwop-version: ${PROTOCOL_VERSION}\r\n` +
    'content-type: application/json; charset=utf-8\r\n' +
    'cache-control: no-store\r\n' +
    `content-length: ${Buffer.byteLength(body)}\r\n` +
    'connection: close\r\n\r\n' +
    body
  );
}

/** For Fastify's `clientErrorHandler` option (Node's `clientError` event). */
export function answerClientError(err: NodeJS.ErrnoException, socket: Socket): void {
  // A reset connection has no one to answer.
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  // Bytes of a response already on the way (a timeout mid-answer): adding a second would corrupt it.
  const responding = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage?.headersSent === true;
  // As Node's own handler does: write, then destroy (the connection's state is unknown).
  if (socket.writable && !responding) socket.write(clientErrorResponse(err.code));
  socket.destroy();
}
