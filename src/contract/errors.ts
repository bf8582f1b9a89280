// The error envelope (docs/contract.md "Error body"): every non-2xx answer is
// exactly { error, message, details? }. Codes and statuses live only here.
//
// Every code is one the published v2 error envelope accepts: a registered
// code answered with its registered status (`x-openwop-http-status` in the
// v2 schema), or a vendor code `toolhost.<code>` for a situation the registry
// has no code for (a 405, a 503 of this host, Node's own refusals).

export const ERROR_STATUS = {
  // registered codes, with their registered statuses
  validation_error: 400,
  unauthenticated: 401,
  forbidden: 403,
  not_found: 404,
  protocol_version_unsupported: 406,
  payload_too_large: 413,
  unsupported_media_type: 415,
  rate_limited: 429,
  internal_error: 500,
  // vendor codes
  'toolhost.method_not_allowed': 405,
  'toolhost.request_timeout': 408,
  'toolhost.precondition_failed': 412,
  'toolhost.expectation_failed': 417,
  'toolhost.precondition_required': 428,
  'toolhost.headers_too_large': 431,
  'toolhost.unavailable': 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

export interface ErrorBody {
  error: ErrorCode;
  message: string;
  details?: Record<string, unknown>;
}

export function errorBody(error: ErrorCode, message: string, details?: Record<string, unknown>): ErrorBody {
  return details === undefined ? { error, message } : { error, message, details };
}

/** Longest piece of a request (a header value) an error body quotes back. */
export const MAX_ECHOED_CHARS = 64;

/** A request value as an error body may quote it: at most MAX_ECHOED_CHARS characters, marked when cut. */
export function echoed(value: string): string {
  return value.length <= MAX_ECHOED_CHARS ? value : `${value.slice(0, MAX_ECHOED_CHARS)}…`;
}

/** Thrown anywhere below the HTTP layer when a request must fail with a contract error. */
export class ContractError extends Error {
  readonly status: number;
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: Record<string, unknown>,
    readonly headers: Record<string, string> = {},
  ) {
    // A refusal is an answer, not a fault: no stack trace to capture (a
    // quarter of the 401 path's time in the benchmark's profile).
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    super(message);
    Error.stackTraceLimit = limit;
    this.status = ERROR_STATUS[code];
  }
  toBody(): ErrorBody {
    return errorBody(this.code, this.message, this.details);
  }
}
