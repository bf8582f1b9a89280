// Config-side JSON Schema fragments shared by the local sources: what a
// declared input/output schema must at least look like.
export const objectSchemaSchema = {
  type: 'object',
  description: 'A JSON Schema (2020-12) object',
} as const;

export const scopesSchema = { type: 'array', items: { type: 'string', minLength: 1, maxLength: 128 }, uniqueItems: true } as const;
