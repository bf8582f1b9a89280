// A reference to a secret in the config file: the name of an environment
// variable or the path of a file, never the secret itself (connector API
// secrets, the Redis URL, the key MCP replicas sign session ids with). The
// value is read where it is used and never logged; errors name the variable
// or the file, never what they hold.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { Type, type Static } from '@sinclair/typebox';
import { CLOSED, OneOf } from './schema-builders.js';

/** Env variable names as the config accepts them (same grammar as `${VAR}` refs). */
export const ENV_NAME_PATTERN = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Where the secret lives. `file` is resolved against the config directory. */
export const secretRefSchema = OneOf([
  Type.Object({ env: Type.String({ pattern: ENV_NAME_PATTERN.source, description: 'Environment variable holding the secret.' }) }, CLOSED),
  Type.Object(
    { file: Type.String({ minLength: 1, description: 'File holding the secret (relative to the config directory; one trailing newline is stripped).' }) },
    CLOSED,
  ),
]);
export type SecretRef = Static<typeof secretRefSchema>;

export class SecretRefError extends Error {}

/** Reads a secret at start-up; `what` names its use in the error ("redis.url"). Throws SecretRefError when unset, unreadable or empty. */
export function readSecretRef(ref: SecretRef, where: { env: NodeJS.ProcessEnv; configDir: string }, what: string): string {
  if ('env' in ref) {
    const value = where.env[ref.env];
    if (value === undefined || value === '') throw new SecretRefError(`${what}: environment variable ${ref.env} is not set`);
    return value;
  }
  let text: string;
  try {
    text = readFileSync(resolve(where.configDir, ref.file), 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new SecretRefError(`${what}: cannot read secret file ${ref.file}${code ? ` (${code})` : ''}`);
  }
  const value = text.replace(/\r?\n$/, '');
  if (value === '') throw new SecretRefError(`${what}: secret file ${ref.file} is empty`);
  return value;
}
