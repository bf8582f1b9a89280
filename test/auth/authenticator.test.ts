// The authenticator's contract with the request path (docs/auth.md): API keys
// are answered synchronously even with a JWT verifier in front (no async work
// for them), a verified JWT is remembered and then answered synchronously, and
// the JWT shape test decides which verifier owns a credential.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createLocalJWKSet } from 'jose';
import { ApiKeyStore, hashApiKey } from '../../src/auth/api-keys.js';
import { HostAuthenticator } from '../../src/auth/authenticator.js';
import type { AuthOutcome } from '../../src/auth/principal.js';
import type { KeySource } from '../../src/auth/jwks.js';
import { JwtVerifier, jwtShape } from '../../src/auth/jwt.js';
import { AUDIENCE, eventually, ISSUER, jwksOf, makeKey, signToken } from './jwt-fixture.js';

async function setUp() {
  const key = await makeKey('unit-1', 'ES256');
  const lookup = createLocalJWKSet(jwksOf(key));
  const keys: KeySource = { current: () => lookup, refreshForUnknownKid: async () => false, usableNow: () => true, start() {}, stop() {} };
  const jwt = new JwtVerifier({
    issuer: ISSUER,
    audience: AUDIENCE,
    algorithms: ['ES256'],
    clockToleranceSec: 0,
    claims: { tenant: 'tenant', scopes: 'scope', principal: 'sub' },
    tenants: new Set(['acme']),
    keys,
    verifiedTokenCacheMs: 60_000,
  });
  const apiKeys = new ApiKeyStore([{ principalId: 'k', tenant: 'acme', scopes: [], keyHash: hashApiKey('plain-key') }]);
  return { key, jwt, auth: new HostAuthenticator(apiKeys, [jwt]) };
}

test('API keys are checked synchronously behind a JWT verifier', async () => {
  const { auth } = await setUp();
  const ok = auth.authenticate('plain-key');
  assert.ok(!(ok instanceof Promise));
  assert.equal(ok.ok && ok.principal.id, 'k');
  const bad = auth.authenticate('other-key');
  assert.ok(!(bad instanceof Promise));
  assert.equal(bad.ok, false);
  // The principal object is the stored one: no allocation per request.
  const again = auth.authenticate('plain-key');
  assert.ok(ok.ok && again instanceof Object && 'principal' in again && again.principal === ok.principal);
});

test('a JWT is verified asynchronously once, then answered from the cache synchronously', async () => {
  const { key, auth, jwt } = await setUp();
  const token = await signToken(key, { tenant: 'acme', scope: ['s1'] });
  const first = auth.authenticate(token);
  assert.ok(first instanceof Promise);
  const outcome = await first;
  assert.ok(outcome.ok);
  assert.equal(outcome.principal.kind, 'jwt');
  assert.deepEqual([...outcome.principal.scopes], ['s1']);
  const second = auth.authenticate(token);
  assert.ok(!(second instanceof Promise));
  assert.ok(second.ok && second.principal === outcome.principal);
  jwt.clearCache();
  assert.ok(auth.authenticate(token) instanceof Promise, 'a key-set change empties the cache');
  // An expired token is never answered from the cache.
  // Several seconds of validity (exp is in whole seconds, and a busy machine
  // is slow), remembered once verified; then poll until it is refused: a
  // cache that outlived exp would never refuse it and the poll's deadline
  // (a hang guard) would fail the test.
  const exp = Math.floor(Date.now() / 1000) + 5;
  const short = await signToken(key, { tenant: 'acme', exp });
  assert.ok((await auth.authenticate(short)).ok);
  assert.ok(!(auth.authenticate(short) instanceof Promise), 'remembered');
  let late: AuthOutcome | undefined;
  assert.ok(
    await eventually(async () => {
      late = await auth.authenticate(short);
      return !late.ok;
    }, 30_000),
    'refused once expired',
  );
  assert.match(late && !late.ok ? late.reason : '', /expired/);
});

test('JWT shape', () => {
  assert.equal(jwtShape('eyJhbGciOiJFUzI1NiJ9.eyJ4IjoxfQ.c2ln'), 'jws');
  assert.equal(jwtShape('eyJhbGciOiJub25lIn0.eyJ4IjoxfQ.'), 'jws');
  assert.equal(jwtShape('eyJhbGciOiJSU0EtT0FFUCJ9.a.b.c.d'), 'jwe');
  for (const notJwt of ['acme-demo-key', 'a.b.c', 'eyJ.only-one-dot', 'eyJhbGci.a+b.c', 'eyJhbGci.a.b.c', 'sk-live-abc.def.ghi']) assert.equal(jwtShape(notJwt), undefined, notJwt);
});
