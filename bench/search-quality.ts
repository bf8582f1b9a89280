// Tool search, measured (docs/search.md "Measured quality"): retrieval
// quality on real catalogs, per catalog and all-in-one, for toolhost's
// ranking, plain BM25 and each signal alone.
//
//   node --import tsx bench/search-quality.ts [--verbose] [--rankers toolhost,bm25,...] [--round-1] [--wordnet synsets|derivations|bridges]
//     [--embeddings URL --embeddings-model NAME [--embeddings-key-env VAR] [--embeddings-weight W]]
//
// The tasks of bench/search-tasks/*.json (requests as users put them to an
// agent, each with the tool(s) that solve it) run against the catalogs of
// bench/search-catalogs.ts (loaded once through the real host, then from
// their cached raw tools): each catalog's
// tasks once in a tenant that sees only that catalog and once in `all`, which
// sees every catalog. recall@1, recall@5 and MRR (over the top 10), for the
// tuning and the held-out split (bench/search-split.ts). Deterministic: the
// same catalogs give the same figures on every run. Prints Markdown tables
// and one JSON line; `--verbose` prints every task whose tool is not first.
// `--embeddings` ranks with an OpenAI-compatible embeddings endpoint (a local
// model server) as well: `toolhost` then fuses it, `endpoint` is it alone.
import { readdirSync, readFileSync } from 'node:fs';
import { words } from '../src/catalog/search/text.js';
import { WORDNET_FORMS, wordnetSynonyms, type WordnetForm } from './search-wordnet.js';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Principal } from '../src/auth/principal.js';
import { CatalogSearch, type CatalogSearchOptions } from '../src/catalog/search/catalog-search.js';
import { loadWordVectors } from '../src/catalog/search/word-vectors.js';
import type { Caller } from '../src/catalog/visibility.js';
import { SEARCH_MODE_TOOLS, searchTools } from '../src/front-door/search-mode.js';
import { toMcpTool } from '../src/front-door/tool-listing.js';
import { PlainBm25 } from './search-bm25.js';
import { benchStore } from './search-catalogs.js';
import { splitOf } from './search-split.js';

interface TaskFile {
  catalog: string;
  tasks: { task: string; expected: string[] }[];
}

interface Tally {
  n: number;
  at1: number;
  at5: number;
  rr: number;
}

type Ranker = (tenant: string, query: string) => string[] | Promise<string[]>;

const arg = (name: string): string | undefined => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
};
const verbose = process.argv.includes('--verbose');
/** Only the tuning split is printed (tables, misses and the JSON line): ranking is tuned without seeing the held-out tasks. */
const tuningOnly = process.argv.includes('--tuning-only');
const roundOne = process.argv.includes('--round-1');
const TASK_DIR = fileURLToPath(new URL(roundOne ? './search-tasks/round-1/' : './search-tasks/', import.meta.url));
const round = (x: number, digits = 3): number => Math.round(x * 10 ** digits) / 10 ** digits;

function taskFiles(): TaskFile[] {
  return readdirSync(TASK_DIR)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((f) => JSON.parse(readFileSync(join(TASK_DIR, f), 'utf8')) as TaskFile);
}

/** The search variants measured: toolhost as configured, and each signal alone. */
const VARIANTS: Record<string, CatalogSearchOptions> = {
  toolhost: {},
  terms: { signals: ['terms'] },
  meaning: { signals: ['meaning'] },
  prior: { signals: ['terms', 'prior'] },
  'no-prior': { signals: ['terms', 'meaning'] },
};

/** The operator's endpoint, when measured: `toolhost` and `endpoint` rank with it. */
function embeddingsOption(): CatalogSearchOptions {
  const url = arg('--embeddings');
  if (url === undefined) return {};
  const keyEnv = arg('--embeddings-key-env');
  const apiKey = keyEnv === undefined ? undefined : process.env[keyEnv];
  const endpoint = { url, model: arg('--embeddings-model') ?? 'default', ...(apiKey !== undefined ? { apiKey } : {}) };
  return { embeddings: { endpoint, queryTimeoutMs: 10_000, weight: Number(arg('--embeddings-weight') ?? 1), log: (_level, message) => console.error(message) } };
}
const withEndpoint = embeddingsOption();
VARIANTS.endpoint = { signals: ['meaning'], ...withEndpoint };

