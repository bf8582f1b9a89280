// Assembles the upstream-credential resolver from the config: which sources
// give each caller its own credential, the sealing keys, the grant table of
// the event store, and the signing keys of identity headers. Problems a
// start must not get past (a per-principal source without keys or event
// store, a query-parameter credential on an MCP server) are config errors
// with the config file's name; key material is read here, once, and never
// logged.
import type { Logger } from 'pino';
import type { LoadedConfig } from '../config/load.js';
import type { EventStore } from '../events/store.js';
import type { CredentialsConfig } from '../sources/credentials-schema.js';
import { Keyring, decodeKey, SealError } from '../upstream/cipher.js';
import { UpstreamCredentials, type UpstreamSourceCredentials } from '../upstream/credentials.js';
import { OAuthUpstream } from '../upstream/oauth-client.js';
import { resolveEnvRefs } from '../util/env-refs.js';
import { readSecretRef, SecretRefError } from '../util/secret-ref.js';
import { ConfigError } from '../util/validated-yaml.js';

/** The shortest shared key an identity statement is signed with (HS256 wants at least its hash size). */
const MIN_SIGNING_KEY_BYTES = 32;

export function setUpUpstreamCredentials(loaded: LoadedConfig, env: NodeJS.ProcessEnv, events: EventStore | undefined, logger: Logger): UpstreamCredentials | undefined {
  const { config, dir, file } = loaded;
  const governed: [string, string, CredentialsConfig][] = [];
  const urls = new Map<string, string>();
  for (const [i, m] of (config.sources?.mcp ?? []).entries()) {
    if (m.transport === 'http' && m.credentials && m.credentials.mode !== 'shared') {
      governed.push([`mcp:${m.id}`, `/sources/mcp/${i}/credentials`, m.credentials]);
      urls.set(`mcp:${m.id}`, m.url);
    }
  }
  for (const [i, c] of (config.sources?.connectors ?? []).entries()) {
    if (c.credentials && c.credentials.mode !== 'shared') governed.push([`connector:${c.id}`, `/sources/connectors/${i}/credentials`, c.credentials]);
  }
  if (governed.length === 0) return undefined;
  const problems: string[] = [];
  const where = { env, configDir: dir };
  const sources = new Map<string, UpstreamSourceCredentials>();
  for (const [id, pointer, credentials] of governed) {
    if (id.startsWith('mcp:') && credentials.type === 'query') problems.push(`${file}: ${pointer}/type: an MCP server takes its credential in a header (bearer, header or basic), not in the query`);
    let signingKey: Uint8Array | undefined;
    if (credentials.mode === 'identity-headers' && credentials.sign) {
      try {
        signingKey = Buffer.from(readSecretRef(credentials.sign.key, where, `${pointer}/sign/key`), 'utf8');
        if (signingKey.length < MIN_SIGNING_KEY_BYTES) problems.push(`${file}: ${pointer}/sign/key: the signing key must be at least ${MIN_SIGNING_KEY_BYTES} bytes`);
      } catch (err) {
        if (!(err instanceof SecretRefError)) throw err;
        problems.push(`${file}: ${err.message}`);
      }
    }
    sources.set(id, { config: credentials, signingKey, clientSecret: tokenExchangeSecret(file, pointer, credentials, where, problems) });
  }
  const oauth = oauthUpstreams(loaded, governed, urls, where, problems);
  const perPrincipal = governed.filter(([, , c]) => c.mode === 'per-principal' || c.mode === 'oauth').map(([, pointer]) => pointer);
  const table = events?.grants?.();
  let keyring: Keyring | undefined;
  if (perPrincipal.length > 0) {
    if (!table) problems.push(`${file}: ${perPrincipal[0]}/mode: per-principal credentials are stored in the event store: configure events (file or postgres)`);
    const keys = config.upstreamCredentials?.keys;
    if (!keys) problems.push(`${file}: ${perPrincipal[0]}/mode: per-principal credentials are sealed with upstreamCredentials.keys: configure at least one key`);
    else {
      try {
        keyring = new Keyring(keys.map((k, i) => ({ id: k.id, key: decodeKey(readSecretRef(k.secret, where, `/upstreamCredentials/keys/${i}/secret`), `/upstreamCredentials/keys/${i}/secret`) })));
      } catch (err) {
        if (!(err instanceof SecretRefError || err instanceof SealError)) throw err;
        problems.push(`${file}: ${err.message}`);
      }
    }
  }
  if (problems.length > 0) throw new ConfigError(problems);
  const credentials = new UpstreamCredentials({ sources, table, keyring, publicUrl: config.upstreamCredentials?.publicUrl, logger, oauth });
  // Rows sealed with a key that is no longer the newest are re-sealed in the background.
  void credentials.resealAll().then(
    (n) => n > 0 && logger.info({ resealed: n, keyId: keyring?.currentId }, 'upstream credentials re-sealed with the newest key'),
    (err: unknown) => logger.warn({ err: err instanceof Error ? err.message : 'unknown' }, 're-sealing upstream credentials failed; it is tried again at the next start'),
  );
  return credentials;
}

