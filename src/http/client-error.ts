// Node's own refusals in the contract's shape (docs/contract.md "Error body",
// "Endpoints"): a request Node's HTTP parser refuses (a malformed request
// line or header, an unknown method, headers too large, a request that took
// too long to arrive) never reaches fastify. Node then calls the server's
// `clientError` handler with the bare socket; this one writes the error
// envelope with `OpenWOP-Version` by hand and destroys the socket (the
// connection's state is unknown after a parse error), unless a response on that
// socket has begun (`trackResponses`: Node names no response with the socket,
// so the server's own requests are followed). Two more requests Node
// answers itself, bare, unless the server listens: an `Expect` it cannot meet
// (417) and `CONNECT` (which would otherwise get the socket closed unanswered).
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Socket } from 'node:net';
import { ERROR_STATUS, errorBody, type ErrorCode } from '../contract/errors.js';
import { PROTOCOL_VERSION } from '../contract/protocol.js';

const REASONS: Partial<Record<number, string>> = { 400: 'Bad Request', 405: 'Method Not Allowed', 408: 'Request Timeout', 417: 'Expectation Failed', 431: 'Request Header Fields Too Large' };

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
  return rawRefusal(error, message);
}

/** A closing HTTP/1.1 answer in the envelope, written by hand on a socket fastify never sees. */
function rawRefusal(error: ErrorCode, message: string, extra = ''): string {
  const status = ERROR_STATUS[error];
  const body = JSON.stringify(errorBody(error, message));
  return (
    `HTTP/1.1 ${status} ${REASONS[status] ?? 'Error'}\r\n` +
    `openwop-version: ${PROTOCOL_VERSION}\r\n` +
    'content-type: application/json; charset=utf-8\r\n' +
    'cache-control: no-store\r\n' +
    extra +
    `content-length: ${Buffer.byteLength(body)}\r\n` +
    'connection: close\r\n\r\n' +
    body
  );
}

/** For the server's `checkExpectation` event: an `Expect` other than 100-continue. */
export function answerExpectation(_request: IncomingMessage, response: ServerResponse): void {
  const body = JSON.stringify(errorBody('toolhost.expectation_failed', 'the only expectation this host meets is 100-continue'));
  response.writeHead(ERROR_STATUS['toolhost.expectation_failed'], {
    'openwop-version': PROTOCOL_VERSION,
    'content-type': 'application/json; charset=utf-8',
    'cache-control': 'no-store',
    'content-length': Buffer.byteLength(body),
    connection: 'close',
  });
  response.end(body);
}

/** For the server's `connect` event: this host is no proxy. */
export function answerConnect(_request: IncomingMessage, socket: Duplex): void {
  socket.on('error', () => {});
  socket.end(rawRefusal('toolhost.method_not_allowed', 'CONNECT is not served: this host is no proxy', 'allow: GET, HEAD, POST, DELETE\r\n'));
}

/**
 * The responses not yet finished on each socket: one, or (pipelined
 * requests) several. Node's `clientError` event hands over the socket alone.
 */
const unfinished = new WeakMap<Socket, ServerResponse | ServerResponse[]>();

function follow(request: IncomingMessage, response: ServerResponse): void {
  const socket = request.socket as Socket;
  const before = unfinished.get(socket);
  if (before === undefined || (!Array.isArray(before) && before.writableFinished)) {
    unfinished.set(socket, response);
    return;
  }
  const open = (Array.isArray(before) ? before : [before]).filter((r) => !r.writableFinished);
  open.push(response);
  unfinished.set(socket, open);
}

/** Follows the server's responses for `answerClientError` (call before it listens). */
export function trackResponses(server: Server): void {
  server.on('request', follow);
}

/** Whether some response on the socket has written its head and not finished. */
function responding(socket: Socket): boolean {
  const open = unfinished.get(socket);
  if (open === undefined) return false;
  if (!Array.isArray(open)) return open.headersSent && !open.writableFinished;
  return open.some((r) => r.headersSent && !r.writableFinished);
}

/** For Fastify's `clientErrorHandler` option (Node's `clientError` event), on a server given to `trackResponses`. */
export function answerClientError(err: NodeJS.ErrnoException, socket: Socket): void {
  // A reset connection has no one to answer.
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  // Bytes of a response already on the way (a timeout mid-answer): adding a second would corrupt it.
  // As Node's own handler does: write, then destroy (the connection's state is unknown).
  if (socket.writable && !responding(socket)) socket.write(clientErrorResponse(err.code));
  socket.destroy();
}
