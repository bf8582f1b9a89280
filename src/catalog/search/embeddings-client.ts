// The client of an operator's embeddings endpoint (docs/search.md "An
// embeddings endpoint"): an OpenAI-compatible `POST /v1/embeddings`, such as
// a local model server, asked for one vector per text. Its answers are
// checked before use (an upstream is untrusted), every request has a
// deadline, and an error says what went wrong without the key or the texts:
// the caller logs it and ranks without the endpoint.

/** How to reach the endpoint; the key is read from its secret reference by the host. */
export interface EmbeddingsEndpoint {
  url: string;
  model: string;
  apiKey?: string;
}

/** A failed request: the message names the endpoint's host and the problem, never the key or the texts. */
export class EmbeddingsError extends Error {}

/** Texts per request at most (OpenAI's own limit is 2,048 inputs). */
export const MAX_BATCH = 64;
/** A vector's dimensions at most: refuses an answer that would take unbounded memory per tool. */
const MAX_DIMENSIONS = 8192;

function where(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}${u.pathname}`;
  } catch {
    return 'the embeddings endpoint';
  }
}

function vectorOf(item: unknown, at: number): Float32Array {
  const embedding = (item as { embedding?: unknown } | null)?.embedding;
  if (!Array.isArray(embedding) || embedding.length === 0 || embedding.length > MAX_DIMENSIONS) throw new EmbeddingsError(`answer item ${at} has no embedding`);
  const v = new Float32Array(embedding.length);
  for (let i = 0; i < embedding.length; i++) {
    const x = embedding[i];
    if (typeof x !== 'number' || !Number.isFinite(x)) throw new EmbeddingsError(`answer item ${at} has a non-number in its embedding`);
    v[i] = x;
  }
  return v;
}

/** The vectors of an answer's `data`, in the order of the texts asked (`index` when given, else the order given). */
function vectorsOf(body: unknown, count: number): Float32Array[] {
  const data = (body as { data?: unknown } | null)?.data;
  if (!Array.isArray(data) || data.length !== count) throw new EmbeddingsError(`answer has ${Array.isArray(data) ? data.length : 'no'} vectors for ${count} texts`);
  const out = new Array<Float32Array>(count);
  data.forEach((item, i) => {
    const index = (item as { index?: unknown } | null)?.index;
    const at = typeof index === 'number' && Number.isInteger(index) && index >= 0 && index < count ? index : i;
    out[at] = vectorOf(item, i);
  });
  for (let i = 0; i < count; i++) if (out[i] === undefined || out[i].length !== out[0].length) throw new EmbeddingsError('answer vectors differ in number or dimensions');
  return out;
}

/** The texts' vectors, or an EmbeddingsError after `timeoutMs` or on any failure. */
export async function embed(endpoint: EmbeddingsEndpoint, texts: readonly string[], timeoutMs: number): Promise<Float32Array[]> {
  const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json' };
  if (endpoint.apiKey !== undefined) headers.authorization = `Bearer ${endpoint.apiKey}`;
  const signal = AbortSignal.timeout(timeoutMs);
  let response: Response;
  try {
    response = await fetch(endpoint.url, { method: 'POST', headers, body: JSON.stringify({ model: endpoint.model, input: texts }), signal, redirect: 'error' });
  } catch (err) {
    const timedOut = (err as Error).name === 'TimeoutError' || signal.aborted;
    throw new EmbeddingsError(`${where(endpoint.url)}: ${timedOut ? `no answer within ${timeoutMs} ms` : 'request failed'}`);
  }
  let body: unknown;
  try {
    if (!response.ok) throw new EmbeddingsError(`${where(endpoint.url)}: HTTP ${response.status}`);
    body = await response.json();
  } catch (err) {
    // An unread body keeps the connection busy.
    await response.body?.cancel().catch(() => undefined);
    if (err instanceof EmbeddingsError) throw err;
    throw new EmbeddingsError(`${where(endpoint.url)}: ${signal.aborted ? `no answer within ${timeoutMs} ms` : 'answer is not JSON'}`);
  }
  try {
    return vectorsOf(body, texts.length);
  } catch (err) {
    throw new EmbeddingsError(`${where(endpoint.url)}: ${(err as Error).message}`);
  }
}
