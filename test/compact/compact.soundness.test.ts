// SOUNDNESS and TIGHTNESS of compactInputSchema over three corpora:
// - generated: schemas using every banned keyword (fast-check, fixed seed);
// - mcp: the input schemas of the real @modelcontextprotocol/server-everything
//   and server-filesystem, fetched live over stdio;
// - oas: the request schemas of @readme/oas-examples 3.0 and 3.1.
//
// Soundness: every object instance the original schema accepts (ajv), the
// compact schema accepts. Tightness: of the near misses (mutants of valid
// instances that the original rejects), how many the compact schema accepts;
// that count may not exceed test/compact/tightness-baseline.json
// (regenerate with UPDATE_TIGHTNESS_BASELINE=1 after a deliberate change).
// What the compact view serves (the top level closed by closeTopLevel) must
// be sound too, and valid against the published v2 compact inputSchema;
// tightness is measured on the rewrite itself.
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { before, test } from 'node:test';
import fc from 'fast-check';
import { closeTopLevel } from '../../src/catalog/compact/close-top-level.js';
import { compactInputSchema } from '../../src/catalog/compact/compact-input-schema.js';
import { errorsOf, validatePublishedCompactInputSchema } from '../helpers/schemas.js';
import { schemaWithBannedKeywords } from './support/arbitraries.js';
import { probe, type ProbeOptions } from './support/instances.js';
import { fetchLiveTools } from './support/mcp.js';
import { loadOasCorpus } from './support/oas.js';
import { hashString } from './support/random.js';
import { compile, compileLenient } from './support/validators.js';
import { bannedKeywords } from './support/walk.js';

type Obj = { [k: string]: unknown };
interface Case {
  id: string;
  schema: Obj;
}

interface CorpusStats {
  schemas: number;
  rewritten: number;
  skipped: number;
  instances: number;
  failures: number;
  nearMisses: number;
  looseAccepted: number;
  bytesBefore: number[];
  bytesAfter: number[];
}

const BASELINE_FILE = new URL('./tightness-baseline.json', import.meta.url);
type Baseline = Record<string, { looseAccepted: number; nearMisses: number }>;

const corpora = new Map<string, Case[]>();
const results = new Map<string, CorpusStats>();
let oasSkipped: string[] = [];

before(async () => {
  const [live, oas] = await Promise.all([fetchLiveTools(), loadOasCorpus()]);
  corpora.set('mcp', live.map((t) => ({ id: `${t.server}/${t.name}`, schema: t.inputSchema })));
  // identical operation schemas (3.0 and 3.1 copies of one example) are checked once
  const seen = new Set<string>();
  const oasCases: Case[] = [];
  for (const c of oas.cases) {
    const key = JSON.stringify(c.schema);
    if (!seen.has(key)) {
      seen.add(key);
      oasCases.push({ id: c.id, schema: c.schema });
    }
  }
  corpora.set('oas', oasCases);
  oasSkipped = oas.skipped;
  const generated = fc.sample(schemaWithBannedKeywords(['a', 'b', 'kind', 'oneOf', '$ref', 'not'], 3, true), { numRuns: 150, seed: 424242 });
  corpora.set('generated', generated.map((s, i) => ({ id: `generated#${i}`, schema: s })));
});

