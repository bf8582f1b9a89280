// `auth.keysFile`: API-key principals in their own YAML/JSON file, reloaded
// without a restart (docs/auth.md "Key file"). Start-up is strict (a broken
// file stops the host, with its places); a later broken edit keeps the last
// good keys and logs every problem with file:line:col.
import { readFileSync } from 'node:fs';
import type { Logger } from 'pino';
import { ConfigError, parseLocated, placeOf, validateLocated, type LocatedDocument } from '../util/validated-yaml.js';
import { Type, type Static } from '@sinclair/typebox';
import { CLOSED } from '../util/schema-builders.js';
import { recordOfEntry, type ApiKeyRecord, type ApiKeyStore } from './api-keys.js';
import { principalEntrySchema, type PrincipalEntry } from './principal-entry.js';
import { watchFileText, type FileWatch } from './watch.js';

export const keysFileSchema = Type.Object({ principals: Type.Array(principalEntrySchema) }, CLOSED);
export type KeysFile = Static<typeof keysFileSchema>;

export interface KeysFileContext {
  /** Tenant ids the config knows. */
  tenants: ReadonlySet<string>;
  /** The inline `principals` of the main config: their ids and keys may not be reused. */
  inline: readonly PrincipalEntry[];
}

/** Parses and checks a keys file's text; throws ConfigError with every problem located. */
export function parseKeysFile(file: string, text: string, ctx: KeysFileContext): ApiKeyRecord[] {
  const doc: LocatedDocument = parseLocated(file, text);
  const value = validateLocated<KeysFile>(doc, keysFileSchema);
  const problems: string[] = [];
  const ids = new Map<string, string>(ctx.inline.map((p, i) => [p.id, `/principals/${i} of the main config`]));
  const hashes = new Map<string, string>(ctx.inline.map((p, i) => [p.keyHash, `/principals/${i} of the main config`]));
  value.principals.forEach((p, i) => {
    if (!ctx.tenants.has(p.tenant)) problems.push(`${placeOf(doc, `/principals/${i}/tenant`)}: unknown tenant "${p.tenant}"`);
    const priorId = ids.get(p.id);
    if (priorId !== undefined) problems.push(`${placeOf(doc, `/principals/${i}/id`)}: principal id "${p.id}" already used at ${priorId}`);
    else ids.set(p.id, `/principals/${i}`);
    const priorKey = hashes.get(p.keyHash);
    if (priorKey !== undefined) problems.push(`${placeOf(doc, `/principals/${i}/keyHash`)}: the same key is already given to ${priorKey}`);
    else hashes.set(p.keyHash, `/principals/${i}`);
  });
  if (problems.length > 0) throw new ConfigError(problems);
  return value.principals.map(recordOfEntry);
}

/** Reads the keys file at start; a missing or broken file is a ConfigError. */
export function readKeysFile(file: string, ctx: KeysFileContext): { text: string; records: ApiKeyRecord[] } {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new ConfigError([`${file}: cannot read keys file: ${(err as NodeJS.ErrnoException).code ?? String(err)}`]);
  }
  return { text, records: parseKeysFile(file, text, ctx) };
}

export interface KeysFileReloaderOptions extends KeysFileContext {
  file: string;
  store: ApiKeyStore;
  logger: Logger;
  debounceMs?: number;
  /** Called after each successful swap, with the number of file principals. */
  onReload?: (count: number) => void;
}

/**
 * Loads the keys file into the store beside the inline principals, then
 * watches it: each good change replaces the store's whole key set at once.
 */
export class KeysFileReloader {
  private watch: FileWatch | undefined;
  private inlineRecords: ApiKeyRecord[];
  private fileRecords: ApiKeyRecord[] = [];

  constructor(private readonly options: KeysFileReloaderOptions) {
    this.inlineRecords = options.inline.map(recordOfEntry);
  }

  /** Strict first load (throws ConfigError), then watching. */
  start(): void {
    const { text, records } = readKeysFile(this.options.file, this.options);
    this.fileRecords = records;
    this.options.store.replace([...this.inlineRecords, ...records]);
    this.options.logger.info({ keysFile: this.options.file, principals: records.length }, 'API keys loaded from keys file');
    this.watch = watchFileText(
      this.options.file,
      text,
      {
        onText: (next) => this.apply(next),
        onError: (message) => this.options.logger.error({ keysFile: this.options.file, problems: [message] }, 'keys file unreadable; keeping the last good keys'),
      },
      { debounceMs: this.options.debounceMs, logger: this.options.logger },
    );
  }

  private apply(text: string): void {
    let records: ApiKeyRecord[];
    try {
      records = parseKeysFile(this.options.file, text, this.options);
    } catch (err) {
      if (!(err instanceof ConfigError)) throw err;
      this.options.logger.error({ keysFile: this.options.file, problems: err.problems }, `keys file rejected; keeping the last good keys:\n  ${err.problems.join('\n  ')}`);
      return;
    }
    this.fileRecords = records;
    this.options.store.replace([...this.inlineRecords, ...records]);
    this.options.logger.info({ keysFile: this.options.file, principals: records.length }, 'API keys reloaded from keys file');
    this.options.onReload?.(records.length);
  }

  /** New inline principals (a config reload), beside the keys file's, swapped in at once. */
  setInline(entries: readonly PrincipalEntry[]): void {
    this.inlineRecords = entries.map(recordOfEntry);
    this.options.store.replace([...this.inlineRecords, ...this.fileRecords]);
  }

  stop(): void {
    this.watch?.close();
  }
}
