// One API-key principal as written in the config (`principals[]`, docs/config.md
// "principals") and in `auth.keysFile`: its TypeBox definition, which is both
// the JSON Schema and the type. Apart from the key store (api-keys.ts) so that
// `toolhost hash-key`, which needs only the hash, does not load TypeBox.
import { Type, type Static } from '@sinclair/typebox';
import { CLOSED } from '../util/schema-builders.js';
import { KEY_HASH_PATTERN } from './api-keys.js';

export const principalEntrySchema = Type.Object(
  {
    id: Type.String({ minLength: 1, maxLength: 128 }),
    tenant: Type.String({ pattern: '^[a-z0-9][a-z0-9_-]{0,62}$' }),
    scopes: Type.Optional(Type.Array(Type.String({ minLength: 1 }), { uniqueItems: true })),
    keyHash: Type.String({ pattern: KEY_HASH_PATTERN.source }),
    expiresAt: Type.Optional(Type.String({ format: 'date-time' })),
    revoked: Type.Optional(Type.Boolean()),
  },
  CLOSED,
);
export type PrincipalEntry = Static<typeof principalEntrySchema>;
