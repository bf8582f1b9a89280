// Host-extension source: tools the host itself provides,
// declared in config, such as a command runner (the only source that may be
// classified `exec`). toolId `x-host-<vendor>-<name>`.
import { formatToolId } from '../../contract/tool-id.js';
import type { RawTool } from '../raw-tool.js';
import type { SourceContext } from '../source-context.js';
import { StaticSource } from '../static-source.js';
import { commandCall } from './command.js';
import type { HostExtensionConfig } from './config-schema.js';

export { hostExtensionConfigSchema, type HostExtensionConfig } from './config-schema.js';

/** The extensions' tools, each called by running its command (command.ts). */
export function loadHostExtensions(configs: readonly HostExtensionConfig[], origin: (index: number) => string, ctx: Pick<SourceContext, 'env' | 'configDir'>): StaticSource {
  // The schema's patterns guarantee a valid id.
  const toolIdOf = (c: HostExtensionConfig) => formatToolId({ source: 'host-extension', vendor: c.vendor, name: c.name }) as string;
  const tools: RawTool[] = configs.map((c, i) => ({
    source: 'host-extension',
    toolId: toolIdOf(c),
    origin: origin(i),
    title: c.title,
    description: c.description,
    inputSchema: c.inputSchema,
    outputSchema: c.outputSchema,
    scopes: c.scopes,
  }));
  const byToolId = new Map(configs.map((c) => [toolIdOf(c), c]));
  return new StaticSource('host-extension', 'host-extension', tools, commandCall(byToolId, ctx));
}