/** `fusion:meaning=0.3/named=2`: toolhost with other fusion weights (tried on the tuning tasks only). */
function fusionVariant(name: string): CatalogSearchOptions {
  const fusion = Object.fromEntries(name.slice('fusion:'.length).split('/').map((kv) => [kv.split('=')[0], Number(kv.split('=')[1])]));
  return { fusion };
}

const store = await benchStore();
const vectors = loadWordVectors();
const toolhost = new CatalogSearch(store, { wordVectors: () => vectors, ...withEndpoint });
const snapshot = store.current();
const names = (arg('--rankers') ?? 'toolhost,bm25').split(',');
// `--wordnet FORM`: the ranker `wordnet` is toolhost with WordNet's groups as synonyms (bench/search-wordnet.ts).
const wordnetForm = arg('--wordnet');
if (wordnetForm !== undefined) {
  if (!WORDNET_FORMS.includes(wordnetForm as WordnetForm)) throw new Error(`--wordnet: one of ${WORDNET_FORMS.join(', ')}`);
  const known = new Set(snapshot.entries.flatMap((e) => words(`${e.tool.descriptor.toolId} ${e.tool.descriptor.title ?? ''} ${e.tool.descriptor.description ?? ''}`)));
  VARIANTS.wordnet = { synonyms: wordnetSynonyms(wordnetForm as WordnetForm, known) };
}
const rankers = new Map<string, Ranker>();
const searches: CatalogSearch[] = [];
for (const name of names) {
  if (name === 'bm25') {
    const byTenant = new Map<string, PlainBm25>();
    rankers.set(name, (tenant, query) => {
      let index = byTenant.get(tenant);
      if (index === undefined) byTenant.set(tenant, (index = new PlainBm25(snapshot.viewFor({ tenant, scopes: new Set() }).entries)));
      return index.search(query, 10);
    });
  } else {
    const options = name.startsWith('fusion:') ? { ...fusionVariant(name), ...withEndpoint } : VARIANTS[name];
    if (options === undefined) throw new Error(`unknown ranker ${name}: one of bm25, ${Object.keys(VARIANTS).join(', ')}`);
    const search = name === 'toolhost' ? toolhost : new CatalogSearch(store, { wordVectors: () => vectors, ...options });
    searches.push(search);
    rankers.set(name, async (tenant, query) => {
      const caller: Caller = { tenant, scopes: new Set() };
      return (await search.searchAwaiting(caller, query, 10)).hits.map((h) => h.entry.tool.descriptor.toolId);
    });
  }
}
await Promise.all([toolhost, ...searches].map((s) => s.whenReady()));
// The endpoint is asked for the tools' vectors on a first search; then every tool has one.
if (withEndpoint.embeddings !== undefined) {
  for (const s of [toolhost, ...searches]) await s.searchAwaiting({ tenant: 'all', scopes: new Set() }, 'warm up', 1);
  await Promise.all([toolhost, ...searches].map((s) => s.whenReady()));
}

