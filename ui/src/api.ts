// The page's only way to the host (docs/ui.md "Sign-in"): the tenant-scoped
// API agents use, with the signed-in credential as a bearer header, never in
// a URL. The credential lives in sessionStorage: it survives a reload of the
// tab, not the closing of it, and no other tab or site sees it.

const STORAGE_KEY = 'toolhost.credential';

export function storedCredential(): string | null {
  return sessionStorage.getItem(STORAGE_KEY);
}

export function storeCredential(token: string): void {
  sessionStorage.setItem(STORAGE_KEY, token);
}

export function forgetCredential(): void {
  sessionStorage.removeItem(STORAGE_KEY);
}

/** An answer other than 2xx, with the contract envelope's message when there is one. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export async function errorOf(response: Response): Promise<ApiError> {
  let code = `http_${response.status}`;
  let message = `${response.status} ${response.statusText}`;
  try {
    // The contract's envelope: { error: <code>, message, details? }.
    const body = (await response.json()) as { error?: unknown; message?: unknown };
    if (typeof body.error === 'string') code = body.error;
    if (typeof body.message === 'string') message = body.message;
  } catch {
    // Not the envelope: keep the status line.
  }
  return new ApiError(response.status, code, message);
}

export class Api {
  constructor(readonly token: string) {}

  headers(extra: Record<string, string> = {}): Record<string, string> {
    return { authorization: `Bearer ${this.token}`, ...extra };
  }

  async fetch(path: string, init: RequestInit = {}): Promise<Response> {
    const response = await fetch(path, { ...init, headers: this.headers(init.headers as Record<string, string> | undefined), credentials: 'omit', cache: 'no-cache' });
    if (!response.ok && response.status !== 202) throw await errorOf(response);
    return response;
  }

  async json<T>(path: string): Promise<T> {
    return (await (await this.fetch(path, { headers: { accept: 'application/json' } })).json()) as T;
  }
}
