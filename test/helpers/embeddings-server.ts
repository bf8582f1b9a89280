// A stand-in for a local model server: an OpenAI-compatible
// `POST /v1/embeddings` on loopback whose vectors are a bag of words with a
// few hand-made synonyms ("holler" lies where "uppercase" does), so a test can
// tell its ranking from the words' own. It counts requests and texts, keeps
// the Authorization headers it saw, and can be told to hang or fail.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

const DIMENSIONS = 32;
/** Words that share a dimension: what a sentence model knows and a term index does not. */
const CONCEPTS: readonly (readonly string[])[] = [
  ['holler', 'uppercase', 'capitals', 'upper'],
  ['tally', 'count', 'words'],
];

function hash(word: string): number {
  let h = 2166136261;
  for (let i = 0; i < word.length; i++) h = Math.imul(h ^ word.charCodeAt(i), 16777619);
  return h >>> 0;
}

/** The stand-in model: a bag of words, each word in its concept's dimension or a hashed one. */
export function standInVector(text: string): number[] {
  const v = new Array<number>(DIMENSIONS).fill(0);
  for (const w of text.toLowerCase().split(/[^a-z]+/)) {
    if (w.length < 3) continue;
    const concept = CONCEPTS.findIndex((c) => c.includes(w));
    v[concept >= 0 ? concept : CONCEPTS.length + (hash(w) % (DIMENSIONS - CONCEPTS.length))] += concept >= 0 ? 3 : 1;
  }
  return v;
}

export type Mode = 'ok' | 'hang' | 'fail';

export interface EmbeddingsServer {
  url: string;
  /** Requests answered or held, and the texts they asked for. */
  requests: number;
  texts: string[];
  authorizations: (string | undefined)[];
  mode: Mode;
  close(): Promise<void>;
}

async function bodyOf(req: IncomingMessage): Promise<{ model?: string; input?: string[] }> {
  let text = '';
  for await (const chunk of req) text += chunk;
  return JSON.parse(text);
}

export async function startEmbeddingsServer(mode: Mode = 'ok'): Promise<EmbeddingsServer> {
  let server: Server;
  const state = { requests: 0, texts: [] as string[], authorizations: [] as (string | undefined)[], mode };
  server = createServer(async (req, res) => {
    if (req.method !== 'POST' || req.url !== '/v1/embeddings') return void res.writeHead(404).end();
    const body = await bodyOf(req);
    state.requests++;
    state.authorizations.push(req.headers.authorization);
    const input = body.input ?? [];
    state.texts.push(...input);
    if (state.mode === 'hang') return; // never answers: the client's deadline ends it
    if (state.mode === 'fail') return void res.writeHead(500, { 'content-type': 'application/json' }).end('{"error":"model not loaded"}');
    const data = input.map((t, index) => ({ object: 'embedding', index, embedding: standInVector(t) }));
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ object: 'list', model: body.model, data }));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return Object.assign(state, {
    url: `http://127.0.0.1:${port}/v1/embeddings`,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  });
}
