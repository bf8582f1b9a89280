// JWT bearer tokens over HTTP (docs/auth.md): a real host on a loopback port,
// a real JWKS served by node:http, tokens signed with jose (RS256 and ES256).
// Every rejection is a 401 with `error="invalid_token"` and a message naming
// the failed check, never the token.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { exportJWK, exportSPKI, SignJWT, type JWK } from 'jose';
import { hashApiKey } from '../../src/auth/api-keys.js';
import { request, startTestServer, tempDir, writeConfig, type HttpResult, type TestServer } from '../helpers/server.js';
import { AUDIENCE, b64url, eventually, ISSUER, jwksOf, makeKey, signToken, startJwksServer, type JwksServer, type SigningKey } from './jwt-fixture.js';

const TOOLS = [
  { vendor: 'a', name: 'open', command: ['true'] },
  { vendor: 'a', name: 'scoped', command: ['true'], scopes: ['s1'] },
  { vendor: 'a', name: 'both', command: ['true'], scopes: ['s1', 's2'] },
  { vendor: 'b', name: 'other', command: ['true'] },
];

function config(jwt: Record<string, unknown>, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    auth: { jwt: { issuer: ISSUER, audience: AUDIENCE, ...jwt }, defaultRateLimit: false },
    tenants: { acme: { tools: ['x-host-a-*'] }, globex: { tools: ['x-host-b-*'] } },
    principals: [{ id: 'key-agent', tenant: 'globex', keyHash: hashApiKey('plain-api-key') }],
    sources: { hostExtensions: TOOLS },
    ...extra,
  };
}

const ids = (res: HttpResult): string[] => res.json().map((d: { toolId: string }) => d.toolId);

/** Asserts a 401 invalid_token whose message matches `check` and does not hold the token. */
function assertRejected(res: HttpResult, token: string, check: RegExp): void {
  assert.equal(res.status, 401, res.text);
  assert.equal(res.headers.get('www-authenticate'), 'Bearer realm="toolhost", error="invalid_token"');
  const body = res.json();
  assert.deepEqual(Object.keys(body).sort(), ['error', 'message']);
  assert.equal(body.error, 'unauthenticated');
  assert.match(body.message, check);
  for (const part of token.split('.')) if (part.length > 8) assert.ok(!res.text.includes(part), 'the token is not echoed');
}

