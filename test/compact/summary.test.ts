// summarizeDescription: the model-facing one-line summary.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { MAX_SUMMARY_LENGTH, summarizeDescription } from '../../src/catalog/compact/summary.js';

test('the first sentence', () => {
  assert.equal(summarizeDescription('Reads a file. Then returns its content.'), 'Reads a file.');
  assert.equal(summarizeDescription('Is it there? Check first.'), 'Is it there?');
  assert.equal(summarizeDescription('Deletes everything! Be careful.'), 'Deletes everything!');
  assert.equal(summarizeDescription('Single sentence without a period'), 'Single sentence without a period');
  assert.equal(summarizeDescription('Quoted "end." Next one.'), 'Quoted "end."');
});

test('abbreviations and version numbers do not end the sentence', () => {
  assert.equal(summarizeDescription('Accepts a path, e.g. /tmp/x. Other text.'), 'Accepts a path, e.g. /tmp/x.');
  assert.equal(summarizeDescription('Uses formats i.e. JSON and YAML. More.'), 'Uses formats i.e. JSON and YAML.');
  assert.equal(summarizeDescription('Requires version 1.2 or later. Older ones fail.'), 'Requires version 1.2 or later.');
  assert.equal(summarizeDescription('Calls v2.10.3 of the API. Then stops.'), 'Calls v2.10.3 of the API.');
  assert.equal(summarizeDescription('Counts the U.S. states. Done.'), 'Counts the U.S. states.');
  assert.equal(summarizeDescription('Lists files, dirs, etc. and links. Then more.'), 'Lists files, dirs, etc. and links.');
  assert.equal(summarizeDescription('See docs.example.com for details. More.'), 'See docs.example.com for details.');
  assert.equal(summarizeDescription('Pays approx. 3 euros. Then more.'), 'Pays approx. 3 euros.');
});

test('whitespace and newlines collapse; the first paragraph or list ends the summary', () => {
  assert.equal(summarizeDescription('  Reads\n  a   file\tfrom\r\ndisk.  Other.'), 'Reads a file from disk.');
  assert.equal(summarizeDescription('Search tool\n\nDetailed explanation follows here.'), 'Search tool');
  assert.equal(summarizeDescription('Edit a file\n- path: the file\n- edits: the edits'), 'Edit a file');
  assert.equal(summarizeDescription('# Fetch\n\nFetches a URL.'), 'Fetch');
  assert.equal(summarizeDescription('\n\n  \n'), '');
  assert.equal(summarizeDescription(''), '');
});

test('long text is cut at a word boundary with an ellipsis, within MAX_SUMMARY_LENGTH', () => {
  const words = Array.from({ length: 80 }, (_, i) => `word${i}`).join(' ');
  const s = summarizeDescription(words);
  assert.ok(s.length <= MAX_SUMMARY_LENGTH, `${s.length}`);
  assert.ok(s.endsWith('…'));
  const body = s.slice(0, -1);
  assert.ok(words.startsWith(body + ' '), 'cut at a word boundary');
  assert.ok(body.length > MAX_SUMMARY_LENGTH - 12, 'not cut much earlier than needed');

  const token = 'x'.repeat(500);
  const t = summarizeDescription(token);
  assert.equal(t.length, MAX_SUMMARY_LENGTH);
  assert.equal(t, 'x'.repeat(MAX_SUMMARY_LENGTH - 1) + '…');

  const emoji = '😀'.repeat(300); // no spaces: the cut must not split a surrogate pair
  const e = summarizeDescription(emoji);
  assert.ok(e.length <= MAX_SUMMARY_LENGTH);
  assert.ok(!/[\uD800-\uDBFF]…$/.test(e));

  const commas = `${'alpha, '.repeat(40)}omega.`;
  assert.ok(!/[,\s]…$/.test(summarizeDescription(commas)), 'no dangling comma before the ellipsis');
});

test('property: one line, bounded, made of the input words', () => {
  const word = fc.stringMatching(/^[A-Za-z0-9.,!?é😀-]{1,12}$/);
  const sep = fc.constantFrom(' ', '  ', '\n', '\t', '. ', '.\n\n', ' e.g. ');
  const text = fc.array(fc.tuple(word, sep), { maxLength: 80 }).map((xs) => xs.map(([w, s]) => w + s).join(''));
  fc.assert(
    fc.property(text, (t) => {
      const s = summarizeDescription(t);
      assert.ok(s.length <= MAX_SUMMARY_LENGTH);
      assert.ok(!/[\n\r\t]/.test(s), 'one line');
      assert.ok(!/ {2}/.test(s), 'whitespace collapsed');
      assert.equal(s, s.trim());
      const flat = t.replace(/\s+/g, ' ').trim();
      const body = s.endsWith('…') ? s.slice(0, -1) : s;
      assert.ok(flat.startsWith(body), `not a prefix of the collapsed text: ${JSON.stringify(s)}`);
      assert.equal(summarizeDescription(s), s, 'a summary is its own summary');
    }),
    { numRuns: 500, seed: 7 },
  );
});
