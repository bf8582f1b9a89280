// The connector secret is read only at call time, from the env variable or
// file the config names. It is never stored on the source, in a RawTool, in
// health, in metrics or in a log line; errors name the variable or file,
// never a value.
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { SourceContext } from '../source-context.js';
import type { ConnectorSourceConfig } from './config-schema.js';

export class ConnectorSecretError extends Error {}

/**
 * Resolves the secret referenced by `config.auth`: `{ env }` from ctx.env,
 * `{ file }` read relative to ctx.configDir (one trailing newline stripped).
 * Returns undefined when the connector has no `auth`. Throws
 * ConnectorSecretError when the reference cannot be read or is empty.
 */
export async function resolveConnectorSecret(
  config: ConnectorSourceConfig,
  ctx: Pick<SourceContext, 'env' | 'configDir'>,
): Promise<string | undefined> {
  const auth = config.auth;
  if (!auth) return undefined;
  const ref = auth.secret;
  if ('env' in ref) {
    const value = ctx.env[ref.env];
    if (value === undefined || value === '') {
      throw new ConnectorSecretError(`connector ${config.id}: environment variable ${ref.env} is not set`);
    }
    return value;
  }
  const file = path.resolve(ctx.configDir, ref.file);
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new ConnectorSecretError(`connector ${config.id}: cannot read secret file ${ref.file}${code ? ` (${code})` : ''}`);
  }
  const value = text.replace(/\r?\n$/, '');
  if (value === '') throw new ConnectorSecretError(`connector ${config.id}: secret file ${ref.file} is empty`);
  return value;
}

/**
 * Whether the secret can be read now (the variable set and non-empty, the
 * file there and non-empty), as a call would read it. For health reports,
 * which say only yes or no: which variable or file is for the operator's log
 * and `toolhost validate`, as at call time.
 */
export function connectorSecretReadable(config: ConnectorSourceConfig, ctx: Pick<SourceContext, 'env' | 'configDir'>): boolean {
  const ref = config.auth?.secret;
  if (ref === undefined) return true;
  if ('env' in ref) return Boolean(ctx.env[ref.env]);
  try {
    return readFileSync(path.resolve(ctx.configDir, ref.file), 'utf8').replace(/\r?\n$/, '') !== '';
  } catch {
    return false;
  }
}
