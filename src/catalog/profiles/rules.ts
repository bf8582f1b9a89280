// The providers' published rules for tool input schemas, as data, in one
// place: the rewriters (rewrite.ts) aim at them and the checkers (check.ts)
// hold a served schema against them. Where the rules were read, and when:
// docs/compact-view.md "Provider profiles".

export const PROFILE_IDS = ['openai-strict', 'gemini', 'anthropic'] as const;
export type ProfileId = (typeof PROFILE_IDS)[number];

export function isProfileId(v: unknown): v is ProfileId {
  return typeof v === 'string' && (PROFILE_IDS as readonly string[]).includes(v);
}

/** OpenAI structured outputs, strict function calling ("Supported schemas"). */
export const OPENAI = {
  types: new Set(['string', 'number', 'integer', 'boolean', 'object', 'array', 'null']),
  /** Every keyword a strict schema may carry (annotations included). */
  keywords: new Set([
    'type', 'description', 'enum', 'const', 'anyOf', 'properties', 'required', 'additionalProperties', 'items',
    'pattern', 'format', 'multipleOf', 'minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'minItems', 'maxItems',
  ]),
  formats: new Set(['date-time', 'time', 'date', 'duration', 'email', 'hostname', 'ipv4', 'ipv6', 'uuid']),
  maxProperties: 5000,
  maxObjectDepth: 10,
  maxStringLength: 120_000,
  maxEnumValues: 1000,
  largeEnum: { values: 250, maxLength: 15_000 },
} as const;

/** Gemini function declarations: the Schema object (a select subset of OpenAPI 3.0). */
export const GEMINI = {
  types: new Set(['string', 'number', 'integer', 'boolean', 'object', 'array']),
  keywords: new Set([
    'type', 'format', 'title', 'description', 'nullable', 'enum', 'properties', 'required', 'items',
    'minItems', 'maxItems', 'minimum', 'maximum', 'minLength', 'maxLength', 'pattern', 'minProperties', 'maxProperties', 'anyOf',
  ]),
  formats: { string: new Set(['enum', 'date-time']), number: new Set(['float', 'double']), integer: new Set(['int32', 'int64']) } as Record<string, ReadonlySet<string>>,
  /** Parameter names: a letter or underscore, then letters, digits, underscores; at most 64. */
  parameterName: /^[A-Za-z_][A-Za-z0-9_]{0,63}$/,
} as const;
