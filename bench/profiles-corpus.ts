// The measured corpus of the provider profiles (docs/compact-view.md
// "Measured"): the tools of five published MCP servers (fetched live over
// stdio with the SDK client), GitHub's REST API loaded as a connector by the
// real host, and the oas-examples request schemas. Per profile: the share of
// tools whose served schema the provider's rules accept (and, for
// comparison, the compact view's schema as it is), the share loosened and
// how, the soundness and round-trip probe of test/profiles (generated valid
// instances, mutants, neighbours), and the tools that do not fit, with the
// rule each breaks.
//
//   node --import tsx bench/profiles-corpus.ts [--instances small|full]
//
// The three MCP servers that are not dev dependencies and the GitHub
// description are fetched on demand, pinned, into bench/.cache/ (never a
// dependency), as bench/search-catalogs.ts does.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isDeepStrictEqual } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import pino from 'pino';
import { stringify } from 'yaml';
import { closeTopLevel } from '../src/catalog/compact/close-top-level.js';
import { compactInputSchema } from '../src/catalog/compact/compact-input-schema.js';
import { checkProfileSchema } from '../src/catalog/profiles/check.js';
import { BackError, back, forth } from '../src/catalog/profiles/plan.js';
import { profileSchema } from '../src/catalog/profiles/profile-schema.js';
import { PROFILE_IDS, type ProfileId } from '../src/catalog/profiles/rules.js';
import { startHost } from '../src/host/host.js';
import { probe } from '../test/compact/support/instances.js';
import { loadOasCorpus } from '../test/compact/support/oas.js';
import { hashString } from '../test/compact/support/random.js';
import { compileLenient } from '../test/compact/support/validators.js';
import { servedValidator } from '../test/profiles/support/served.js';
import { githubDocument } from './search-catalogs.js';

type Obj = Record<string, unknown>;
interface Case { id: string; schema: Obj }

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CACHE = join(ROOT, 'bench', '.cache', 'mcp-servers');
const EXTRA_SERVERS = ['@modelcontextprotocol/server-memory@2026.8.31', '@modelcontextprotocol/server-sequential-thinking@2026.8.31', '@modelcontextprotocol/server-github@2025.4.8'];
const full = process.argv.includes('full');
const OPTIONS = full ? { faker: 6, guided: 30, random: 20, mutations: 150 } : { faker: 2, guided: 10, random: 6, mutations: 30 };

function cachedServer(spec: string): string {
  const name = spec.slice(0, spec.lastIndexOf('@'));
  const dir = join(CACHE, 'node_modules', name);
  if (!existsSync(dir)) {
    mkdirSync(CACHE, { recursive: true });
    if (!existsSync(join(CACHE, 'package.json'))) writeFileSync(join(CACHE, 'package.json'), '{"private":true}');
    process.stderr.write(`installing ${spec} into ${CACHE}\n`);
    execFileSync('npm', ['install', '--no-audit', '--no-fund', '--silent', spec], { cwd: CACHE, stdio: 'inherit' });
  }
  return dir;
}

function entryOf(dir: string): string {
  const meta = JSON.parse(execFileSync(process.execPath, ['-e', `process.stdout.write(require('fs').readFileSync(${JSON.stringify(join(dir, 'package.json'))}, 'utf8'))`], { encoding: 'utf8' })) as { bin: string | Record<string, string> };
  return join(dir, typeof meta.bin === 'string' ? meta.bin : Object.values(meta.bin)[0]);
}

async function mcpTools(server: string, args: string[]): Promise<Case[]> {
  const client = new Client({ name: 'toolhost-profiles-corpus', version: '0.0.0' });
  await client.connect(new StdioClientTransport({ command: process.execPath, args, stderr: 'ignore', env: { ...process.env, GITHUB_PERSONAL_ACCESS_TOKEN: 'unused' } as Record<string, string> }));
  try {
    const out: Case[] = [];
    let cursor: string | undefined;
    do {
      const page = await client.listTools(cursor ? { cursor } : {});
      for (const t of page.tools) out.push({ id: `${server}/${t.name}`, schema: t.inputSchema as Obj });
      cursor = page.nextCursor;
    } while (cursor);
    return out;
  } finally {
    await client.close();
  }
}

async function mcpCorpus(): Promise<Case[]> {
  const files = mkdtempSync(join(tmpdir(), 'toolhost-profiles-fs-'));
  const local = (pkg: string) => join(ROOT, 'node_modules', pkg);
  const lists = await Promise.all([
    mcpTools('everything', [entryOf(local('@modelcontextprotocol/server-everything')), 'stdio']),
    mcpTools('filesystem', [entryOf(local('@modelcontextprotocol/server-filesystem')), files]),
    ...EXTRA_SERVERS.map((spec) => mcpTools(spec.split('/')[1].split('@')[0].replace('server-', ''), [entryOf(cachedServer(spec))])),
  ]);
  return lists.flat();
}

