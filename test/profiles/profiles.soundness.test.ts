// SOUNDNESS and the ROUND TRIP of the provider profiles, over the corpora of
// the compact view's soundness test (generated schemas with every banned
// keyword, the live MCP servers, the oas-examples request schemas):
// - forth: for every instance `a` the original accepts (ajv), forth(a) is
//   valid under the profile's served schema and back(forth(a)) equals `a`;
// - back: for every instance the served schema accepts (generated from it),
//   back(x) is either a value (then validated against the tool's schema on
//   a call) or a BackError naming path and rule, never another exception;
// - every served schema is checked against the provider's rules; a tool
//   that breaks one is counted as not fitting (and served marked).
import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import { isDeepStrictEqual } from 'node:util';
import fc from 'fast-check';
import { BackError, back, forth } from '../../src/catalog/profiles/plan.js';
import { profileSchema } from '../../src/catalog/profiles/profile-schema.js';
import type { ProfileId } from '../../src/catalog/profiles/rules.js';
import { schemaWithBannedKeywords } from '../compact/support/arbitraries.js';
import { probe } from '../compact/support/instances.js';
import { fetchLiveTools } from '../compact/support/mcp.js';
import { loadOasCorpus } from '../compact/support/oas.js';
import { hashString } from '../compact/support/random.js';
import { compileLenient } from '../compact/support/validators.js';
import { servedValidator } from './support/served.js';

type Obj = { [k: string]: unknown };
interface Case {
  id: string;
  schema: Obj;
}
interface Row {
  schemas: number;
  fit: number;
  loosened: number;
  valid: number;
  roundTripFailures: number;
  served: number;
  backErrors: number;
  backValid: number;
  crashes: number;
}

const corpora = new Map<string, Case[]>();
const rows: Array<Row & { corpus: string; profile: ProfileId }> = [];
const OPTIONS = { faker: 1, guided: 8, random: 4, mutations: 20 };
/** oas-examples is the largest corpus: fewer instances per operation (the measured corpus, bench/profiles-corpus.ts, runs more). */
const OAS_OPTIONS = { faker: 1, guided: 5, random: 3, mutations: 12 };

before(async () => {
  const [live, oas] = await Promise.all([fetchLiveTools(), loadOasCorpus()]);
  corpora.set('mcp', live.map((t) => ({ id: `${t.server}/${t.name}`, schema: t.inputSchema })));
  const seen = new Set<string>();
  corpora.set('oas', oas.cases.filter((c) => !seen.has(JSON.stringify(c.schema)) && seen.add(JSON.stringify(c.schema))).map((c) => ({ id: c.id, schema: c.schema })));
  const generated = fc.sample(schemaWithBannedKeywords(['a', 'b', 'kind', 'oneOf', '$ref', 'not'], 3, true), { numRuns: 40, seed: 303030 });
  corpora.set('generated', generated.map((s, i) => ({ id: `generated#${i}`, schema: s })));
});

/** The original's validator, compiled once for both profiles. */
const originals = new Map<Case, ((x: unknown) => boolean | undefined) | undefined>();
function originalValidator(c: Case): ((x: unknown) => boolean | undefined) | undefined {
  if (!originals.has(c)) {
    try {
      originals.set(c, compileLenient(c.schema));
    } catch {
      originals.set(c, undefined);
    }
  }
  return originals.get(c);
}

function run(corpus: string, profile: ProfileId): Row {
  const row: Row = { schemas: 0, fit: 0, loosened: 0, valid: 0, roundTripFailures: 0, served: 0, backErrors: 0, backValid: 0, crashes: 0 };
  const failures: string[] = [];
  for (const c of corpora.get(corpus)!) {
    const accepts = originalValidator(c);
    if (accepts === undefined) continue; // ajv cannot compile the original (an invalid upstream schema)
    row.schemas++;
    const p = profileSchema(profile, structuredClone(c.schema) as never);
    if (p.breaks.length === 0) row.fit++;
    if (p.loosened.length > 0) row.loosened++;
    const served = servedValidator(profile, p.schema);
    // A BackError here is a failure for a valid instance (and a rejection for a near miss).
    const roundTrip = (a: unknown): boolean => {
      const f = forth(a, p.plan);
      try {
        return served(f) && isDeepStrictEqual(back(f, p.plan), a);
      } catch (e) {
        if (e instanceof BackError) return false;
        throw e;
      }
    };
    const seed = hashString(`${profile} ${c.id}`);
    const options = corpus === 'oas' ? OAS_OPTIONS : OPTIONS;
    const r = probe(c.schema, accepts, roundTrip, seed, options);
    row.valid += r.valid;
    row.roundTripFailures += r.failures.length;
    for (const f of r.failures.slice(0, 1)) failures.push(`${c.id}: ${JSON.stringify(f).slice(0, 300)} → ${JSON.stringify(forth(f, p.plan)).slice(0, 300)}\n  served: ${JSON.stringify(p.schema).slice(0, 600)}`);
    const original = (x: unknown): boolean => accepts(x) === true;
    const backs = (x: unknown): boolean => {
      try {
        if (original(back(x, p.plan))) row.backValid++;
        return true;
      } catch (e) {
        if (e instanceof BackError) {
          row.backErrors++;
          return true;
        }
        failures.push(`${c.id}: back(${JSON.stringify(x).slice(0, 200)}) threw ${String(e)}`);
        return false;
      }
    };
    const reverse = probe(p.schema, served, backs, seed ^ 1, options);
    row.served += reverse.valid;
    row.crashes += reverse.failures.length;
  }
  rows.push({ corpus, profile, ...row });
  assert.equal(row.roundTripFailures + row.crashes, 0, `${profile}/${corpus}:\n${failures.slice(0, 6).join('\n')}`);
  return row;
}

for (const profile of ['openai-strict', 'gemini'] as const) {
  test(`${profile}: generated schemas round-trip soundly`, () => {
    assert.ok(run("generated", profile).valid > 300);
  });
  test(`${profile}: the live MCP servers' tools round-trip soundly`, () => {
    const r = run('mcp', profile);
    assert.ok(r.schemas >= 20 && r.valid > 300);
    assert.equal(r.fit, r.schemas, 'every MCP server tool fits the provider rules');
  });
  test(`${profile}: the oas-examples operations round-trip soundly`, () => {
    const r = run('oas', profile);
    assert.ok(r.valid > 1000);
    if (profile === 'openai-strict') assert.equal(r.fit, r.schemas, 'every operation fits OpenAI strict mode');
  });
}

test('figures', () => {
  console.table(rows);
});
