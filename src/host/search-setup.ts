// Tool search as the config file sets it up (docs/config.md "search"): the
// word vectors unless `search.meaning` is false, and the operator's
// embeddings endpoint when `search.embeddings` names one, its key read from
// its secret reference here, at start, and never logged.
import type { Logger } from 'pino';
import { CatalogSearch } from '../catalog/search/catalog-search.js';
import type { EndpointVectorsOptions } from '../catalog/search/endpoint-vectors.js';
import { loadWordVectors } from '../catalog/search/word-vectors.js';
import type { CatalogStore } from '../catalog/store.js';
import type { LoadedConfig } from '../config/load.js';
import { ConfigError } from '../util/validated-yaml.js';
import { readSecretRef, SecretRefError } from '../util/secret-ref.js';

const DEFAULT_TIMEOUT_MS = 300;

function embeddingsOf(loaded: LoadedConfig, env: NodeJS.ProcessEnv, logger: Logger): EndpointVectorsOptions | undefined {
  const config = loaded.config.search?.embeddings;
  if (config === undefined) return undefined;
  let apiKey: string | undefined;
  try {
    apiKey = config.apiKey === undefined ? undefined : readSecretRef(config.apiKey, { env, configDir: loaded.dir }, 'search.embeddings.apiKey');
  } catch (err) {
    if (err instanceof SecretRefError) throw new ConfigError([`${loaded.file}: ${err.message}`]);
    throw err;
  }
  return {
    endpoint: { url: config.url, model: config.model, ...(apiKey !== undefined ? { apiKey } : {}) },
    queryTimeoutMs: config.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    weight: config.weight ?? 1,
    log: (level, message) => logger[level](message),
  };
}

export function startSearch(loaded: LoadedConfig, store: CatalogStore, env: NodeJS.ProcessEnv, logger: Logger): CatalogSearch {
  const config = loaded.config.search;
  const embeddings = embeddingsOf(loaded, env, logger);
  return new CatalogSearch(store, {
    synonyms: config?.synonyms,
    maxIndexes: config?.maxIndexes,
    ...(config?.meaning !== false ? { wordVectors: () => loadWordVectors() } : {}),
    ...(embeddings !== undefined ? { embeddings } : {}),
  });
}