async function githubCorpus(): Promise<Case[]> {
  const dir = mkdtempSync(join(tmpdir(), 'toolhost-profiles-gh-'));
  const file = join(dir, 'toolhost.yaml');
  writeFileSync(file, stringify({ tenants: { t: { tools: ['*'] } }, principals: [], sources: { connectors: [{ id: 'github', document: githubDocument(), watch: false }] } }));
  const host = await startHost(file, { logger: pino({ level: 'silent' }), startDeadlineMs: 120_000 });
  try {
    return host.store.current().entries.flatMap((e) => (e.tool.descriptor.inputSchema ? [{ id: e.tool.descriptor.toolId, schema: e.tool.descriptor.inputSchema as Obj }] : []));
  } finally {
    await host.stop();
  }
}

/** The compact view's schema as the MCP compact profile serves it: the closed top level plus `required`. */
function compactAsIs(schema: Obj): Obj {
  const closed = closeTopLevel(compactInputSchema(schema as never).schema);
  return closed.required.length > 0 ? { ...closed.schema, required: closed.required } : closed.schema;
}

/** A loosening note's kind: its text with names, numbers and quoted values taken out. */
const kindOf = (note: string): string => note.replace(/^[^:]*: /, '').replace(/"[^"]*"/g, '"…"').replace(/\d+/g, 'N').slice(0, 70);

function measure(corpus: string, cases: Case[], profile: ProfileId): void {
  const r = { tools: cases.length, compactFits: 0, fits: 0, loosened: 0, valid: 0, violations: 0, served: 0, backErrors: 0, crashes: 0 };
  const kinds = new Map<string, number>();
  const unfit: string[] = [];
  for (const c of cases) {
    if (checkProfileSchema(profile, compactAsIs(c.schema)).length === 0) r.compactFits++;
    const p = profileSchema(profile, structuredClone(c.schema) as never);
    const compactNotes = compactInputSchema(structuredClone(c.schema) as never).loosened.length;
    if (p.breaks.length === 0) r.fits++;
    else unfit.push(`  ${c.id}: ${p.breaks.slice(0, 2).map((b) => `${b.path || '/'} ${b.rule}`).join('; ')}`);
    const own = p.loosened.slice(compactNotes);
    if (own.length > 0) r.loosened++;
    for (const k of new Set(own.map(kindOf))) kinds.set(k, (kinds.get(k) ?? 0) + 1);
    let accepts;
    try {
      accepts = compileLenient(c.schema);
    } catch {
      continue;
    }
    const served = servedValidator(profile, p.schema);
    const roundTrip = (a: unknown): boolean => {
      try {
        const f = forth(a, p.plan);
        return served(f) && isDeepStrictEqual(back(f, p.plan), a);
      } catch {
        return false;
      }
    };
    const seed = hashString(`${profile} ${c.id}`);
    const fwd = probe(c.schema, accepts, roundTrip, seed, OPTIONS);
    r.valid += fwd.valid;
    r.violations += fwd.failures.length;
    const backs = (x: unknown): boolean => {
      try {
        back(x, p.plan);
        return true;
      } catch (e) {
        if (e instanceof BackError) r.backErrors++;
        return e instanceof BackError;
      }
    };
    const rev = probe(p.schema, served, backs, seed ^ 1, OPTIONS);
    r.served += rev.valid;
    r.crashes += rev.failures.length;
  }
  const pct = (n: number) => `${n}/${r.tools} (${((100 * n) / Math.max(1, r.tools)).toFixed(0)}%)`;
  console.log(`\n## ${profile} × ${corpus}`);
  console.log(`compact view as is, accepted: ${pct(r.compactFits)}; profile accepted: ${pct(r.fits)}; loosened by the profile: ${pct(r.loosened)}`);
  console.log(`valid instances ${r.valid}, soundness/round-trip violations ${r.violations}; served-schema instances ${r.served}, back errors (path+rule) ${r.backErrors}, crashes ${r.crashes}`);
  for (const [k, n] of [...kinds].sort((a, b) => b[1] - a[1]).slice(0, 8)) console.log(`  loosened: ${n} tools: ${k}`);
  if (unfit.length > 0) console.log(`not fitting (${unfit.length}):\n${unfit.slice(0, 15).join('\n')}${unfit.length > 15 ? `\n  … and ${unfit.length - 15} more` : ''}`);
}

const [mcp, github, oas] = await Promise.all([mcpCorpus(), githubCorpus(), loadOasCorpus()]);
const seen = new Set<string>();
const corpora: Array<[string, Case[]]> = [
  [`MCP servers (${mcp.length} tools)`, mcp],
  [`GitHub REST (${github.length} operations)`, github],
  ['oas-examples', oas.cases.filter((c) => !seen.has(JSON.stringify(c.schema)) && seen.add(JSON.stringify(c.schema))).map((c) => ({ id: c.id, schema: c.schema as Obj }))],
];
console.log(`instances: ${full ? 'full' : 'small'} ${JSON.stringify(OPTIONS)}`);
for (const profile of PROFILE_IDS) for (const [name, cases] of corpora) measure(name, cases, profile);
