// How tool search reads words (docs/search.md "Ranking"): identifiers split
// at case changes and separators, common English words dropped, a light
// English stemmer so "repositories", "created" and "listing" meet
// "repository", "create" and "list", and synonym groups (built in, extended
// by `search.synonyms`) applied to the query only. The index and the query go
// through the same normalization, so a term means the same on both sides.

/** Words that carry no meaning in a request for a tool ("how do I get the ..."). */
const STOPWORDS = new Set(
  (
    'a an and are as at be been but by can could do does for from had has have how i if in into is it its me my of on or our ' +
    'please should so some that the their them then there these this those to us want was we were what when where which who ' +
    'why will with would you your via using use need needs one able any'
  ).split(' '),
);

/**
 * Built-in synonym groups (every word of a group stands for the others in a
 * query). Kept to words tool catalogs use for the same action or thing;
 * `search.synonyms` adds groups.
 */
export const DEFAULT_SYNONYMS: readonly (readonly string[])[] = [
  ['delete', 'remove', 'erase', 'drop', 'destroy'],
  ['create', 'add', 'new', 'make', 'open', 'post'],
  ['list', 'enumerate', 'all', 'show', 'browse'],
  ['get', 'fetch', 'retrieve', 'read', 'view', 'look', 'lookup', 'see', 'inspect', 'detail'],
  ['update', 'edit', 'modify', 'change', 'rename', 'set'],
  ['search', 'find', 'query', 'lookup'],
  ['repository', 'repo'],
  ['organization', 'org', 'company'],
  ['user', 'account', 'person', 'member', 'people'],
  ['issue', 'ticket', 'bug'],
  ['pull', 'pr'],
  ['commit', 'change'],
  ['comment', 'reply', 'note'],
  ['file', 'document'],
  ['directory', 'folder', 'dir'],
  ['message', 'echo', 'say'],
  ['sum', 'add', 'total', 'plus'],
  ['star', 'favorite', 'bookmark'],
  ['secret', 'credential', 'token'],
  ['workflow', 'action', 'pipeline', 'ci'],
  ['key', 'ssh'],
  ['time', 'clock', 'date'],
  ['uppercase', 'upper', 'capital', 'capitalize', 'caps', 'shout'],
  ['lowercase', 'lower'],
  ['webhook', 'hook'],
  ['gist', 'snippet', 'paste'],
  ['notification', 'alert', 'inbox'],
  ['move', 'transfer', 'relocate'],
  ['size', 'length', 'count'],
  ['authenticated', 'my', 'me', 'i', 'mine', 'logged', 'login', 'whoami'],
  ['list', 'which', 'exist'],
  ['delete', 'rid'],
  ['fork', 'copy'],
  ['contributor', 'contribute', 'contributed'],
  ['star', 'stargazer', 'starred'],
  ['watch', 'watcher', 'subscription', 'subscribe'],
  ['limit', 'quota', 'left', 'remaining'],
  ['referrer', 'refer', 'referral'],
  ['collaborator', 'teammate', 'access'],
  ['reviewer', 'review'],
  ['upload', 'attach'],
  ['request', 'ask'],
  ['remove', 'kick'],
  ['create', 'publish', 'share', 'submit'],
  ['enable', 'activate'],
];

/** A common English word that carries no meaning in a request for a tool. */
export function isStopword(word: string): boolean {
  return STOPWORDS.has(word);
}

/** Splits text into lower-case words: at non-alphanumerics, camelCase boundaries and letter/digit changes. */
export function words(text: string): string[] {
  const spaced = text
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .toLowerCase();
  return spaced.split(/[^a-z0-9]+/).filter((w) => w !== '');
}

const VOWEL = /[aeiouy]/;

function hasVowel(s: string): boolean {
  return VOWEL.test(s);
}

/** After removing -ed or -ing: "runn" → "run", "creat" stays, "hop" stays. */
function undouble(s: string): string {
  return s.length > 3 && s[s.length - 1] === s[s.length - 2] && !'lsz'.includes(s[s.length - 1]) ? s.slice(0, -1) : s;
}

/**
 * A light, conservative English stemmer: plural, -ed, -ing, -ation and a
 * final -e, so inflections of a word meet. It only has to be consistent
 * (the index and the query share it), not linguistically exact.
 */