describe('JWT against a remote JWKS', () => {
  let jwks: JwksServer;
  let server: TestServer;
  let rsa: SigningKey;
  let ec: SigningKey;

  before(async () => {
    rsa = await makeKey('rsa-1', 'RS256');
    ec = await makeKey('ec-1', 'ES256');
    jwks = await startJwksServer(jwksOf(rsa, ec));
    server = await startTestServer(writeConfig(config({ jwksUrl: jwks.url, jwks: { cooldownSec: 0 } })));
  });
  after(async () => {
    await server.close();
    await jwks.close();
  });

  const get = (path: string, token: string) => request(server.url, path, { token });

  test('a valid RS256 or ES256 token sees its tenant tools, by list and by id', async () => {
    for (const key of [rsa, ec]) {
      const token = await signToken(key, { tenant: 'acme', scope: 's1 s2' });
      const list = await get('/tools', token);
      assert.equal(list.status, 200, list.text);
      assert.deepEqual(ids(list), ['x-host-a-both', 'x-host-a-open', 'x-host-a-scoped']);
      assert.equal((await get('/tools/x-host-a-scoped', token)).status, 200);
      assert.equal((await get('/tools/x-host-b-other', token)).status, 404);
    }
    const globex = await signToken(ec, { tenant: 'globex' });
    assert.deepEqual(ids(await get('/tools', globex)), ['x-host-b-other']);
  });

  test('API keys keep working beside JWTs', async () => {
    const res = await get('/tools', 'plain-api-key');
    assert.equal(res.status, 200);
    assert.deepEqual(ids(res), ['x-host-b-other']);
    assertRejected(await get('/tools', 'not-a-known-key'), 'not-a-known-key', /unknown or revoked API key/);
  });

  test('the scopes claim decides the list: string or array, same tenant, different lists', async () => {
    const cases: [unknown, string[]][] = [
      [undefined, ['x-host-a-open']],
      ['', ['x-host-a-open']],
      ['s1', ['x-host-a-open', 'x-host-a-scoped']],
      [['s1'], ['x-host-a-open', 'x-host-a-scoped']],
      ['s2  s1', ['x-host-a-both', 'x-host-a-open', 'x-host-a-scoped']],
      [['s2', 's1', 'unrelated'], ['x-host-a-both', 'x-host-a-open', 'x-host-a-scoped']],
      [['s2'], ['x-host-a-open']],
    ];
    for (const [scope, expected] of cases) {
      const token = await signToken(rsa, { tenant: 'acme', scope });
      assert.deepEqual(ids(await get('/tools', token)), expected, JSON.stringify(scope));
    }
    const bad = await signToken(rsa, { tenant: 'acme', scope: { s1: true } });
    assertRejected(await get('/tools', bad), bad, /scopes claim \(scope\) is malformed/);
  });

  test('expired, not yet valid, wrong issuer, wrong audience: 401 naming the check', async () => {
    const now = Math.floor(Date.now() / 1000);
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ exp: now - 120 }, /expired/],
      [{ nbf: now + 3600 }, /not yet valid/],
      [{ iss: 'https://evil.example/' }, /issuer unknown/],
      [{ aud: 'some-other-service' }, /audience wrong/],
      [{ exp: undefined }, /no expiry claim \(exp\)/],
      [{ iss: undefined }, /no issuer claim/],
    ];
    for (const [claims, check] of cases) {
      const token = await signToken(rsa, { tenant: 'acme', ...claims });
      assertRejected(await get('/tools', token), token, check);
      assertRejected(await get('/tools/x-host-a-open', token), token, check);
    }
  });

  test('within the clock tolerance (30 s) a just-expired token still passes', async () => {
    const now = Math.floor(Date.now() / 1000);
    const token = await signToken(rsa, { tenant: 'acme', exp: now - 5 });
    assert.equal((await get('/tools', token)).status, 200);
  });

  test('missing tenant claim, unknown tenant, missing sub: 401', async () => {
    const noTenant = await signToken(rsa, {});
    assertRejected(await get('/tools', noTenant), noTenant, /no tenant claim \(tenant\)/);
    const unknown = await signToken(rsa, { tenant: 'initech' });
    assertRejected(await get('/tools', unknown), unknown, /tenant unknown/);
    const numeric = await signToken(rsa, { tenant: 42 });
    assertRejected(await get('/tools', numeric), numeric, /tenant unknown/);
    const noSub = await signToken(rsa, { tenant: 'acme', sub: undefined });
    assertRejected(await get('/tools', noSub), noSub, /no usable principal claim \(sub\)/);
  });

  test('tampered payload: bad signature', async () => {
    const token = await signToken(rsa, { tenant: 'globex' });
    const [h, p, s] = token.split('.');
    const claims = JSON.parse(Buffer.from(p, 'base64url').toString('utf8'));
    claims.tenant = 'acme';
    claims.scope = 's1 s2';
    const tampered = `${h}.${b64url(JSON.stringify(claims))}.${s}`;
    assertRejected(await get('/tools', tampered), tampered, /signature invalid/);
    // A signature from another key under a known kid is just as bad.
    const other = await makeKey('rsa-1', 'RS256');
    const forged = await signToken(other, { tenant: 'acme' });
    assertRejected(await get('/tools', forged), forged, /signature invalid/);
  });

  test('alg none and HS256 keyed with the public key: algorithm not allowed', async () => {
    const now = Math.floor(Date.now() / 1000);
    const claims = { iss: ISSUER, aud: AUDIENCE, sub: 'x', tenant: 'acme', exp: now + 300 };
    const none = `${b64url(JSON.stringify({ alg: 'none', kid: rsa.kid }))}.${b64url(JSON.stringify(claims))}.`;
    assertRejected(await get('/tools', none), none, /algorithm not allowed/);
    const pem = await exportSPKI(rsa.publicKey);
    const hs = await new SignJWT(claims).setProtectedHeader({ alg: 'HS256', kid: rsa.kid }).sign(new TextEncoder().encode(pem));
    assertRejected(await get('/tools', hs), hs, /algorithm not allowed/);
    const hsJwk = await new SignJWT(claims).setProtectedHeader({ alg: 'HS256', kid: rsa.kid }).sign(new TextEncoder().encode(JSON.stringify(rsa.jwk)));
    assertRejected(await get('/tools', hsJwk), hsJwk, /algorithm not allowed/);
  });

  test('unknown kid: 401 after one re-fetch of the key set', async () => {
    const stranger = await makeKey('who-is-this', 'ES256');
    const token = await signToken(stranger, { tenant: 'acme' });
    const hits = jwks.hits;
    assertRejected(await get('/tools', token), token, /key id unknown/);
    assert.equal(jwks.hits, hits + 1, 'an unknown kid triggers one JWKS fetch');
  });

  test('JWT-shaped garbage is a 401 for the JWT, not handed to the API keys; JWE is refused', async () => {
    const garbage = 'eyJhbGciOiJSUzI1NiJ9.bm90IGpzb24.c2ln';
    assertRejected(await get('/tools', garbage), garbage, /^JWT /);
    const jwe = 'eyJhbGciOiJSU0EtT0FFUCJ9.a.b.c.d';
    assertRejected(await get('/tools', jwe), jwe, /encrypted/);
  });

  test('key rotation: a new kid published on the JWKS is picked up without a restart; the retired key stops working', async () => {
    const next = await makeKey('rsa-2', 'RS256');
    const early = await signToken(next, { tenant: 'acme' });
    assertRejected(await get('/tools', early), early, /key id unknown/);
    jwks.setKeys(jwksOf(next, ec));
    const token = await signToken(next, { tenant: 'acme' });
    assert.equal((await get('/tools', token)).status, 200);
    // rsa-1 is gone from the set: its fresh tokens are unknown now.
    const retired = await signToken(rsa, { tenant: 'acme' });
    assertRejected(await get('/tools', retired), retired, /key id unknown/);
    jwks.setKeys(jwksOf(rsa, ec));
  });
});

