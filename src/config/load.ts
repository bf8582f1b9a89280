// Loads and checks the config file: schema problems and
// cross-references (principal tenants, unique principal ids and keys), every
// problem at once, each naming the file and the place inside it.
import { dirname, resolve } from 'node:path';
import { ConfigError, parseLocated, placeOf, readLocated, validateLocated, type LocatedDocument } from '../util/validated-yaml.js';
import { authConfigProblems } from '../auth/config.js';
import { hostConfigSchema, type HostConfigFile } from './schema.js';

export interface LoadedConfig {
  file: string;
  dir: string;
  doc: LocatedDocument;
  config: HostConfigFile;
}

export function loadConfigFile(file: string): LoadedConfig {
  const path = resolve(file);
  return checkedConfig(readLocated(path), path);
}

/**
 * A config given as a value (the file with changes made through the admin
 * API), checked exactly as a file is; problems are placed in `label`, and
 * relative paths resolve beside `file`.
 */
export function loadConfigValue(value: unknown, file: string, label: string): LoadedConfig {
  return checkedConfig(parseLocated(label, JSON.stringify(value, null, 1)), resolve(file));
}

function checkedConfig(doc: LocatedDocument, path: string): LoadedConfig {
  const problems: string[] = [];
  let config: HostConfigFile;
  try {
    config = validateLocated<HostConfigFile>(doc, hostConfigSchema);
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    // Schema problems and cross-reference problems are reported in one pass:
    // the cross-checks below run on whatever parts of the file have the right shape.
    problems.push(...err.problems);
    config = doc.value as HostConfigFile;
  }
  try {
    problems.push(...crossReferenceProblems(config, doc));
  } catch {
    // A shape the schema already refused (a list where a map belongs...): its problem is reported above.
  }
  if (problems.length > 0) throw new ConfigError(problems);
  return { file: path, dir: dirname(path), doc, config };
}

function crossReferenceProblems(config: HostConfigFile, doc: LocatedDocument): string[] {
  const problems: string[] = [];
  const tenants = typeof config.tenants === 'object' && config.tenants !== null ? config.tenants : {};
  const principalIds = new Map<string, number>();
  const keyHashes = new Map<string, number>();
  (config.principals ?? []).forEach((p, i) => {
    if (!Object.hasOwn(tenants, p.tenant)) problems.push(`${placeOf(doc, `/principals/${i}/tenant`)}: unknown tenant "${p.tenant}"`);
    const priorId = principalIds.get(p.id);
    if (priorId !== undefined) problems.push(`${placeOf(doc, `/principals/${i}/id`)}: principal id "${p.id}" already used at /principals/${priorId}`);
    else principalIds.set(p.id, i);
    const priorKey = keyHashes.get(p.keyHash);
    if (priorKey !== undefined) problems.push(`${placeOf(doc, `/principals/${i}/keyHash`)}: the same key is already given to /principals/${priorKey}`);
    else keyHashes.set(p.keyHash, i);
  });
  problems.push(...authConfigProblems(config.auth, (pointer) => placeOf(doc, pointer)));
  if (config.auth?.rateLimitStore === 'redis' && config.redis === undefined) {
    problems.push(`${placeOf(doc, '/auth/rateLimitStore')}: "redis" needs the top-level "redis" section (its url)`);
  }
  const dynamicIds = new Map<string, string>();
  for (const kind of ['mcp', 'connectors'] as const) {
    (config.sources?.[kind] ?? []).forEach((s, i) => {
      const key = `${kind}:${String(s.id)}`;
      const prior = dynamicIds.get(key);
      if (prior) problems.push(`${placeOf(doc, `/sources/${kind}/${i}/id`)}: id "${String(s.id)}" already used at ${prior}`);
      else dynamicIds.set(key, `/sources/${kind}/${i}`);
    });
  }
  return problems;
}