export function stem(word: string): string {
  let w = word;
  if (w.length <= 3 || /^\d/.test(w)) return w;
  if (w.endsWith('ies') && w.length > 4) w = `${w.slice(0, -3)}y`;
  else if (w.endsWith('sses')) w = w.slice(0, -2);
  else if (w.endsWith('s') && !w.endsWith('ss') && !w.endsWith('us') && !w.endsWith('is')) w = w.slice(0, -1);
  if (w.endsWith('ations') || w.endsWith('ation')) {
    const base = w.slice(0, w.endsWith('s') ? -6 : -5);
    if (base.length >= 2) w = `${base}ate`;
  } else if (w.endsWith('ing') && w.length > 5 && hasVowel(w.slice(0, -3))) w = undouble(w.slice(0, -3));
  else if (w.endsWith('ied') && w.length > 4) w = `${w.slice(0, -3)}y`;
  else if (w.endsWith('ed') && w.length > 4 && hasVowel(w.slice(0, -2))) w = undouble(w.slice(0, -2));
  if (w.endsWith('e') && w.length > 4) w = w.slice(0, -1);
  return w;
}

/**
 * Abbreviations that are the same word as their long form: both stand for
 * one term in the index and in queries (API identifiers abbreviate what
 * titles and users spell out).
 */
const ABBREVIATIONS: Readonly<Record<string, string>> = {
  repo: 'repository',
  org: 'organization',
  dir: 'directory',
  env: 'environment',
  config: 'configuration',
  info: 'information',
  auth: 'authentication',
  pr: 'pull',
  msg: 'message',
  desc: 'description',
};
const SAME_WORD = new Map(Object.entries(ABBREVIATIONS).map(([short, long]) => [stem(short), stem(long)]));

/** What the index stores for one word of tool text; undefined for a stopword. */
export function indexTerm(word: string): string | undefined {
  if (STOPWORDS.has(word)) return undefined;
  const stemmed = stem(word);
  return SAME_WORD.get(stemmed) ?? stemmed;
}

/** Synonyms by stem: each stem maps to the stems of every group it is in (itself excluded). */
export class Synonyms {
  private readonly byStem = new Map<string, Set<string>>();

  constructor(groups: readonly (readonly string[])[]) {
    for (const group of groups) {
      const stems = [...new Set(group.flatMap((g) => words(g)).map((w) => indexTerm(w) ?? stem(w)))];
      for (const s of stems) {
        let set = this.byStem.get(s);
        if (set === undefined) this.byStem.set(s, (set = new Set()));
        for (const other of stems) if (other !== s) set.add(other);
      }
    }
  }

  of(stemmed: string): ReadonlySet<string> {
    return this.byStem.get(stemmed) ?? EMPTY;
  }
}

const EMPTY: ReadonlySet<string> = new Set();

export interface QueryTerms {
  /** The query's own terms, stemmed, in order, without repeats. */
  terms: string[];
  /** Terms added by synonym groups (none of them a query term). */
  expansions: string[];
  /** For each term and expansion, the query words it stands for (a stopword with synonyms counts as a word). */
  origins: ReadonlyMap<string, readonly string[]>;
}

/**
 * A query's terms (as the index holds them) and their synonym expansions. A
 * stopword with synonyms ("my" for "authenticated") is not a term itself but
 * still brings its synonyms.
 */
export function queryTerms(query: string, synonyms: Synonyms): QueryTerms {
  const all = words(query);
  const terms = [...new Set(all.flatMap((w) => indexTerm(w) ?? []))];
  const own = new Set(terms);
  const expansions = new Set<string>();
  const origins = new Map<string, string[]>(terms.map((t) => [t, [t]]));
  for (const t of [...terms, ...all.filter((w) => STOPWORDS.has(w))]) {
    for (const s of synonyms.of(t)) {
      if (own.has(s)) continue;
      expansions.add(s);
      const from = origins.get(s);
      if (from === undefined) origins.set(s, [t]);
      else if (!from.includes(t)) from.push(t);
    }
  }
  return { terms, expansions: [...expansions], origins };
}