describe('JWKS endpoint down', () => {
  // No assertion here depends on how fast the machine is: the stale window is
  // either far longer than the test (an hour) or waited out by polling, and
  // every wait's deadline only guards against a hang.
  test('while the JWKS is down, the last good keys verify new tokens within maxStaleSec; an unknown kid is still unknown', async () => {
    const key = await makeKey('k1', 'ES256');
    const jwks = await startJwksServer(jwksOf(key));
    const server = await startTestServer(writeConfig(config({ jwksUrl: jwks.url, jwks: { refreshSec: 0.3, maxStaleSec: 3600, cooldownSec: 0.1, timeoutMs: 500 } })));
    try {
      const fresh = () => signToken(key, { tenant: 'acme' });
      assert.equal((await request(server.url, '/tools', { token: await fresh() })).status, 200);
      jwks.setMode('reset');
      // Past refreshSec each request starts a background fetch; it fails, and the keys in hand still verify.
      const sawFailure = await eventually(async () => {
        const res = await request(server.url, '/tools', { token: await fresh() });
        assert.equal(res.status, 200, res.text);
        return server.logs.some((l) => l.includes('JWKS fetch failed; using the last good keys'));
      }, 30_000);
      assert.ok(sawFailure, 'a failed background fetch was logged');
      assert.equal((await request(server.url, '/tools', { token: await fresh() })).status, 200, 'stale keys still verify');
      const stranger = await makeKey('k-unknown', 'ES256');
      const tok = await signToken(stranger, { tenant: 'acme' });
      assertRejected(await request(server.url, '/tools', { token: tok }), tok, /key id unknown/);
    } finally {
      await server.close();
      await jwks.close();
    }
  });

  test('past refreshSec + maxStaleSec without a fetch: 503 unavailable, also for a token verified before; back up, it recovers', async () => {
    const key = await makeKey('k1', 'ES256');
    const jwks = await startJwksServer(jwksOf(key));
    const server = await startTestServer(writeConfig(config({ jwksUrl: jwks.url, jwks: { refreshSec: 0.3, maxStaleSec: 0.3, cooldownSec: 0.1, timeoutMs: 500 } })));
    try {
      const fresh = () => signToken(key, { tenant: 'acme' });
      const remembered = await fresh();
      // While the JWKS answers, the token is verified (and remembered); keys are refetched as needed.
      assert.ok(await eventually(async () => (await request(server.url, '/tools', { token: remembered })).status === 200, 30_000));
      jwks.setMode('reset');
      let gone: HttpResult | undefined;
      assert.ok(
        await eventually(async () => {
          gone = await request(server.url, '/tools', { token: remembered });
          return gone.status === 503;
        }, 30_000),
        'the keys expire once no fetch succeeds',
      );
      assert.equal(gone!.json().error, 'toolhost.unavailable');
      assert.match(gone!.json().message, /signing keys unavailable/);
      jwks.setMode('ok');
      assert.ok(await eventually(async () => (await request(server.url, '/tools', { token: await fresh() })).status === 200, 30_000));
    } finally {
      await server.close();
      await jwks.close();
    }
  });

  test('never fetched (JWKS down at start): 503 for JWTs, API keys unaffected', async () => {
    const key = await makeKey('k1', 'RS256');
    const jwks = await startJwksServer(jwksOf(key));
    jwks.setMode('error');
    const server = await startTestServer(writeConfig(config({ jwksUrl: jwks.url, jwks: { cooldownSec: 0 } })));
    try {
      const res = await request(server.url, '/tools', { token: await signToken(key, { tenant: 'acme' }) });
      assert.equal(res.status, 503);
      assert.match(res.json().message, /has not been fetched \(HTTP 503\)/);
      assert.equal((await request(server.url, '/tools', { token: 'plain-api-key' })).status, 200);
      jwks.setMode('ok');
      assert.equal((await request(server.url, '/tools', { token: await signToken(key, { tenant: 'acme' }) })).status, 200);
    } finally {
      await server.close();
      await jwks.close();
    }
  });
});