const ids = new Set(snapshot.entries.map((e) => e.tool.descriptor.toolId));
const tallies = new Map<string, Tally>();
const count = (key: string, rank: number): void => {
  let t = tallies.get(key);
  if (t === undefined) tallies.set(key, (t = { n: 0, at1: 0, at5: 0, rr: 0 }));
  t.n++;
  if (rank === 1) t.at1++;
  if (rank >= 1 && rank <= 5) t.at5++;
  if (rank >= 1) t.rr += 1 / rank;
};
for (const file of taskFiles()) {
  const own = roundOne ? 'all' : file.catalog;
  for (const { task, expected } of file.tasks) {
    for (const id of expected) if (!ids.has(id)) throw new Error(`${file.catalog}: "${task}" expects ${id}, which the catalog does not hold`);
    const part = splitOf(task, roundOne ? 3 : 2);
    for (const [name, rank] of rankers) {
      for (const tenant of roundOne ? ['all'] : [own, 'all']) {
        const hits = await rank(tenant, task);
        const r = hits.findIndex((h) => expected.includes(h)) + 1;
        const where = tenant === 'all' ? 'all-in-one' : 'alone';
        count(`${name}\t${file.catalog}\t${where}\t${part}`, r);
        if (tenant === 'all') count(`${name}\tALL\t${where}\t${part}`, r);
        if (verbose && r !== 1 && name === names[0] && !(tuningOnly && part === 'held-out')) console.error(`${name}\t${where}\t${part}\t${r === 0 ? 'miss' : `#${r}`}\t${task}\t${expected.join(' ')}\t→ ${hits.slice(0, 3).join(' ')}`);
      }
    }
  }
}
const rows = [...tallies].map(([key, t]) => {
  const [ranker, catalog, where, split] = key.split('\t');
  return { ranker, catalog, where, split, tasks: t.n, recallAt1: round(t.at1 / t.n), recallAt5: round(t.at5 / t.n), mrr: round(t.rr / t.n) };
});
for (const split of tuningOnly ? ['tuning'] : ['held-out', 'tuning']) {
  console.log(`\n${split}: recall@1 / recall@5 / MRR\n\n| catalog | where | tasks | ${names.join(' | ')} |\n| --- | --- | --- |${names.map(() => ' --- |').join('')}`);
  const keys = [...new Set(rows.filter((r) => r.split === split).map((r) => `${r.catalog}\t${r.where}`))].sort();
  for (const key of keys) {
    const [catalog, where] = key.split('\t');
    const cells = names.map((n) => rows.find((r) => r.ranker === n && r.catalog === catalog && r.where === where && r.split === split)!);
    console.log(`| ${catalog} | ${where} | ${cells[0].tasks} | ${cells.map((c) => `${c.recallAt1.toFixed(2)} / ${c.recallAt5.toFixed(2)} / ${c.mrr.toFixed(2)}`).join(' | ')} |`);
  }
}

// What an agent reads: the whole catalog listed, against one search answer.
const all: Caller = { tenant: 'all', scopes: new Set() };
const view = snapshot.viewFor(all);
const listBytes = (compact: boolean): number => Buffer.byteLength(JSON.stringify({ tools: view.entries.map((e) => toMcpTool(e, view.mcpNames.byToolId.get(e.tool.descriptor.toolId)!, compact)) }));
const principal = { ...all, id: 'bench', kind: 'api-key' } as unknown as Principal;
const answers: number[] = [];
for (const t of taskFiles().flatMap((f) => f.tasks)) answers.push(Buffer.byteLength(JSON.stringify(await searchTools(toolhost, snapshot, principal, { query: t.task, limit: 5 }))));
const tokenFigures = {
  tools: view.entries.length,
  listStandardBytes: listBytes(false),
  listCompactBytes: listBytes(true),
  searchModeListBytes: Buffer.byteLength(JSON.stringify({ tools: SEARCH_MODE_TOOLS })),
  searchAnswerBytes: Math.round(answers.reduce((a, b) => a + b, 0) / answers.length),
};
console.log(`\ntokens (≈ bytes / 4) an agent reads, ${tokenFigures.tools} tools: tools/list standard ${Math.round(tokenFigures.listStandardBytes / 4)}, compact ${Math.round(tokenFigures.listCompactBytes / 4)}, search mode list ${Math.round(tokenFigures.searchModeListBytes / 4)}, one search_tools answer (limit 5, mean) ${Math.round(tokenFigures.searchAnswerBytes / 4)}`);
console.log(JSON.stringify({ loadavg: loadavg().map((l) => round(l, 2)), quality: rows.filter((r) => !tuningOnly || r.split === 'tuning'), tokenFigures }));
process.exit(0);
