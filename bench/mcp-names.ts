// How readable the MCP front door's tool names are on a large real catalog
// (docs/mcp.md "Names", figures in docs/benchmarks.md): GitHub's REST
// description loaded as a connector through the real host, named as one
// caller view sees it, with the default prefix and with `mcpPrefix` set.
// Checks that names are unique, inside the MCP name grammar, and counts the
// ones that needed a hash. Run: `npx tsx bench/mcp-names.ts`.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { stringify } from 'yaml';
import { readableForms } from '../src/catalog/tool-name-forms.js';
import { startHost } from '../src/host/host.js';
import { githubDocument, OCTOKIT_OPENAPI } from './search-catalogs.js';

const HASHED = /_[0-9a-f]{8,}$/;

async function measure(mcpPrefix: string | undefined): Promise<Record<string, unknown>> {
  const dir = mkdtempSync(join(tmpdir(), 'toolhost-names-bench-'));
  const file = join(dir, 'toolhost.yaml');
  const connector = { id: 'github', document: githubDocument(), watch: false, ...(mcpPrefix !== undefined ? { mcpPrefix } : {}) };
  writeFileSync(file, stringify({ tenants: { bench: { tools: ['*'] } }, sources: { connectors: [connector] } }));
  const host = await startHost(file, { logger: pino({ level: 'silent' }), startDeadlineMs: 60_000 });
  try {
    const view = host.store.current().viewFor({ tenant: 'bench', scopes: new Set() });
    const started = performance.now();
    const names = [...view.mcpNames.byToolId.values()];
    const namingMs = performance.now() - started;
    const invalid = names.filter((n) => !/^[A-Za-z0-9_-]{1,64}$/.test(n));
    const hashed = names.filter((n) => HASHED.test(n));
    const named = [...view.mcpNames.byToolId];
    // The whole name (rank 0) kept, and how many whole names do not fit in 64 characters at all.
    const whole = named.filter(([id, n]) => readableForms({ toolId: id, mcpPrefix })[0]?.rank === 0 && readableForms({ toolId: id, mcpPrefix })[0].name === n);
    const tooLong = named.filter(([id]) => id.replace(/:/g, '__').replace(/[^A-Za-z0-9_-]/g, '_').length > 64);
    return {
      mcpPrefix: mcpPrefix ?? '(default)',
      tools: names.length,
      unique: new Set(names).size === names.length,
      invalid: invalid.length,
      hashed: hashed.length,
      hashedPercent: Math.round((hashed.length / names.length) * 1000) / 10,
      wholeName: whole.length,
      shortened: names.length - whole.length - hashed.length,
      defaultNameOver64: tooLong.length,
      longest: Math.max(...names.map((n) => n.length)),
      namingMs: Math.round(namingMs),
      examples: hashed.slice(0, 5),
    };
  } finally {
    await host.stop();
  }
}

const results = [];
for (const prefix of [undefined, 'gh', '']) results.push(await measure(prefix));
console.log(JSON.stringify({ document: OCTOKIT_OPENAPI, results }, null, 2));