function run(name: string, options: ProbeOptions): CorpusStats {
  const cases = corpora.get(name)!;
  const stats: CorpusStats = { schemas: cases.length, rewritten: 0, skipped: 0, instances: 0, failures: 0, nearMisses: 0, looseAccepted: 0, bytesBefore: [], bytesAfter: [] };
  const failures: string[] = [];
  for (const c of cases) {
    const { schema, loosened } = compactInputSchema(structuredClone(c.schema) as never);
    assert.deepEqual(bannedKeywords(schema), [], c.id);
    const before = JSON.stringify(c.schema);
    const after = JSON.stringify(schema);
    stats.bytesBefore.push(Buffer.byteLength(before));
    stats.bytesAfter.push(Buffer.byteLength(after));
    if (loosened.length > 0 || before !== after) stats.rewritten++;
    let accepts;
    try {
      accepts = compileLenient(c.schema);
    } catch {
      stats.skipped++; // ajv cannot compile the original (invalid upstream schema)
      continue;
    }
    const served = closeTopLevel(schema).schema;
    assert.ok(validatePublishedCompactInputSchema(served), `${c.id}: ${errorsOf(validatePublishedCompactInputSchema)}`);
    const rewriteAccepts = compile(schema); // must always compile
    const servedAccepts = compile(served);
    // A valid instance that either form rejects is a failure. The closed
    // form only loosens the rewrite, so the near misses both accept are
    // those the rewrite accepts: tightness stays the rewrite's.
    const compactAccepts = (x: unknown): boolean => rewriteAccepts(x) && servedAccepts(x);
    const r = probe(c.schema, accepts, compactAccepts, hashString(c.id), options);
    stats.instances += r.valid;
    stats.nearMisses += r.nearMisses;
    stats.looseAccepted += r.looseAccepted;
    stats.failures += r.failures.length;
    for (const f of r.failures.slice(0, 2)) failures.push(`${c.id}: ${JSON.stringify(f)}\n  original: ${before.slice(0, 600)}\n  compact:  ${after.slice(0, 600)}`);
  }
  results.set(name, stats);
  assert.equal(stats.failures, 0, `instances the original accepts but the compact schema rejects:\n${failures.slice(0, 6).join('\n')}`);
  return stats;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? 0 : s[Math.floor(s.length / 2)];
}

test('generated schemas: compact accepts every instance the original accepts', () => {
  const s = run('generated', { faker: 6, guided: 30, random: 20, mutations: 150 });
  assert.ok(s.instances > 3000, `too few valid instances generated (${s.instances})`);
});

test('real MCP servers (everything, filesystem): compact accepts every instance the original accepts', () => {
  const s = run('mcp', { faker: 20, guided: 60, random: 40, mutations: 400 });
  assert.ok(s.schemas >= 20, `expected the live tool lists, got ${s.schemas} schemas`);
  assert.ok(s.instances > 1000);
});

test('OpenAPI examples (3.0 and 3.1 request schemas): compact accepts every instance the original accepts', () => {
  const s = run('oas', { faker: 6, guided: 30, random: 20, mutations: 150 });
  assert.ok(s.schemas > 150, `expected the oas-examples operations, got ${s.schemas}`);
  assert.ok(s.instances > 5000);
});

test('tightness: near misses the compact schema accepts do not exceed the committed baseline', () => {
  assert.equal(results.size, 3, 'the soundness tests must run first');
  const rows = [...results].map(([name, s]) => ({
    corpus: name,
    schemas: s.schemas,
    rewritten: s.rewritten,
    'valid checked': s.instances,
    'soundness failures': s.failures,
    'near misses': s.nearMisses,
    'accepted by compact': s.looseAccepted,
    'median bytes before→after': `${median(s.bytesBefore)}→${median(s.bytesAfter)}`,
  }));
  console.log(`\ncompact view soundness/tightness (oas documents skipped: ${oasSkipped.length ? oasSkipped.join(', ') : 'none'})`);
  console.table(rows);
  const real = [...(results.get('mcp')?.bytesBefore.map((b, i) => [b, results.get('mcp')!.bytesAfter[i]]) ?? []), ...(results.get('oas')?.bytesBefore.map((b, i) => [b, results.get('oas')!.bytesAfter[i]]) ?? [])];
  const changes = real.map(([b, a]) => a - b);
  const largest = real.reduce((m, x) => (Math.abs(x[1] - x[0]) > Math.abs(m[1] - m[0]) ? x : m), [0, 0]);
  console.log(`real corpus: ${real.length} schemas; median size change ${median(changes)} bytes; largest change ${largest[0]} → ${largest[1]} bytes`);

  const current: Baseline = {};
  for (const [name, s] of results) current[name] = { looseAccepted: s.looseAccepted, nearMisses: s.nearMisses };
  if (process.env.UPDATE_TIGHTNESS_BASELINE === '1') {
    writeFileSync(BASELINE_FILE, JSON.stringify(current, null, 2) + '\n');
    return;
  }
  const baseline = JSON.parse(readFileSync(BASELINE_FILE, 'utf8')) as Baseline;
  for (const [name, s] of Object.entries(current)) {
    assert.ok(baseline[name], `no baseline for corpus ${name}`);
    assert.ok(
      s.looseAccepted <= baseline[name].looseAccepted,
      `${name}: the compact schema now accepts ${s.looseAccepted} near misses (baseline ${baseline[name].looseAccepted})`,
    );
  }
});
