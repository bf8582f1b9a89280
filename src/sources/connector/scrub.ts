// Which of a connector's resolved credential must never come back from a
// call (tool results, error messages): an API that echoes request headers,
// the URL or the body would otherwise hand `Bearer <secret>` to every caller
// of the tool, also to tenants that never saw the secret. The scrubbing
// itself, in every encoding, is util/scrub.ts's SecretScrubber.
import type { ConnectorAuthType } from './config-schema.js';

/** The values to keep out of results for one resolved connector secret. */
export function secretValues(secret: string, authType: ConnectorAuthType | undefined): string[] {
  const values = [secret];
  if (authType === 'basic') {
    const colon = secret.indexOf(':');
    if (colon >= 0 && colon < secret.length - 1) values.push(secret.slice(colon + 1));
  }
  return values;
}

