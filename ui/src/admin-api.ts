// The admin API as the page speaks it (docs/ui.md "Admin"): every request
// carries the signed-in credential like the rest of the page, and an answer
// keeps what the admin page needs beyond the error envelope's message: the
// ETag to send back in If-Match, and the problems of a refused change.
import { ApiError, type Api } from './api.js';

export const ADMIN = '/admin/v1';

export interface Problem {
  pointer: string;
  in: string;
  message: string;
}

/** A refused admin request: the envelope's code and message, and its `details.problems` when a change was invalid. */
export class AdminError extends ApiError {
  constructor(
    status: number,
    code: string,
    message: string,
    readonly problems: Problem[],
  ) {
    super(status, code, message);
  }
}

export interface TenantDiff {
  added: string[];
  removed: string[];
  reclassified: { toolId: string; before: string; after: string }[];
}

export interface DryRun {
  dryRun: true;
  refusedSettings: string[];
  changes: Record<string, TenantDiff>;
}

export interface AuditRecord {
  seq: number;
  at: string;
  who: string;
  action: string;
  resource: string;
  before: string | null;
  after: string | null;
}

export interface Listed {
  id: string;
  etag: string;
  value: Record<string, unknown>;
}

async function adminError(response: Response): Promise<AdminError> {
  let code = `http_${response.status}`;
  let message = `${response.status} ${response.statusText}`;
  let problems: Problem[] = [];
  try {
    const body = (await response.json()) as { error?: unknown; message?: unknown; details?: { problems?: unknown } };
    if (typeof body.error === 'string') code = body.error;
    if (typeof body.message === 'string') message = body.message;
    if (Array.isArray(body.details?.problems)) problems = body.details.problems as Problem[];
  } catch {
    // Not the envelope (an unknown route's answer): keep the status line.
  }
  return new AdminError(response.status, code, message, problems);
}

export async function adminRequest<T>(api: Api, method: string, path: string, init: { body?: unknown; ifMatch?: string } = {}): Promise<{ body: T | undefined; etag: string | null }> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (init.body !== undefined) headers['content-type'] = 'application/json';
  if (init.ifMatch !== undefined) headers['if-match'] = init.ifMatch;
  const response = await fetch(ADMIN + path, {
    method,
    headers: api.headers(headers),
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
    credentials: 'omit',
    cache: 'no-store',
  });
  if (!response.ok) throw await adminError(response);
  const text = await response.text();
  return { body: text === '' ? undefined : (JSON.parse(text) as T), etag: response.headers.get('etag') };
}

/**
 * Whether this credential may use the admin API, as the API itself answers:
 * an admin reads the audit trail, anyone else gets the unknown route's 404.
 */
export async function isAdmin(api: Api): Promise<boolean> {
  try {
    await adminRequest(api, 'GET', '/audit?limit=1');
    return true;
  } catch {
    return false;
  }
}
