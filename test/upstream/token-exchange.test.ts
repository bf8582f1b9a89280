// `token-exchange`: the caller's own JWT (from the host's identity provider,
// here the local authorization server) is exchanged (RFC 8693) for a token
// with the upstream's audience, or forwarded unchanged. Real local servers:
// the authorization server signs the callers' JWTs and the exchanged tokens;
// an MCP server and a connector API accept only tokens for their own
// audience and report the subject and audience. Checked: two principals
// calling concurrently each reach the upstream as themselves with the
// exchanged audience; concurrent calls of one caller make one exchange and
// later calls reuse it; forward sends the caller's JWT; a refused exchange
// and an API-key caller get a clear isError; no token in answers, logs or
// the event store.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import pino from 'pino';
import { hashApiKey } from '../../src/auth/api-keys.js';
import { serve, type RunningServer } from '../../src/host/serve.js';
import { startAuthorizationServer, type AuthorizationServer } from '../auth/oauth-as-fixture.js';
import { tempDir, writeConfig } from '../helpers/server.js';
import { bearerTokens, startWhoamiApi, startWhoamiMcp, type Authenticate, type Upstream } from './fixtures.js';

const SERVICE = 'svc-listing-token-3f9b';
const CLIENT_SECRET = 'host-exchange-secret-0c4d9e';
let as: AuthorizationServer;
let mcp: Upstream;
let fwd: Upstream;
let denied: Upstream;
let api: Upstream & { document: string };
let host: RunningServer;
let dir: string;
const logs: string[] = [];
const clients: Client[] = [];
/** Every token an upstream accepted, and the callers' own JWTs: none may show anywhere. */
const tokens: string[] = [];

/** Accepts the service token, or a JWT of the authorization server for `audience`; reports `subject@audience`. */
function jwtFor(audience: string): Authenticate {
  const jwks = createRemoteJWKSet(new URL(as.jwksUrl));
  return async (req) => {
    const m = /^Bearer (.+)$/.exec(req.headers.authorization ?? '');
    if (!m) return undefined;
    if (m[1] === SERVICE) return bearerTokens({ [SERVICE]: 'service' })(req);
    try {
      const { payload } = await jwtVerify(m[1], jwks, { issuer: as.issuer, audience });
      tokens.push(m[1]);
      return `${payload.sub}@${audience}`;
    } catch {
      return undefined;
    }
  };
}

before(async () => {
  dir = tempDir();
  as = await startAuthorizationServer({ toolhost: { secret: CLIENT_SECRET, tenant: 'acme' } });
  as.refusedAudiences.add('urn:denied');
  [mcp, fwd, denied, api] = await Promise.all([startWhoamiMcp(jwtFor('urn:whoami')), startWhoamiMcp(jwtFor('toolhost')), startWhoamiMcp(jwtFor('urn:denied')), startWhoamiApi(jwtFor('urn:api'), dir)]);
  const exchange = (audience: string) => ({ mode: 'token-exchange', tokenExchange: { tokenEndpoint: `${as.issuer}token`, clientId: 'toolhost', clientSecret: { env: 'TE_SECRET' }, audience } });
  const shared = { headers: { Authorization: `Bearer ${SERVICE}` }, pingIntervalMs: 0, refreshIntervalMs: 0, transport: 'http' };
  const config = writeConfig(
    {
      tenants: { acme: { tools: ['*'] } },
      principals: [{ id: 'robot', tenant: 'acme', keyHash: hashApiKey('robot-key') }],
      auth: { jwt: { issuer: as.issuer, audience: 'toolhost', jwksUrl: as.jwksUrl } },
      events: { file: join(dir, 'events.sqlite') },
      sources: {
        mcp: [
          { id: 'who', url: mcp.url, ...shared, credentials: exchange('urn:whoami') },
          { id: 'fwd', url: fwd.url, ...shared, credentials: { mode: 'token-exchange', tokenExchange: { forward: true } } },
          { id: 'denied', url: denied.url, ...shared, credentials: { ...exchange('urn:denied'), label: 'Denied' } },
        ],
        connectors: [{ id: 'api', document: api.document, credentials: exchange('urn:api'), watch: false }],
      },
    },
    dir,
  );
  const logger = pino({ level: 'debug' }, { write: (line: string) => void logs.push(line) });
  host = await serve(config, { host: '127.0.0.1', port: 0, logger, env: { ...process.env, TE_SECRET: CLIENT_SECRET } });
});

after(async () => {
  for (const c of clients) await c.close().catch(() => {});
  await host?.close();
  await Promise.all([mcp?.close(), fwd?.close(), denied?.close(), api?.close(), as?.close()]);
});

async function client(bearer: string): Promise<Client> {
  const c = new Client({ name: 't', version: '1' });
  await c.connect(new StreamableHTTPClientTransport(new URL(`${host.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${bearer}` } } }));
  clients.push(c);
  return c;
}

