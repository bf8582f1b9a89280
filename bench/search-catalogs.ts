// The real catalogs the search benchmark runs against (docs/search.md
// "Measured quality"): GitHub's REST description as a connector (fetched on
// demand, pinned, into bench/.cache/, never a dependency) and the published
// MCP servers the tests use (server-everything, server-filesystem), all loaded
// through the real host from a config written to a temp dir.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pino from 'pino';
import { stringify } from 'yaml';
import { hashApiKey } from '../src/auth/api-keys.js';
import { type Host, startHost } from '../src/host/host.js';

export const OCTOKIT_OPENAPI = '@octokit/openapi@23.0.2';
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CACHE = join(ROOT, 'bench', '.cache');
const DOCUMENT = join(CACHE, 'octokit-openapi', 'package', 'generated', 'api.github.com.json');
export const BENCH_KEY = 'search-bench-key';

/** The GitHub REST description: from the cache, else `npm pack` of the pinned package into it. */
export function githubDocument(): string {
  if (existsSync(DOCUMENT)) return DOCUMENT;
  const dir = join(CACHE, 'octokit-openapi');
  mkdirSync(dir, { recursive: true });
  process.stderr.write(`fetching ${OCTOKIT_OPENAPI} into ${dir} (about 40 MB packed)\n`);
  const name = execFileSync('npm', ['pack', OCTOKIT_OPENAPI, '--silent'], { cwd: dir, encoding: 'utf8' }).trim().split('\n').pop()!;
  execFileSync('tar', ['-xzf', name, 'package/generated/api.github.com.json'], { cwd: dir });
  return DOCUMENT;
}

/** A running host (no HTTP) with the three catalogs, one tenant that sees them all. */
export async function startBenchHost(): Promise<Host> {
  const dir = mkdtempSync(join(tmpdir(), 'toolhost-search-bench-'));
  mkdirSync(join(dir, 'files'));
  const config = {
    tenants: { bench: { tools: ['*'], rateLimit: false } },
    principals: [{ id: 'bench', tenant: 'bench', keyHash: hashApiKey(BENCH_KEY) }],
    sources: {
      connectors: [{ id: 'github', document: githubDocument(), watch: false }],
      mcp: [
        { id: 'everything', transport: 'stdio', command: process.execPath, args: [join(ROOT, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js'), 'stdio'] },
        { id: 'fs', transport: 'stdio', command: process.execPath, args: [join(ROOT, 'node_modules/@modelcontextprotocol/server-filesystem/dist/index.js'), join(dir, 'files')] },
      ],
    },
  };
  const file = join(dir, 'toolhost.yaml');
  writeFileSync(file, stringify(config));
  const host = await startHost(file, { logger: pino({ level: 'silent' }), startDeadlineMs: 60_000 });
  // An MCP server slow to answer on a busy machine joins the catalog on a later refresh: wait for all three.
  const deadline = Date.now() + 60_000;
  const has = (prefix: string): boolean => host.store.current().entries.some((e) => e.tool.descriptor.toolId.startsWith(prefix));
  while (!['connector:github.', 'mcp:everything.', 'mcp:fs.'].every(has)) {
    if (Date.now() > deadline) throw new Error(`the bench catalogs did not all load: ${JSON.stringify(host.sourceHealth())}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return host;
}

if (process.argv[1] === fileURLToPath(import.meta.url) && process.argv.includes('--dump')) {
  const host = await startBenchHost();
  for (const e of host.store.current().entries) {
    const d = e.tool.descriptor;
    console.log(`${d.toolId}\t${d.title ?? ''}`);
  }
  await host.stop();
}
