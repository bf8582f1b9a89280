// Every kind of source the host knows, one line each: how that kind's
// section of the config becomes ToolSources. A new kind is its folder under
// sources/ (listing, health and calls: sources/raw-tool.ts) and a line here;
// nothing in the invocation layer changes. Config problems of every kind are
// reported together, each with its place in the file.
import type { LoadedConfig } from '../config/load.js';
import { createConnectorSource } from '../sources/connector/index.js';
import { loadHostExtensions } from '../sources/host-extension/index.js';
import { createMcpSource } from '../sources/mcp/index.js';
import { loadNodePack } from '../sources/node-pack/index.js';
import type { ToolSource } from '../sources/raw-tool.js';
import type { SourceContext } from '../sources/source-context.js';
import { loadWorkflows } from '../sources/workflow/index.js';
import { ConfigError, placeOf } from '../util/validated-yaml.js';

/** Throws ConfigError for problems in its section. Upstream sources only connect on `start()`. */
type SourceLoader = (loaded: LoadedConfig, ctx: SourceContext) => ToolSource[] | Promise<ToolSource[]>;

const LOADERS: readonly SourceLoader[] = [
  ({ config, dir, doc }) => loadEach(config.sources?.nodePacks ?? [], (pack, i) => loadNodePack(pack, dir, placeOf(doc, `/sources/nodePacks/${i}/path`))),
  ({ config, dir }) => nonEmpty(loadWorkflows(config.sources?.workflows ?? [], dir)),
  ({ config, doc }, ctx) => (config.sources?.hostExtensions?.length ? [loadHostExtensions(config.sources.hostExtensions, (i) => placeOf(doc, `/sources/hostExtensions/${i}`), ctx)] : []),
  ({ config }, ctx) => (config.sources?.mcp ?? []).map((c) => createMcpSource(c, ctx)),
  ({ config }, ctx) => (config.sources?.connectors ?? []).map((c) => createConnectorSource(c, ctx)),
];

/** The sources of every configured kind, in the order above; nothing is started yet. */
export async function loadSources(loaded: LoadedConfig, ctx: SourceContext): Promise<ToolSource[]> {
  const sources: ToolSource[] = [];
  const problems: string[] = [];
  for (const load of LOADERS) {
    try {
      sources.push(...(await load(loaded, ctx)));
    } catch (err) {
      if (err instanceof ConfigError) problems.push(...err.problems);
      else throw err;
    }
  }
  if (problems.length > 0) throw new ConfigError(problems);
  return sources;
}

/** One source per entry; every entry's problems are reported, not only the first's. */
async function loadEach<T>(entries: readonly T[], load: (entry: T, index: number) => Promise<ToolSource>): Promise<ToolSource[]> {
  const sources: ToolSource[] = [];
  const problems: string[] = [];
  for (const [i, entry] of entries.entries()) {
    try {
      sources.push(await load(entry, i));
    } catch (err) {
      if (err instanceof ConfigError) problems.push(...err.problems);
      else throw err;
    }
  }
  if (problems.length > 0) throw new ConfigError(problems);
  return sources;
}

/** A source without tools is left out, so discovery does not claim its kind. */
function nonEmpty(source: ToolSource): ToolSource[] {
  return source.tools().length > 0 ? [source] : [];
}
