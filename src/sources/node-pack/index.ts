// Node-pack source: tool packs on disk, each a manifest of
// tools plus a JavaScript handler module. toolId `openwop:<typeId>`. Handlers
// are loaded and checked to exist here, and called in-process under the
// host's default deadline.
import { existsSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Type, type Static } from '@sinclair/typebox';
import { NAME_PATTERN, SOURCE_ID_PATTERN, formatToolId } from '../../contract/tool-id.js';
import { CLOSED } from '../../util/schema-builders.js';
import { ConfigError, placeOf, readLocated, validateLocated } from '../../util/validated-yaml.js';
import { CallAbort, errorResult, resultOf, withDeadline, type DispatchOutcome } from '../call-result.js';
import type { InvokeContext, RawTool } from '../raw-tool.js';
import { declaredToolFields, pathEntrySchema } from '../json-schema-shape.js';
import { StaticSource } from '../static-source.js';

/** A `sources.nodePacks[]` entry: `path` is a pack directory holding `toolpack.yaml`, or the manifest file itself. */
export const nodePackConfigSchema = pathEntrySchema;
export type NodePackConfig = Static<typeof nodePackConfigSchema>;

/** A pack's `toolpack.yaml`. */
const manifestSchema = Type.Object(
  {
    pack: Type.String({ pattern: SOURCE_ID_PATTERN.source }),
    handlers: Type.String({ minLength: 1, description: 'handler module path, relative to the manifest' }),
    tools: Type.Array(
      Type.Object(
        {
          typeId: Type.String({ pattern: NAME_PATTERN.source }),
          ...declaredToolFields,
        },
        CLOSED,
      ),
    ),
  },
  CLOSED,
);
type PackManifest = Static<typeof manifestSchema>;

/**
 * What a handler gets besides its arguments: the call's signal, its toolId,
 * and `progress` to tell the caller how far it has come (a no-op when the
 * caller asked for no progress; the value must grow from one report to the next).
 */
export type ToolHandler = (args: Record<string, unknown>, context: { signal: AbortSignal; toolId: string; progress: (progress: number, total?: number, message?: string) => void }) => unknown;

/** The pack's `invoke`: a handler that throws fails the call; one that outlives the deadline is abandoned (its signal aborts). */
function handlerCall(handlers: ReadonlyMap<string, ToolHandler>) {
  return (toolId: string, args: Record<string, unknown>, context: InvokeContext): Promise<DispatchOutcome> => {
    const handler = handlers.get(toolId);
    if (!handler) return Promise.resolve({ status: 'error', result: errorResult('no handler is loaded for this tool') });
    return withDeadline(context.defaultTimeoutMs, context.signal, async (signal) => {
      try {
        const progress = (p: number, total?: number, message?: string) => {
          if (!signal.aborted) context.onProgress?.(p, total, message);
        };
        return { status: 'ok', result: resultOf(await handler(args, { signal, toolId, progress })) };
      } catch (err) {
        if (err instanceof CallAbort) throw err;
        return { status: 'error', result: errorResult(`the tool failed: ${(err as Error).message ?? String(err)}`) };
      }
    });
  };
}

export const MANIFEST_FILE = 'toolpack.yaml';

export async function loadNodePack(config: NodePackConfig, configDir: string, configPlace: string): Promise<StaticSource> {
  const target = resolve(configDir, config.path);
  const manifestFile = existsSync(target) && statSync(target).isDirectory() ? join(target, MANIFEST_FILE) : target;
  if (!existsSync(manifestFile)) throw new ConfigError([`${configPlace}: pack manifest ${manifestFile} does not exist`]);
  const doc = readLocated(manifestFile);
  const manifest = validateLocated<PackManifest>(doc, manifestSchema);

  const handlerFile = resolve(dirname(manifestFile), manifest.handlers);
  let module: Record<string, unknown>;
  try {
    module = (await import(pathToFileURL(handlerFile).href)) as Record<string, unknown>;
  } catch (err) {
    throw new ConfigError([`${placeOf(doc, '/handlers')}: cannot load handler module ${handlerFile}: ${(err as Error).message.split('\n')[0]}`]);
  }
  const exported = (module.handlers ?? module.default ?? module) as Record<string, unknown>;

  const problems: string[] = [];
  const tools: RawTool[] = [];
  const handlers = new Map<string, ToolHandler>();
  manifest.tools.forEach((t, i) => {
    const toolId = formatToolId({ source: 'node-pack', typeId: t.typeId });
    const handler = exported[t.typeId];
    if (!toolId) problems.push(`${placeOf(doc, `/tools/${i}/typeId`)}: invalid typeId`);
    else if (typeof handler !== 'function') problems.push(`${placeOf(doc, `/tools/${i}/typeId`)}: handler module ${manifest.handlers} exports no function "${t.typeId}"`);
    else {
      handlers.set(toolId, handler as ToolHandler);
      tools.push({
        source: 'node-pack',
        toolId,
        origin: placeOf(doc, `/tools/${i}`),
        title: t.title,
        description: t.description,
        inputSchema: t.inputSchema,
        outputSchema: t.outputSchema,
        scopes: t.scopes,
      });
    }
  });
  if (problems.length > 0) throw new ConfigError(problems);
  return new StaticSource(`node-pack:${manifest.pack}`, 'node-pack', tools, handlerCall(handlers));
}
