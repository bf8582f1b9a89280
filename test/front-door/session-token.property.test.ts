// Signed MCP session ids (docs/mcp.md "Several replicas"): an id verifies
// only for the identity it was issued to, under the key it was signed with,
// unaltered and younger than MAX_SESSION_AGE_MS; what it carries comes back
// as it was given (bounded); it holds neither the identity nor the key.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
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

test('an id verifies for its own identity and gives back its state', () => {
  fc.assert(
    fc.property(identityArb, stateArb, (identity, state) => {
      const id = tokens.issue(identity, state);
      assert.match(id, /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/, 'visible ASCII, as MCP session ids must be');
      assert.deepEqual(tokens.verify(id, identity), { ...state, clientInfo: { ...state.clientInfo } });
      assert.ok(!id.includes(KEY));
      if (identity.length >= 8) assert.ok(!Buffer.from(id.split('.')[0], 'base64url').toString().includes(identity), 'the identity itself is not in the id');
    }),
  );
});

test('another identity, another key, or any one changed character: refused', () => {
  const other = new SessionTokens('o'.repeat(32));
  fc.assert(
    fc.property(identityArb, identityArb, stateArb, fc.nat(), fc.constantFrom(...'ABCabc012-_.'), (identity, someoneElse, state, at, char) => {
      const id = tokens.issue(identity, state);
      if (someoneElse !== identity) assert.equal(tokens.verify(id, someoneElse), undefined);
      assert.equal(other.verify(id, identity), undefined);
      const i = at % id.length;
      if (id[i] !== char) {
        const altered = id.slice(0, i) + char + id.slice(i + 1);
        // base64url's last character may carry unused bits: a change there can decode to the same bytes, and then it is the same id.
        const same = Buffer.from(altered.split('.')[1] ?? '', 'base64url').equals(Buffer.from(id.split('.')[1], 'base64url')) && altered.split('.')[0] === id.split('.')[0];
        if (!same) assert.equal(tokens.verify(altered, identity), undefined, `changed at ${i}`);
      }
    }),
  );
});

test('an id older than the maximum session age is refused; a short key is refused at start', () => {
  const state: SessionState = { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'c', version: '1' }, mode: 'tools', compact: false, issuedAt: Math.floor(Date.now() / 1000) };
  const id = tokens.issue('me', state);
  assert.ok(tokens.verify(id, 'me', Date.now() + MAX_SESSION_AGE_MS - 60_000));
  assert.equal(tokens.verify(id, 'me', Date.now() + MAX_SESSION_AGE_MS + 60_000), undefined);
  assert.throws(() => new SessionTokens('short'), /at least 32 bytes/);
  for (const junk of ['', '.', 'abc', 'a.b.c', `${'x'.repeat(3000)}.y`]) assert.equal(tokens.verify(junk, 'me'), undefined);
});

test('a client cannot make its id large: oversized capabilities and names are cut', () => {
  const big: SessionState = {
    protocolVersion: '2025-06-18',
    capabilities: { elicitation: { form: {}, huge: 'x'.repeat(100_000) } as never, experimental: { junk: { text: 'y'.repeat(100_000) } } },
    clientInfo: { name: 'n'.repeat(10_000), version: 'v'.repeat(10_000) },
    mode: 'tools',
    compact: false,
    issuedAt: Math.floor(Date.now() / 1000),
  };
  const id = tokens.issue('me', big);
  assert.ok(id.length < 1000, `id of ${id.length} chars`);
  const back = tokens.verify(id, 'me')!;
  assert.deepEqual(back.capabilities, { elicitation: {} });
});