describe('a JWKS holding private or symmetric key material is refused', () => {
  // A published key set must hold public keys only: a private JWK (with `d`)
  // means the signing key leaked, and an `oct` key is a shared secret.
  async function badSets(): Promise<{ name: string; key: SigningKey; jwks: { keys: JWK[] } }[]> {
    const rsa = await makeKey('leaked-rsa', 'RS256');
    const ec = await makeKey('leaked-ec', 'ES256');
    const privateJwk = async (k: SigningKey) => ({ ...(await exportJWK(k.privateKey)), kid: k.kid, alg: k.alg, use: 'sig' });
    const oct: JWK = { kty: 'oct', k: b64url('a-shared-secret-of-32-bytes-long'), kid: 'shared', alg: 'HS256' };
    return [
      { name: 'a private RSA key', key: rsa, jwks: { keys: [await privateJwk(rsa)] } },
      { name: 'a private EC key beside a public one', key: ec, jwks: { keys: [rsa.jwk, await privateJwk(ec)] } },
      { name: 'an oct key beside a good public one', key: rsa, jwks: { keys: [rsa.jwk, oct] } },
    ];
  }

  test('remote: the set is not used (503 for JWTs, the reason in the message), tokens of its keys are never accepted', async () => {
    for (const { name, key, jwks: set } of await badSets()) {
      const jwks = await startJwksServer(set);
      const server = await startTestServer(writeConfig(config({ jwksUrl: jwks.url, jwks: { cooldownSec: 0 } })));
      try {
        const res = await request(server.url, '/tools', { token: await signToken(key, { tenant: 'acme' }) });
        assert.equal(res.status, 503, `${name}: ${res.text}`);
        assert.match(res.json().message, /private or symmetric key material/, name);
        for (const k of set.keys) for (const secret of [k.d, k.k]) if (secret) assert.ok(!res.text.includes(secret), 'no key material echoed');
      } finally {
        await server.close();
        await jwks.close();
      }
    }
  });

  test('file: a start-up error naming the file', async () => {
    for (const { name, jwks: set } of await badSets()) {
      const dir = tempDir();
      writeFileSync(join(dir, 'jwks.json'), JSON.stringify(set));
      await assert.rejects(startTestServer(writeConfig(config({ jwksFile: 'jwks.json' }), dir)), (err: Error) => /jwks\.json: invalid JWKS: the key set holds private or symmetric key material/.test(err.message), name);
    }
  });
});

