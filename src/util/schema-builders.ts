// The config file, pack manifests, workflow files and the keys file are each
// defined once, with TypeBox: the definition is both the JSON Schema (2020-12)
// the loader validates with and, through `Static`, the TypeScript type. The
// builders here emit the few shapes TypeBox writes differently from how these
// schemas have always been written, because the shape decides ajv's error
// lines (docs/config.md): an `enum` says `must be one of "a", "b"`, where
// TypeBox's union of literals would only say "must be equal to constant".
import { Type, type SchemaOptions, type Static, type TSchema, type TUnsafe } from '@sinclair/typebox';

/** Every object of these files is closed: a misspelt key is an error, with a did-you-mean. */
export const CLOSED = { additionalProperties: false } as const;

/** `{ enum: [...] }`. */
export function StringEnum<const T extends readonly string[]>(values: T, options?: SchemaOptions): TUnsafe<T[number]> {
  return Type.Unsafe<T[number]>({ ...options, enum: [...values] });
}

/** `{ const: value }`, without the `type` that Type.Literal adds (which would make a wrong value two errors). */
export function Const<const T extends string>(value: T, options?: SchemaOptions): TUnsafe<T> {
  return Type.Unsafe<T>({ ...options, const: value });
}

/** `oneOf` of mutually exclusive branches (TypeBox's Union writes anyOf). */
export function OneOf<const T extends readonly TSchema[]>(branches: T, options?: SchemaOptions): TUnsafe<Static<T[number]>> {
  return Type.Unsafe<Static<T[number]>>({ ...options, oneOf: [...branches] });
}

/** An object of any keys with one value schema, as `additionalProperties: <schema>` (Type.Record writes patternProperties). */
export function MapOf<T extends TSchema>(values: T, options?: SchemaOptions): TUnsafe<Record<string, Static<T>>> {
  return Type.Unsafe<Record<string, Static<T>>>({ ...options, type: 'object', additionalProperties: values });
}

/** A free-form JSON object (`{ type: 'object' }` and nothing else), such as a declared input schema. */
export function AnyObject<T extends object = Record<string, unknown>>(options?: SchemaOptions): TUnsafe<T> {
  return Type.Unsafe<T>({ ...options, type: 'object' });
}
