// The one-pass word scan that files tool text gives exactly the words of
// text.ts's `words`, on identifiers and prose in ASCII and on text with
// characters outside it (which goes through `words` itself).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { words } from '../../src/catalog/search/text.js';
import { scanWords } from '../../src/catalog/search/word-scan.js';

const scanned = (text: string): string[] => {
  const out: string[] = [];
  scanWords(text, (w) => out.push(w));
  return out;
};

test('property: the scan gives the words of `words`', () => {
  const identifier = fc.array(fc.constantFrom('a', 'b', 'z', 'A', 'B', 'Z', '0', '9', ' ', '-', '_', '.', '/', '{', '\n', 'HTML', 'Id', 'ab', 'XMLHttp'), { maxLength: 30 }).map((parts) => parts.join(''));
  const anyText = fc.oneof(identifier, fc.string({ maxLength: 40 }), fc.string({ unit: 'grapheme', maxLength: 20 }), fc.constantFrom('K\u212aelvin', 'İstanbul', 'café Ümlaut', 'getHTTPResponseCode2FA'));
  fc.assert(
    fc.property(anyText, (text) => assert.deepEqual(scanned(text), words(text))),
    { numRuns: 3000 },
  );
});