describe('JWT against a local JWKS file', () => {
  test('verifies against the file, reloads it on change, keeps the last good set on a broken edit', async () => {
    const k1 = await makeKey('file-1', 'RS256');
    const k2 = await makeKey('file-2', 'ES256');
    const dir = tempDir();
    const jwksFile = join(dir, 'jwks.json');
    writeFileSync(jwksFile, JSON.stringify(jwksOf(k1)));
    const server = await startTestServer(
      writeConfig(config({ jwksFile: 'jwks.json', claims: { tenant: ['org', 'tenant'], scopes: 'scp', principal: 'client_id' } }), dir),
    );
    try {
      const t1 = await signToken(k1, { org: { tenant: 'acme' }, scp: ['s1'], client_id: 'svc-1' });
      assert.deepEqual(ids(await request(server.url, '/tools', { token: t1 })), ['x-host-a-open', 'x-host-a-scoped']);
      const noClient = await signToken(k1, { org: { tenant: 'acme' } });
      assertRejected(await request(server.url, '/tools', { token: noClient }), noClient, /principal claim \(client_id\)/);
      const flat = await signToken(k1, { tenant: 'acme', client_id: 'svc-1' });
      assertRejected(await request(server.url, '/tools', { token: flat }), flat, /no tenant claim \(org\.tenant\)/);

      const t2 = await signToken(k2, { org: { tenant: 'acme' }, client_id: 'svc-2' });
      assertRejected(await request(server.url, '/tools', { token: t2 }), t2, /key id unknown/);
      writeFileSync(jwksFile, JSON.stringify(jwksOf(k1, k2)));
      assert.ok(await eventually(async () => (await request(server.url, '/tools', { token: await signToken(k2, { org: { tenant: 'acme' }, client_id: 'svc-2' }) })).status === 200));

      writeFileSync(jwksFile, '{"keys": [ broken');
      assert.ok(await eventually(async () => server.logs.some((l) => l.includes('JWKS file rejected'))));
      assert.equal((await request(server.url, '/tools', { token: await signToken(k2, { org: { tenant: 'acme' }, client_id: 'svc-2' }) })).status, 200);
    } finally {
      await server.close();
    }
  });
});

describe('JWT config', () => {
  test('HS256 or none in algorithms, both or neither key source, are start-up errors', async () => {
    const { loadConfigFile } = await import('../../src/config/load.js');
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ jwksUrl: 'https://idp.example/jwks', algorithms: ['HS256'] }, /\/auth\/jwt\/algorithms\/0: must be one of/],
      [{ jwksUrl: 'https://idp.example/jwks', algorithms: ['none'] }, /\/auth\/jwt\/algorithms\/0: must be one of/],
      [{ jwksUrl: 'https://idp.example/jwks', jwksFile: 'x.json' }, /exactly one of "jwksUrl" and "jwksFile"/],
      [{}, /exactly one of "jwksUrl" and "jwksFile"/],
      [{ jwksUrl: 'ftp://idp.example/jwks' }, /jwksUrl: must be an http\(s\) URL/],
    ];
    for (const [jwt, message] of cases) {
      const file = writeConfig(config(jwt));
      assert.throws(() => loadConfigFile(file), (err: Error) => message.test(err.message) && err.message.includes(`${file}:`), JSON.stringify(jwt));
    }
  });
});
