// Creates the sources that connect to something outside the host (MCP
// servers, OpenAPI connectors) from their config sections.
import type { LoadedConfig } from '../config/load.js';
import type { ToolSource } from '../sources/raw-tool.js';
import type { SourceContext } from '../sources/source-context.js';

export function createDynamicSources(_loaded: LoadedConfig, _ctx: SourceContext): ToolSource[] {
  return [];
}
