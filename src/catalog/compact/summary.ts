// The model-facing one-line description of the compact view
// (docs/compact-view.md, "Description summary"): the first sentence of the
// first paragraph, whitespace collapsed, at most MAX_SUMMARY_LENGTH UTF-16
// code units, cut at a word boundary with "…".

/** Longest summary, in UTF-16 code units (JavaScript string length), the ellipsis included. */
export const MAX_SUMMARY_LENGTH = 200;

/** Words that end with a period without ending a sentence (compared lower-case, without the period). */
const ABBREVIATIONS = new Set([
  'e.g', 'i.e', 'eg', 'ie', 'etc', 'vs', 'cf', 'approx', 'incl', 'esp', 'resp', 'viz', 'al', 'mr', 'mrs', 'ms', 'dr',
  'prof', 'st', 'no', 'nos', 'fig', 'figs', 'jr', 'sr', 'inc', 'ltd', 'co', 'corp', 'dept', 'est', 'min', 'max', 'ver',
  'vol', 'ca', 'p', 'pp', 'op', 'ex',
]);

/** A line that starts a list, a heading or a code block ends the first paragraph. */
const BLOCK_START = /^\s*(?:[-*+•]\s|#{1,6}\s|\d+[.)]\s|```|>\s|\|)/;

/** Whitespace other than single spaces (tested first: most descriptions need no rewrite). */
const IRREGULAR_SPACE = /\s\s|[^\S ]/;

function collapse(s: string): string {
  return (IRREGULAR_SPACE.test(s) ? s.replace(/\s+/g, ' ') : s).trim();
}

function firstParagraph(text: string): string {
  if (!text.includes('\n') && !text.includes('\r')) return collapse(text).replace(/^#{1,6} /, '');
  const lines = text.replace(/\r\n?/g, '\n').split('\n');
  const out: string[] = [];
  for (const raw of lines) {
    const line = raw.trim();
    if (line === '') {
      if (out.length > 0) break;
      continue;
    }
    if (out.length > 0 && BLOCK_START.test(raw)) break;
    out.push(out.length === 0 ? line.replace(/^#{1,6}\s+/, '') : line);
  }
  return collapse(out.join(' '));
}

function firstSentence(p: string): string {
  const re = /[.!?。！？]+["')\]]*(?=\s|$)/g;
  for (let m = re.exec(p); m; m = re.exec(p)) {
    const end = m.index + m[0].length;
    if (end >= p.length) return p;
    if (m[0][0] === '.' && m[0].length === 1) {
      let start = m.index;
      while (start > 0 && p[start - 1] !== ' ') start--;
      const word = p.slice(start, m.index).replace(/^[("'[]+/, '').toLowerCase();
      if (ABBREVIATIONS.has(word) || /^[a-z](\.[a-z])+$/.test(word)) continue;
    }
    // a sentence ends only before something that can start one
    let i = end;
    while (i < p.length && p[i] === ' ') i++;
    const next = p[i] ?? '';
    if (next !== '' && next === next.toLowerCase() && next !== next.toUpperCase()) continue;
    return p.slice(0, end);
  }
  return p;
}

function truncate(s: string, max: number): string {
  if (s.length <= max) return s;
  let cut = s.slice(0, max - 1);
  const space = cut.lastIndexOf(' ');
  if (space >= max / 2) cut = cut.slice(0, space);
  else if (/[\uD800-\uDBFF]$/.test(cut)) cut = cut.slice(0, -1);
  cut = cut.replace(/[\s,;:(\-–—]+$/, '');
  return cut + '…';
}

export function summarizeDescription(description: string): string {
  const p = firstParagraph(description);
  if (p === '') return '';
  return truncate(firstSentence(p), MAX_SUMMARY_LENGTH);
}
