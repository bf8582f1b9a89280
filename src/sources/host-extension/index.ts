// Host-extension source (issue 2 item 6): tools the host itself provides,
// declared in config, such as a command runner (the only source that may be
// classified `exec`). toolId `x-host-<vendor>-<name>`.
import { formatToolId, NAME_PATTERN, VENDOR_PATTERN } from '../../contract/tool-id.js';
import type { JsonObject } from '../../contract/descriptor.js';
import { objectSchemaSchema, scopesSchema } from '../json-schema-shape.js';
import type { RawTool } from '../raw-tool.js';
import type { SourceContext } from '../source-context.js';
import { StaticSource } from '../static-source.js';
import { commandCall } from './command.js';

export interface HostExtensionConfig {
  vendor: string;
  name: string;
  title?: string;
  description?: string;
  inputSchema?: JsonObject;
  outputSchema?: JsonObject;
  scopes?: string[];
  /** The executable and its fixed arguments; run without a shell. */
  command: string[];
  /** Which tool arguments become argv entries, in order (see docs/config.md). */
  argv?: string[];
  /** The only environment the command gets (besides PATH), values may be `${VAR}`. */
  env?: Record<string, string>;
  timeoutMs?: number;
  maxOutputBytes?: number;
}

export const hostExtensionConfigSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['vendor', 'name', 'command'],
  properties: {
    vendor: { type: 'string', pattern: VENDOR_PATTERN.source },
    name: { type: 'string', pattern: NAME_PATTERN.source },
    title: { type: 'string', maxLength: 256 },
    description: { type: 'string', maxLength: 8192 },
    inputSchema: objectSchemaSchema,
    outputSchema: objectSchemaSchema,
    scopes: scopesSchema,
    command: { type: 'array', minItems: 1, items: { type: 'string', minLength: 1 } },
    argv: { type: 'array', items: { type: 'string', minLength: 1 } },
    env: { type: 'object', additionalProperties: { type: 'string' } },
    timeoutMs: { type: 'integer', minimum: 1, maximum: 3_600_000 },
    maxOutputBytes: { type: 'integer', minimum: 1, maximum: 67_108_864 },
  },
} as const;

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
