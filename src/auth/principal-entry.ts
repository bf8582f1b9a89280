// One API-key principal as written in the config (`principals[]`, docs/config.md
// "principals") and in `auth.keysFile`: its TypeBox definition, which is both
// the JSON Schema and the type. Apart from the key store (api-keys.ts) so that
// `toolhost hash-key`, which needs only the hash, does not load TypeBox.
import { Type, type Static } from '@sinclair/typebox';
import { CLOSED } from '../util/schema-builders.js';
import { TENANT_ID_PATTERN } from '../contract/identifiers.js';

/** A stored key hash: `sha256:` and 64 lowercase hex digits (`toolhost hash-key` prints one). */
const KEY_HASH_PATTERN = /^sha256:[0-9a-f]{64}$/;

export const principalEntrySchema = Type.Object(
  {
    id: Type.String({ minLength: 1, maxLength: 128 }),
    tenant: Type.String({ pattern: TENANT_ID_PATTERN }),
    scopes: Type.Optional(Type.Array(Type.String({ minLength: 1 }), { uniqueItems: true })),
    keyHash: Type.String({ pattern: KEY_HASH_PATTERN.source }),
    expiresAt: Type.Optional(Type.String({ format: 'date-time' })),
    revoked: Type.Optional(Type.Boolean()),
  },
  CLOSED,
);
export type PrincipalEntry = Static<typeof principalEntrySchema>;