const jwtOf = (sub: string) => as.sign({ sub, aud: 'toolhost', tenant: 'acme' });
const call = (c: Client, name: string) => c.callTool({ name, arguments: {} }) as Promise<CallToolResult>;
const textOf = (r: CallToolResult) => (r.content[0] as { text: string }).text;
const subjectOf = (r: CallToolResult) => (r.structuredContent as { subject?: string } | undefined)?.subject ?? JSON.parse(textOf(r)).body?.subject;

describe('token-exchange credentials', () => {
  const names: Record<string, string> = {};

  test('two principals calling concurrently each reach the upstream as themselves, with the exchanged audience', async () => {
    const [aliceJwt, bobJwt] = await Promise.all([jwtOf('alice'), jwtOf('bob')]);
    tokens.push(aliceJwt, bobJwt);
    const [alice, bob] = await Promise.all([client(aliceJwt), client(bobJwt)]);
    const { tools } = await alice.listTools();
    for (const prefix of ['mcp__who', 'mcp__fwd', 'mcp__denied', 'connector__api']) names[prefix] = tools.find((t) => t.name.startsWith(prefix))?.name ?? assert.fail(`no ${prefix} tool`);
    const round = (c: Client) => Promise.all([0, 1, 2].flatMap(() => [call(c, names.mcp__who), call(c, names.connector__api)]));
    const [a, b] = await Promise.all([round(alice), round(bob)]);
    for (const r of [...a, ...b]) assert.notEqual(r.isError, true, textOf(r));
    assert.deepEqual(a.map(subjectOf), ['alice@urn:whoami', 'alice@urn:api', 'alice@urn:whoami', 'alice@urn:api', 'alice@urn:whoami', 'alice@urn:api']);
    assert.deepEqual(b.map(subjectOf), ['bob@urn:whoami', 'bob@urn:api', 'bob@urn:whoami', 'bob@urn:api', 'bob@urn:whoami', 'bob@urn:api']);
    // What the upstream echoed of its Authorization header comes back scrubbed.
    const answers = JSON.stringify([...a, ...b]);
    assert.match(answers, /"authorization":"\[redacted\]"/);
    for (const t of tokens) assert.ok(!answers.includes(t), 'a token in an answer');
    // One exchange per caller and audience, for three concurrent calls each, sent as RFC 8693 says.
    const made = as.exchanges.map((e) => `${e.subject}>${e.audience}`).sort();
    assert.deepEqual(made, ['alice>urn:api', 'alice>urn:whoami', 'bob>urn:api', 'bob>urn:whoami']);
    assert.ok(as.exchanges.every((e) => e.clientId === 'toolhost' && e.subjectTokenType === 'urn:ietf:params:oauth:token-type:jwt'));
    // A later call reuses the cached token.
    assert.equal(subjectOf(await call(alice, names.mcp__who)), 'alice@urn:whoami');
    assert.equal(as.exchanges.length, 4);
  });

  test('forward sends the caller\'s own JWT unchanged', async () => {
    const carolJwt = await jwtOf('carol');
    tokens.push(carolJwt);
    const carol = await client(carolJwt);
    const before = as.exchanges.length;
    const r = await call(carol, names.mcp__fwd);
    assert.equal(subjectOf(r), 'carol@toolhost');
    assert.ok(!JSON.stringify(r).includes(carolJwt), 'the JWT echoed back is scrubbed');
    assert.equal(as.exchanges.length, before, 'no exchange');
    assert.ok(tokens.includes(carolJwt));
  });

  test('a refused exchange, or a caller without a JWT, gets a clear error result and reaches no upstream', async () => {
    const daveJwt = await jwtOf('dave');
    tokens.push(daveJwt);
    const dave = await client(daveJwt);
    const r = await call(dave, names.mcp__denied);
    assert.equal(r.isError, true);
    assert.equal(textOf(r), 'Denied could not be called as you: the token exchange was refused (invalid_target: this client may not get tokens for that audience).');
    assert.equal(r._meta?.['toolhost/connect'], undefined, 'nothing to connect');
    assert.deepEqual(denied.calls, []);
    const robot = await client('robot-key');
    const k = await call(robot, names.mcp__who);
    assert.equal(k.isError, true);
    assert.match(textOf(k), /caller's own JWT.*not an API key/);
    assert.ok(!mcp.calls.some((s) => s.startsWith('robot')));
  });

  test('no token or client secret in logs or the event store', async () => {
    await host.close();
    const haystacks = { logs: logs.join('\n'), events: readFileSync(join(dir, 'events.sqlite')).toString('latin1') };
    assert.ok(tokens.length >= 8);
    for (const [where, text] of Object.entries(haystacks)) {
      for (const t of [...tokens, CLIENT_SECRET]) assert.ok(!text.includes(t), `a token in the ${where}`);
    }
    assert.match(haystacks.logs, /an upstream token exchange failed/);
  });
});
