// Config-side JSON Schema fragments shared by the local sources: what a
// declared input/output schema must at least look like.
export const objectSchemaSchema = {
  type: 'object',
  description: 'A JSON Schema (2020-12) object',
} as const;

export const scopesSchema = { type: 'array', items: { type: 'string', minLength: 1, maxLength: 128 }, uniqueItems: true } as const;

/** A config entry that only names a path (a pack, a workflow file or directory). */
export const pathEntrySchema = {
  type: 'object',
  additionalProperties: false,
  required: ['path'],
  properties: { path: { type: 'string', minLength: 1 } },
} as const;
