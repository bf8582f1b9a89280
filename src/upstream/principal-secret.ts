// A principal's own stored secret (credentials.mode `per-principal`) turned
// into what the source sends: a bearer or basic Authorization header, a
// named header, or (connectors) a query parameter. `secrets` lists every
// form the value travels in, for the scrubber; `key` names the value by a
// hash, never by the value.
import { createHash } from 'node:crypto';
import type { CredentialsConfig } from '../sources/credentials-schema.js';
import type { UpstreamCredential } from '../sources/upstream-credential.js';

export function secretCredential(config: CredentialsConfig, owner: string, secret: string): UpstreamCredential {
  const key = `${owner}#${createHash('sha256').update(secret).digest('base64url').slice(0, 22)}`;
  const base = { owner, key, replacesShared: true };
  switch (config.type ?? 'bearer') {
    case 'bearer':
      return { ...base, headers: { Authorization: `Bearer ${secret}` }, secrets: [secret] };
    case 'basic': {
      const encoded = Buffer.from(secret, 'utf8').toString('base64');
      const colon = secret.indexOf(':');
      const password = colon >= 0 && colon < secret.length - 1 ? [secret.slice(colon + 1)] : [];
      return { ...base, headers: { Authorization: `Basic ${encoded}` }, secrets: [secret, encoded, ...password] };
    }
    case 'header':
      return { ...base, headers: { [config.name!]: secret }, secrets: [secret] };
    case 'query':
      return { ...base, headers: {}, query: [[config.name!, secret]], secrets: [secret] };
  }
}
