// The connector credential scrubber (src/sources/connector/scrub.ts), as a
// property: for any secret (regex-special and non-ASCII characters included)
// echoed in any supported encoding inside any surrounding text or JSON, the
// scrubbed output holds no encoding of the secret.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { secretValues } from '../../src/sources/connector/scrub.js';
import { REDACTED, SecretScrubber } from '../../src/util/scrub.js';

const SPECIAL = [...'.*+?^${}()|[]\\/-"\'&=%:é€ \t'];
const secretArb = fc.string({ unit: fc.oneof(fc.constantFrom(...SPECIAL), fc.constantFrom(...'abcXYZ019'), fc.string({ minLength: 1, maxLength: 1, unit: 'grapheme' })), minLength: 1, maxLength: 24 });

const ENCODERS: Record<string, (s: string) => string> = {
  raw: (s) => s,
  uri: encodeURIComponent,
  uriLower: (s) => encodeURIComponent(s).replace(/%[0-9A-F]{2}/g, (m) => m.toLowerCase()),
  form: (s) => new URLSearchParams([['', s]]).toString().slice(1),
  base64: (s) => Buffer.from(s).toString('base64'),
  base64NoPad: (s) => Buffer.from(s).toString('base64').replace(/=+$/, ''),
  base64url: (s) => Buffer.from(s).toString('base64url'),
  hex: (s) => Buffer.from(s).toString('hex'),
  HEX: (s) => Buffer.from(s).toString('hex').toUpperCase(),
  json: (s) => JSON.stringify(s).slice(1, -1),
  jsonAscii: (s) => JSON.stringify(s).slice(1, -1).replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`),
};

function forms(s: string): string[] {
  return Object.values(ENCODERS).map((e) => e(s));
}

test('no encoding of the secret survives scrubbing, whatever surrounds it (property)', () => {
  fc.assert(
    fc.property(secretArb, fc.array(fc.tuple(fc.string({ maxLength: 12 }), fc.constantFrom(...Object.keys(ENCODERS))), { minLength: 1, maxLength: 5 }), fc.string({ maxLength: 12 }), (secret, parts, tail) => {
      const scrubber = new SecretScrubber([secret]);
      const text = parts.map(([before, enc]) => before + ENCODERS[enc](secret)).join('') + tail;
      const out = scrubber.text(text);
      for (const f of forms(secret)) assert.ok(!out.includes(f), `${JSON.stringify(f)} in ${JSON.stringify(out)}`);
    }),
    { numRuns: 400 },
  );
});

function leaves(v: unknown): string[] {
  if (typeof v === 'string') return [v];
  if (typeof v === 'number') return [String(v)];
  if (Array.isArray(v)) return v.flatMap(leaves);
  if (v !== null && typeof v === 'object') return Object.entries(v).flatMap(([k, x]) => [k, ...leaves(x)]);
  return [];
}

test('JSON values: keys and strings at any depth are scrubbed (property)', () => {
  fc.assert(
    fc.property(secretArb, fc.jsonValue({ maxDepth: 3 }), (secret, shape) => {
      const value = { [`k-${secret}`]: shape, list: [secret, { nested: `Bearer ${secret}` }], shape };
      const out = new SecretScrubber([secret]).value(value);
      // Every key, string and number of the result (not JSON's own quotes and braces, which a secret may also spell).
      for (const text of leaves(out)) for (const f of forms(secret)) assert.ok(!text.includes(f), `${JSON.stringify(f)} in ${JSON.stringify(text)}`);
    }),
    { numRuns: 300 },
  );
});

test('basic credentials: the whole user:password and the password alone are secrets, the user name is not', () => {
  const scrubber = new SecretScrubber(secretValues('svc-user:s3cr3t!pw', 'basic'));
  assert.equal(scrubber.text('user svc-user password s3cr3t!pw'), `user svc-user password ${REDACTED}`);
  assert.equal(scrubber.text(`Basic ${Buffer.from('svc-user:s3cr3t!pw').toString('base64')}`), `Basic ${REDACTED}`);
});

test('the marker never reassembles the secret: a secret inside the marker empties the text', () => {
  assert.equal(new SecretScrubber(['dact']).text('a dact b'), '');
  const out = new SecretScrubber(['d]x']).text('d]xx');
  assert.ok(!out.includes('d]x'), out);
  assert.equal(new SecretScrubber(['tok-1']).text('x tok-1 y'), `x ${REDACTED} y`);
});
