// Host-extension source (issue 2 item 6): tools the host itself provides,
// declared in config, such as a command runner (the only source that may be
// classified `exec`). toolId `x-host-<vendor>-<name>`.
import { Type, type Static } from '@sinclair/typebox';
import { formatToolId, NAME_PATTERN, VENDOR_PATTERN } from '../../contract/tool-id.js';
import { CLOSED, MapOf } from '../../util/schema-builders.js';
import { objectSchemaSchema, scopesSchema } from '../json-schema-shape.js';
import type { RawTool } from '../raw-tool.js';
import type { SourceContext } from '../source-context.js';
import { StaticSource } from '../static-source.js';
import { commandCall } from './command.js';

/** A `sources.hostExtensions[]` entry. */
export const hostExtensionConfigSchema = Type.Object(
  {
    vendor: Type.String({ pattern: VENDOR_PATTERN.source }),
    name: Type.String({ pattern: NAME_PATTERN.source }),
    title: Type.Optional(Type.String({ maxLength: 256 })),
    description: Type.Optional(Type.String({ maxLength: 8192 })),
    inputSchema: Type.Optional(objectSchemaSchema),
    outputSchema: Type.Optional(objectSchemaSchema),
    scopes: Type.Optional(scopesSchema),
    /** The executable and its fixed arguments; run without a shell. */
    command: Type.Array(Type.String({ minLength: 1 }), { minItems: 1 }),
    /** Which tool arguments become argv entries, in order (see docs/config.md). */
    argv: Type.Optional(Type.Array(Type.String({ minLength: 1 }))),
    /** The only environment the command gets (besides PATH), values may be `${VAR}`. */
    env: Type.Optional(MapOf(Type.String())),
    timeoutMs: Type.Optional(Type.Integer({ minimum: 1, maximum: 3_600_000 })),
    maxOutputBytes: Type.Optional(Type.Integer({ minimum: 1, maximum: 67_108_864 })),
  },
  CLOSED,
);
export type HostExtensionConfig = Static<typeof hostExtensionConfigSchema>;

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
