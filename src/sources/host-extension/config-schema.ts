// A `sources.hostExtensions[]` entry of the config: its TypeBox definition,
// both the JSON Schema and the type. Apart from the source so that the
// command runner (command.ts) can name the type without importing the source.
import { Type, type Static } from '@sinclair/typebox';
import { NAME_PATTERN, VENDOR_PATTERN } from '../../contract/tool-id.js';
import { CLOSED, MapOf } from '../../util/schema-builders.js';
import { declaredToolFields } from '../json-schema-shape.js';

/** A `sources.hostExtensions[]` entry. */
export const hostExtensionConfigSchema = Type.Object(
  {
    vendor: Type.String({ pattern: VENDOR_PATTERN.source }),
    name: Type.String({ pattern: NAME_PATTERN.source }),
    ...declaredToolFields,
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
