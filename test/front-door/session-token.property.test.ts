// Signed MCP session ids (docs/mcp.md "Several replicas"): an id verifies
// only for the identity it was issued to, under the key it was signed with,
// unaltered and younger than MAX_SESSION_AGE_MS; what it carries comes back
// as it was given (bounded); it holds neither the identity nor the key.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { CompactSign } from 'jose';
import { MAX_SESSION_AGE_MS, SessionTokens, type SessionState } from '../../src/front-door/session-token.js';

const KEY = 'k'.repeat(32);
const tokens = new SessionTokens(KEY);

const stateArb: fc.Arbitrary<SessionState> = fc.record({
  protocolVersion: fc.constantFrom('2025-06-18', '2025-03-26', '2025-11-25'),
  capabilities: fc.constantFrom({}, { elicitation: {} }, { elicitation: { form: {} }, sampling: {} }, { roots: { listChanged: true } }),
  clientInfo: fc.record({ name: fc.string({ maxLength: 40 }), version: fc.string({ maxLength: 10 }) }),
  mode: fc.constantFrom('tools' as const, 'search' as const),
  compact: fc.boolean(),
  issuedAt: fc.constant(Math.floor(Date.now() / 1000)),
});
const identityArb = fc.string({ minLength: 1, maxLength: 60 });

test('an id verifies for its own identity and gives back its state', async () => {
  await fc.assert(
    fc.asyncProperty(identityArb, stateArb, async (identity, state) => {
      const id = await tokens.issue(identity, state);
      // A compact JWS: header, payload and signature, each base64url.
      assert.match(id, /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/, 'visible ASCII, as MCP session ids must be');
      assert.deepEqual(await tokens.verify(id, identity), { ...state, clientInfo: { ...state.clientInfo } });
      assert.ok(!id.includes(KEY));
      if (identity.length >= 8) assert.ok(!Buffer.from(id.split('.')[1], 'base64url').toString().includes(identity), 'the identity itself is not in the id');
    }),
  );
});

test('another identity, another key, or any one changed character: refused', async () => {
  const other = new SessionTokens('o'.repeat(32));
  await fc.assert(
    fc.asyncProperty(identityArb, identityArb, stateArb, fc.nat(), fc.constantFrom(...'ABCabc012-_.'), async (identity, someoneElse, state, at, char) => {
      const id = await tokens.issue(identity, state);
      if (someoneElse !== identity) assert.equal(await tokens.verify(id, someoneElse), undefined);
      assert.equal(await other.verify(id, identity), undefined);
      const i = at % id.length;
      if (id[i] !== char) {
        const altered = id.slice(0, i) + char + id.slice(i + 1);
        // base64url's last character may carry unused bits: a change in the signature's can decode to the same bytes, and then it is the same id.
        const signature = (text: string) => text.split('.')[2] ?? '';
        const same = Buffer.from(signature(altered), 'base64url').equals(Buffer.from(signature(id), 'base64url')) && altered.split('.').slice(0, 2).join('.') === id.split('.').slice(0, 2).join('.');
        if (!same) assert.equal(await tokens.verify(altered, identity), undefined, `changed at ${i}`);
      }
    }),
  );
});

test('an id older than the maximum session age is refused; a short key is refused at start', async () => {
  const state: SessionState = { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'c', version: '1' }, mode: 'tools', compact: false, issuedAt: Math.floor(Date.now() / 1000) };
  const id = await tokens.issue('me', state);
  assert.ok(await tokens.verify(id, 'me', Date.now() + MAX_SESSION_AGE_MS - 60_000));
  assert.equal(await tokens.verify(id, 'me', Date.now() + MAX_SESSION_AGE_MS + 60_000), undefined);
  assert.throws(() => new SessionTokens('short'), /at least 32 bytes/);
  for (const junk of ['', '.', 'abc', 'a.b.c', `${'x'.repeat(3000)}.y`]) assert.equal(await tokens.verify(junk, 'me'), undefined);
});

test('the algorithm is pinned: the same payload signed with the same key under another algorithm, or unsigned, is refused', async () => {
  const state: SessionState = { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'c', version: '1' }, mode: 'tools', compact: false, issuedAt: Math.floor(Date.now() / 1000) };
  const id = await tokens.issue('me', state);
  const payload = Buffer.from(id.split('.')[1], 'base64url');
  const hs512 = await new CompactSign(payload).setProtectedHeader({ alg: 'HS512' }).sign(Buffer.from(KEY));
  assert.equal(await tokens.verify(hs512, 'me'), undefined, 'HS512 under the same key');
  const unsigned = `${Buffer.from('{"alg":"none"}').toString('base64url')}.${id.split('.')[1]}.`;
  assert.equal(await tokens.verify(unsigned, 'me'), undefined, 'alg none');
  assert.ok(await tokens.verify(id, 'me'), 'the id itself verifies');
});

test('a client cannot make its id large: oversized capabilities and names are cut', async () => {
  const big: SessionState = {
    protocolVersion: '2025-06-18',
    capabilities: { elicitation: { form: {}, huge: 'x'.repeat(100_000) } as never, experimental: { junk: { text: 'y'.repeat(100_000) } } },
    clientInfo: { name: 'n'.repeat(10_000), version: 'v'.repeat(10_000) },
    mode: 'tools',
    compact: false,
    issuedAt: Math.floor(Date.now() / 1000),
  };
  const id = await tokens.issue('me', big);
  assert.ok(id.length < 1000, `id of ${id.length} chars`);
  const back = (await tokens.verify(id, 'me'))!;
  assert.deepEqual(back.capabilities, { elicitation: {} });
});
