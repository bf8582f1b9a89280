// Config-side schema fragments shared by the local sources (TypeBox
// definitions: JSON Schema and type in one): what a declared input/output
// schema must at least look like, a tool's scopes, a path entry.
import { Type, type Static } from '@sinclair/typebox';
import type { JsonObject } from '../contract/descriptor.js';
import { AnyObject, CLOSED } from '../util/schema-builders.js';

export const objectSchemaSchema = AnyObject<JsonObject>({ description: 'A JSON Schema (2020-12) object' });

export const scopesSchema = Type.Array(Type.String({ minLength: 1, maxLength: 128 }), { uniqueItems: true });

/**
 * What every tool declared in the host's own files says about itself (pack
 * manifests, workflow files, host extensions), after its id: spread into each
 * declaration's schema, so the bounds are the same everywhere.
 */
export const declaredToolFields = {
  title: Type.Optional(Type.String({ maxLength: 256 })),
  description: Type.Optional(Type.String({ maxLength: 8192 })),
  inputSchema: Type.Optional(objectSchemaSchema),
  outputSchema: Type.Optional(objectSchemaSchema),
  scopes: Type.Optional(scopesSchema),
};

/** A config entry that only names a path (a pack, a workflow file or directory). */
export const pathEntrySchema = Type.Object({ path: Type.String({ minLength: 1 }) }, CLOSED);
export type PathEntry = Static<typeof pathEntrySchema>;
