// The catalog's reads answered on node:http (src/http/catalog-fast-path.ts)
// are the fastify routes' answers, byte for byte: for random requests (ids
// visible, invisible, unknown and percent-encoded, views and other queries,
// credentials good, wrong and malformed, protocol versions, encodings,
// If-None-Match values), the answer over a real socket (the fast path, or
// fastify when it declines) and the answer of fastify's own routes
// (`app.inject`, which never passes the server's request listener) have the
// same status, the same headers in the same order (Node's Date, Connection
// and Keep-Alive apart) and the same body, and each request writes the same
// audit line and the same request count.
import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { test } from 'node:test';
import fc from 'fast-check';
import { parse, stringify } from 'yaml';
import { readFileSync, writeFileSync } from 'node:fs';
import { ACME_KEY, demoConfig, GLOBEX_KEY, startTestServer } from '../helpers/server.js';

interface Answer {
  status: number;
  headers: [string, string][];
  body: string;
}

const NODE_HEADERS = new Set(['date', 'connection', 'keep-alive', 'transfer-encoding']);

function overSocket(url: string, path: string, headers: Record<string, string>): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(new URL(path, url), { method: 'GET', headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const pairs: [string, string][] = [];
        for (let i = 0; i < res.rawHeaders.length; i += 2) pairs.push([res.rawHeaders[i].toLowerCase(), res.rawHeaders[i + 1]]);
        resolve({ status: res.statusCode ?? 0, headers: pairs.filter(([n]) => !NODE_HEADERS.has(n)), body: Buffer.concat(chunks).toString('latin1') });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

const KNOWN = ['openwop:text.uppercase', 'openwop:text.wordcount', 'openwop:notes.list', 'openwop:notes.add', 'x-host-toolhost-clock', 'mcp:everything.echo', 'connector:tickets.listTickets', 'workflow:nope', 'mcp:everything.nope'];

const idArb = fc.oneof(
  fc.constantFrom(...KNOWN),
  fc.constantFrom(...KNOWN).map(encodeURIComponent),
  fc.constantFrom(...KNOWN).map((id) => id.replace(':', '%3a')),
  fc.stringMatching(/^[a-z0-9:._%-]{0,24}$/),
  fc.constantFrom('%', '%zz', 'a%2', '', 'a/b', '%2F', 'openwop:text.uppercase/'),
);
const pathArb = fc.record({
  list: fc.boolean(),
  id: idArb,
  query: fc.constantFrom('', '', '?view=compact', '?view=compact', '?view=standard', '?view=compact&x=1', '?', '?view=compact&view=compact'),
}).map(({ list, id, query }) => (list ? `/tools${query}` : `/tools/${id}${query}`));

const headersArb = fc.record(
  {
    authorization: fc.constantFrom(`Bearer ${ACME_KEY}`, `Bearer ${ACME_KEY}`, `Bearer ${GLOBEX_KEY}`, 'Bearer wrong-key', 'Basic abc', 'Bearer', `bearer  ${ACME_KEY}`),
    'openwop-version': fc.constantFrom('2.0', '2', '2.1', '3.0', 'x', ''),
    'accept-encoding': fc.constantFrom('gzip', 'br', 'gzip, br', 'identity', 'br;q=0, gzip', '*', 'gzip;q=0'),
    'if-none-match': fc.constantFrom('*', 'W/"x"', '"nope"', 'ETAG', 'ETAG-gzip', 'W/ETAG, "other"'),
  },
  { requiredKeys: [] },
);

test('fast path and fastify routes answer every catalog read alike', { timeout: 240_000 }, async () => {
  // The demo config without rate limits: both paths draw from the same buckets, so a 429 would depend on order.
  const file = demoConfig();
  const config = parse(readFileSync(file, 'utf8'));
  config.auth = { ...(config.auth ?? {}), defaultRateLimit: false };
  writeFileSync(file, stringify(config));
  const server = await startTestServer(file);
  const { app, host } = server.running;
  // Audit lines are written in the check phase of the turn that answered (src/http/audit-lines.ts): after this one.
  const auditLinesWritten = () => new Promise<void>((resolve) => setImmediate(resolve));
  const auditOf = (lines: string[]) =>
    lines
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .filter((l) => l.audit === true)
      .map(({ time: _t, durationMs: _d, ...rest }) => rest);
  /** Every series of the request and refusal counts, by name and labels. */
  const counts = async (): Promise<Map<string, number>> => {
    const text = (await host.metrics.registry.getSingleMetricAsString('toolhost_http_requests_total')) + '\n' + (await host.metrics.registry.getSingleMetricAsString('toolhost_auth_failures_total'));
    const series = new Map<string, number>();
    for (const line of text.split('\n')) {
      const m = /^(\S+) (\d+)$/.exec(line);
      if (m) series.set(m[1], Number(m[2]));
    }
    return series;
  };
  const grown = (from: Map<string, number>, to: Map<string, number>) => [...to].filter(([k, v]) => v !== (from.get(k) ?? 0)).map(([k, v]) => `${k} +${v - (from.get(k) ?? 0)}`).sort();
  try {
    await fc.assert(
      fc.asyncProperty(pathArb, headersArb, async (path, given) => {
        const headers: Record<string, string> = { ...given };
        // ETAG stands for the resource's own tag, as a client revalidating would send it.
        if (headers['if-none-match']?.includes('ETAG')) {
          const plain = await app.inject({ method: 'GET', url: path, headers: { authorization: headers.authorization ?? '', 'accept-encoding': headers['accept-encoding'] ?? '' } });
          const etag = String(plain.headers.etag ?? '"none"');
          headers['if-none-match'] = headers['if-none-match'].replace('ETAG-gzip', etag.replace(/"$/, '-gzip"')).replace('ETAG', etag);
        }
        await auditLinesWritten();
        const logged = server.logs.length;
        const before = await counts();
        const fast = await overSocket(server.url, path, headers);
        await auditLinesWritten();
        const fastAudit = auditOf(server.logs.slice(logged));
        const fastCounts = await counts();

        const logged2 = server.logs.length;
        const injected = await app.inject({ method: 'GET', url: path, headers });
        await auditLinesWritten();
        const injectedAudit = auditOf(server.logs.slice(logged2));
        const injectedCounts = await counts();
        const slow: Answer = {
          status: injected.statusCode,
          headers: Object.entries(injected.headers)
            .filter(([n]) => !NODE_HEADERS.has(n))
            .map(([n, v]) => [n, String(v)]),
          body: injected.rawPayload.toString('latin1'),
        };
        assert.deepEqual(fast, slow, `${path} ${JSON.stringify(headers)}`);
        assert.deepEqual(fastAudit, injectedAudit, 'the same audit line');
        assert.deepEqual(grown(before, fastCounts), grown(fastCounts, injectedCounts), 'the same request count');
      }),
      { numRuns: 300 },
    );
  } finally {
    await server.close();
  }
});
