// A stand-in embeddings endpoint for checking bench/search-quality.ts's
// `--embeddings` path at scale, where no model server runs: an
// OpenAI-compatible `POST /v1/embeddings` on loopback whose vector of a text
// is the word vectors' mean (meaning.ts). Ranked alone through the endpoint
// path (`--rankers endpoint`) it should score about what `meaning` does; it
// says nothing of what a sentence model would.
//
//   node --import tsx bench/embeddings-stand-in.ts [port]   (prints its URL; stop with Ctrl-C)
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { queryVector } from '../src/catalog/search/meaning.js';
import { loadWordVectors } from '../src/catalog/search/word-vectors.js';

const vectors = await loadWordVectors();
if (vectors === undefined) throw new Error('the optional word vectors package is not installed');
const server = createServer(async (req, res) => {
  let text = '';
  for await (const chunk of req) text += chunk;
  const input = (JSON.parse(text) as { input: string[] }).input;
  const data = input.map((t, index) => ({ index, embedding: Array.from(queryVector(vectors, t) ?? new Float32Array(vectors.dimensions)) }));
  res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ data }));
});
server.listen(Number(process.argv[2] ?? 0), '127.0.0.1', () => console.log(`http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/embeddings`));
