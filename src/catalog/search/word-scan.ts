// The words of tool text, read in one pass over its characters (docs/search.md
// "The index"): filing ten thousand tools reads about eight million
// characters, and `words` of text.ts (three regular-expression passes and a
// split) would be a third of that work. The scan gives exactly the words `words`
// gives (a fast-check property holds them equal), as ranges of the text, so
// a word already known is found without making its string; text with any
// character outside ASCII goes through `words` itself, since lower-casing
// some of those characters yields ASCII letters.
import { words } from './text.js';

const NON_ASCII = /[^\x00-\x7f]/;

/** 1 lower-case letter, 2 upper-case letter, 3 digit, 0 anything else. */
const KIND = new Uint8Array(128);
for (let c = 97; c <= 122; c++) KIND[c] = 1;
for (let c = 65; c <= 90; c++) KIND[c] = 2;
for (let c = 48; c <= 57; c++) KIND[c] = 3;
const LOWER = 1;
const UPPER = 2;

/**
 * Calls `visit` with each word of `text`, lower case, in order: the words of
 * `words(text)`. Within a run of letters and digits a word starts at an
 * upper-case letter that follows a lower-case letter or a digit, or that
 * follows an upper-case letter and is followed by a lower-case one
 * ("HTMLParser": "html", "parser").
 */
export function scanWords(text: string, visit: (word: string) => void): void {
  if (!scanRanges(text, (start, end, upper) => visit(word(text, start, end, upper)))) for (const w of words(text)) visit(w);
}

/**
 * Calls `visit` with each word of ASCII `text` as its range (`upper`: whether it holds an upper-case
 * letter, to lower); false, having visited nothing, when the text is not all ASCII.
 */
export function scanRanges(text: string, visit: (start: number, end: number, upper: boolean) => void): boolean {
  if (NON_ASCII.test(text)) return false;
  const n = text.length;
  let i = 0;
  while (i < n) {
    while (i < n && KIND[text.charCodeAt(i)] === 0) i++;
    if (i === n) return true;
    let start = i;
    let upper = false;
    let prev = KIND[text.charCodeAt(i)];
    if (prev === UPPER) upper = true;
    i++;
    for (; i < n; i++) {
      const kind = KIND[text.charCodeAt(i)];
      if (kind === 0) break;
      if (kind === UPPER) {
        const split = prev !== UPPER || (i + 1 < n && KIND[text.charCodeAt(i + 1)] === LOWER);
        if (split) {
          visit(start, i, upper);
          start = i;
          upper = false;
        }
        upper = true;
      }
      prev = kind;
    }
    visit(start, i, upper);
  }
  return true;
}

function word(text: string, start: number, end: number, upper: boolean): string {
  const w = text.slice(start, end);
  return upper ? w.toLowerCase() : w;
}
