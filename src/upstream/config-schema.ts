// The host-wide `upstreamCredentials` section: the operator's sealing keys
// (secret references, newest first) and the host's public URL, which the
// links a person follows to connect are made from. Per-source modes live in
// each source's `credentials` key (sources/credentials-schema.ts).
import { Type, type Static } from '@sinclair/typebox';
import { CLOSED } from '../util/schema-builders.js';
import { secretRefSchema } from '../util/secret-ref.js';

export const upstreamCredentialsConfigSchema = Type.Object(
  {
    /** Sealing keys, newest first: the first seals, any opens; rows sealed with an older one are re-sealed at start. */
    keys: Type.Array(
      Type.Object(
        {
          id: Type.String({ pattern: '^[A-Za-z0-9._-]{1,64}$', description: 'The key id stored beside each sealed value.' }),
          secret: secretRefSchema,
        },
        CLOSED,
      ),
      { minItems: 1, maxItems: 16, description: 'AES-256 keys (64 hex digits or base64 of 32 bytes), newest first.' },
    ),
    /** The URL people reach this host at (links to connect an upstream); default: relative links. */
    publicUrl: Type.Optional(Type.String({ pattern: '^https?://[^\\s]+$', description: 'The URL people reach this host at, for connect links.' })),
  },
  { ...CLOSED, description: "Sealing of principals' own upstream credentials (docs/auth.md \"Upstream credentials\")." },
);
export type UpstreamCredentialsConfig = Static<typeof upstreamCredentialsConfigSchema>;
