// The error envelope (CONTRACT.md "Error body"): every non-2xx answer is
// exactly { error, message, details? }. Codes and statuses live only here.

export const ERROR_STATUS = {
  validation_error: 400,
  unauthenticated: 401,
  forbidden: 403,
  not_found: 404,
  method_not_allowed: 405,
  protocol_version_unsupported: 406,
  rate_limited: 429,
  internal_error: 500,
  unavailable: 503,
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