/** The OAuth client of each `oauth` MCP server; a connector or a host without a public URL is a problem. */
function oauthUpstreams(loaded: LoadedConfig, governed: [string, string, CredentialsConfig][], urls: Map<string, string>, where: { env: NodeJS.ProcessEnv; configDir: string }, problems: string[]): Map<string, OAuthUpstream> {
  const out = new Map<string, OAuthUpstream>();
  const publicUrl = loaded.config.upstreamCredentials?.publicUrl?.replace(/\/+$/, '');
  for (const [id, pointer, c] of governed) {
    if (c.mode !== 'oauth') continue;
    if (!urls.has(id)) {
      problems.push(`${loaded.file}: ${pointer}/mode: oauth is supported for MCP servers over HTTP; for a connector use per-principal`);
      continue;
    }
    if (!publicUrl) {
      problems.push(`${loaded.file}: ${pointer}/mode: oauth needs upstreamCredentials.publicUrl (the redirect URI is made from it)`);
      continue;
    }
    let clientSecret: string | undefined;
    try {
      if (c.oauth?.clientSecret) clientSecret = readSecretRef(c.oauth.clientSecret, where, `${pointer}/oauth/clientSecret`);
    } catch (err) {
      if (!(err instanceof SecretRefError)) throw err;
      problems.push(`${loaded.file}: ${err.message}`);
    }
    const serverUrl = resolveEnvRefs(urls.get(id)!, where.env);
    out.set(id, new OAuthUpstream(id, serverUrl, `${publicUrl}/oauth/callback`, { clientId: c.oauth?.clientId, clientSecret, scopes: c.oauth?.scopes }));
  }
  return out;
}

/** token-exchange: the endpoint is required unless forwarding, and the client secret is read once, here. */
function tokenExchangeSecret(file: string, pointer: string, c: CredentialsConfig, where: { env: NodeJS.ProcessEnv; configDir: string }, problems: string[]): string | undefined {
  if (c.mode !== 'token-exchange') return undefined;
  const te = c.tokenExchange;
  if (te?.forward) return undefined;
  if (!te?.tokenEndpoint) {
    problems.push(`${file}: ${pointer}/tokenExchange: token-exchange needs tokenExchange.tokenEndpoint (or forward: true to send the caller's JWT unchanged)`);
    return undefined;
  }
  if (te.clientSecret && !te.clientId) problems.push(`${file}: ${pointer}/tokenExchange/clientSecret: a client secret needs tokenExchange.clientId`);
  if (!te.clientSecret) return undefined;
  try {
    return readSecretRef(te.clientSecret, where, `${pointer}/tokenExchange/clientSecret`);
  } catch (err) {
    if (!(err instanceof SecretRefError)) throw err;
    problems.push(`${file}: ${err.message}`);
    return undefined;
  }
}
