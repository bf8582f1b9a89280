// Upstream-credential config problems stop the start with the file, the
// place and the problem: a per-principal source without sealing keys or an
// event store, oauth on a connector or without a public URL, a query
// credential on an MCP server, a short signing key, a token exchange without its endpoint.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import pino from 'pino';
import { loadConfigFile } from '../../src/config/load.js';
import { EventLog } from '../../src/events/sqlite/log.js';
import { setUpUpstreamCredentials } from '../../src/host/upstream-credentials.js';
import { ConfigError } from '../../src/util/validated-yaml.js';
import { tempDir, writeConfig } from '../helpers/server.js';

const logger = pino({ level: 'silent' });

function problems(sources: Record<string, unknown>, extra: Record<string, unknown> = {}, withEvents = false): string[] {
  const dir = tempDir();
  writeConfig({ openapi: '3.1.0', info: { title: 't', version: '1' }, paths: {} }, dir, 'api.yaml');
  const file = writeConfig({ tenants: { acme: { tools: ['*'] } }, sources, ...extra }, dir);
  const log = withEvents ? EventLog.open(join(dir, 'events.sqlite')) : undefined;
  try {
    setUpUpstreamCredentials(loadConfigFile(file), { SHORT: 'short' }, log, logger);
    return [];
  } catch (err) {
    assert.ok(err instanceof ConfigError, String(err));
    return err.message.split('\n').map((l) => l.replace(file, '<file>'));
  } finally {
    void log?.close();
  }
}

const mcp = (credentials: unknown) => ({ mcp: [{ id: 'm', transport: 'http', url: 'http://127.0.0.1:9/mcp', credentials }] });

test('per-principal needs an event store and sealing keys', () => {
  const p = problems(mcp({ mode: 'per-principal' }));
  assert.ok(p.some((l) => /<file>: \/sources\/mcp\/0\/credentials\/mode: per-principal credentials are stored in the event store/.test(l)), p.join('\n'));
  assert.ok(p.some((l) => /upstreamCredentials\.keys/.test(l)));
});

test('oauth only for MCP servers, and only with a public URL; no query credential for MCP; signing keys of 32 bytes', () => {
  const keys = { upstreamCredentials: { keys: [{ id: 'k', secret: { env: 'SHORT' } }] } };
  assert.ok(problems({ connectors: [{ id: 'c', document: 'api.yaml', credentials: { mode: 'oauth' } }] }, keys, true).some((l) => /\/sources\/connectors\/0\/credentials\/mode: oauth is supported for MCP servers/.test(l)));
  assert.ok(problems(mcp({ mode: 'oauth' }), keys, true).some((l) => /oauth needs upstreamCredentials\.publicUrl/.test(l)));
  assert.ok(problems(mcp({ mode: 'per-principal', type: 'query', name: 'k' }), keys, true).some((l) => /\/credentials\/type: an MCP server takes its credential in a header/.test(l)));
  assert.ok(problems(mcp({ mode: 'identity-headers', sign: { key: { env: 'SHORT' } } })).some((l) => /sign\/key: the signing key must be at least 32 bytes/.test(l)));
  assert.ok(problems(mcp({ mode: 'per-principal' }), keys, true).some((l) => /keys\/0\/secret: a sealing key must be 32 bytes/.test(l)));
});

test('shared (the default) needs nothing', () => {
  assert.deepEqual(problems(mcp({ mode: 'shared' })), []);
});

test('token-exchange needs a token endpoint unless it forwards, and a client id with its secret; no event store or keys', () => {
  assert.deepEqual(problems(mcp({ mode: 'token-exchange', tokenExchange: { tokenEndpoint: 'https://idp.example/token' } })), []);
  assert.deepEqual(problems(mcp({ mode: 'token-exchange', tokenExchange: { forward: true } })), []);
  assert.deepEqual(problems(mcp({ mode: 'token-exchange' })), ["<file>: /sources/mcp/0/credentials/tokenExchange: token-exchange needs tokenExchange.tokenEndpoint (or forward: true to send the caller's JWT unchanged)"]);
  const p = problems(mcp({ mode: 'token-exchange', tokenExchange: { tokenEndpoint: 'https://idp.example/token', clientSecret: { env: 'NOT_SET' } } }));
  assert.ok(p.some((l) => /tokenExchange\/clientSecret: a client secret needs tokenExchange\.clientId/.test(l)), p.join('\n'));
  assert.ok(p.some((l) => /tokenExchange\/clientSecret/.test(l) && /NOT_SET/.test(l)), p.join('\n'));
});
