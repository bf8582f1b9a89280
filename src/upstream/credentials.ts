// Whose credential reaches an upstream on a call (docs/auth.md "Upstream
// credentials"). For each source whose `credentials.mode` is not `shared`,
// this resolves the calling principal's own credential, or says where the
// person goes to supply one. Rules kept here:
// - a credential is looked up by the caller's tenant and principal and the
//   source, and its sealed value is bound to exactly that row (cipher.ts):
//   no path hands one principal's secret to another principal's call;
// - secrets are sealed before they are stored and opened only to build the
//   call's request; what is listed or logged is metadata (state, time);
// - an upstream that refuses a stored secret marks it refused, so the next
//   call asks the person again instead of failing the same way.
import { EventEmitter } from 'node:events';
import type { Logger } from 'pino';
import type { Principal } from '../auth/principal.js';
import type { GrantRow, GrantTable } from '../events/grant-table.js';
import type { CredentialMode, CredentialsConfig } from '../sources/credentials-schema.js';
import type { UpstreamCredential } from '../sources/upstream-credential.js';
import { rowBinding, SealError, type Keyring } from './cipher.js';
import type { OAuthUpstream } from './oauth-client.js';
import { OAuthGrants } from './oauth-grants.js';
import { IdentityHeaders } from './identity-headers.js';
import { TokenExchange } from './token-exchange.js';
import { secretCredential } from './principal-secret.js';

/** Where and why a person must connect before the call can run. */
export interface ConnectNeeded {
  sourceId: string;
  label: string;
  url: string;
  message: string;
}

/** The caller's credential; where to connect; or why the call cannot carry one (a refused token exchange). */
export type CallCredential = { credential: UpstreamCredential } | { connect: ConnectNeeded } | { error: string };

/** What a principal sees of one of its connections: never the secret. */
export interface ConnectionView {
  source: string;
  label: string;
  mode: CredentialMode;
  state: 'connected' | 'not_connected' | 'refused' | 'disconnected';
  updatedAt?: string;
  /** oauth: the scopes granted and when the access token expires (it is refreshed before use). */
  scopes?: string[];
  expiresAt?: string;
  connectUrl?: string;
}

export interface UpstreamSourceCredentials {
  config: CredentialsConfig;
  /** identity-headers with `sign`: the shared key, read at start. */
  signingKey?: Uint8Array;
  /** token-exchange: the host's client secret at the token endpoint, read at start. */
  clientSecret?: string;
}

export interface UpstreamCredentialsOptions {
  sources: ReadonlyMap<string, UpstreamSourceCredentials>;
  /** The grant table; required when a source is `per-principal`. */
  table?: GrantTable;
  keyring?: Keyring;
  publicUrl?: string;
  logger: Logger;
  /** The OAuth client of each `oauth` source. */
  oauth?: ReadonlyMap<string, OAuthUpstream>;
  /** How often a waiting call looks for a connection made on another replica (default 1000 ms). */
  pollMs?: number;
}

/** The most bytes of one stored secret. */
export const MAX_SECRET_BYTES = 8192;

export class CredentialInputError extends Error {}

interface Meta {
  state: 'connected' | 'refused' | 'disconnected';
  scopes?: string[];
  expiresAt?: string;
}

export class UpstreamCredentials {
  private readonly identity = new Map<string, IdentityHeaders>();
  private readonly exchanges = new Map<string, TokenExchange>();
  private readonly changes = new EventEmitter();
  /** The OAuth grants of `oauth` sources (present when one is configured). */
  readonly oauth?: OAuthGrants;

  constructor(private readonly options: UpstreamCredentialsOptions) {
    this.changes.setMaxListeners(0);
    if (options.oauth && options.oauth.size > 0) {
      this.oauth = new OAuthGrants({
        upstreams: options.oauth,
        table: this.table(),
        keyring: this.keyring(),
        publicUrl: this.base(),
        logger: options.logger,
        connected: (tenant, owner, source) => this.changes.emit(changeKey(tenant, owner, source)),
      });
    }
    for (const [id, s] of options.sources) {
      if (s.config.mode === 'identity-headers') this.identity.set(id, new IdentityHeaders(s.config, IdentityHeaders.signer(id, s.config, s.signingKey)));
      if (s.config.mode === 'token-exchange') this.exchanges.set(id, new TokenExchange({ sourceId: id, config: s.config, clientSecret: s.clientSecret, logger: options.logger }));
    }
  }

  /** True when calls to this source carry the caller's own credential. */
  governs(sourceId: string): boolean {
    const mode = this.options.sources.get(sourceId)?.config.mode;
    return mode !== undefined && mode !== 'shared';
  }

  /** The ids of the sources whose credentials are not shared. */
  sourceIds(): string[] {
    return [...this.options.sources.keys()].filter((id) => this.governs(id));
  }

  async forCall(sourceId: string, principal: Principal): Promise<CallCredential | undefined> {
    const source = this.options.sources.get(sourceId);
    if (!source || source.config.mode === 'shared') return undefined;
    const owner = ownerOf(principal);
    // The connection owner names tenant and principal: per-caller connections are never shared across them.
    const connectionOwner = `${principal.tenant}\u0000${owner}`;
    if (source.config.mode === 'identity-headers') return { credential: await this.identity.get(sourceId)!.credential(principal, connectionOwner) };
    if (source.config.mode === 'token-exchange') return this.exchanges.get(sourceId)!.credential(principal, connectionOwner);
    if (source.config.mode === 'oauth') {
      const credential = await this.oauth!.credential(sourceId, principal.tenant, owner, connectionOwner);
      return credential ? { credential } : { connect: this.connectNeeded(sourceId, 'not connected', principal) };
    }
    const row = await this.table().get(principal.tenant, owner, sourceId);
    if (!row) return { connect: this.connectNeeded(sourceId, 'not connected', principal) };
    const meta = parseMeta(row.meta);
    if (meta.state !== 'connected') return { connect: this.connectNeeded(sourceId, 'refused by the upstream', principal) };
    let secret: string;
    try {
      secret = this.keyring().open(row.keyId, row.sealed, rowBinding(row));
    } catch (err) {
      // A row that does not open (unknown key, altered) is useless: ask again, and tell the operator which key.
      this.options.logger.warn({ source: sourceId, tenant: principal.tenant, keyId: row.keyId, err: err instanceof SealError ? err.message : 'unknown' }, 'a stored upstream credential does not open');
      return { connect: this.connectNeeded(sourceId, 'stored credential unreadable', principal) };
    }
    return { credential: secretCredential(source.config, connectionOwner, secret) };
  }

  /** The upstream refused the caller's credential: the next call asks the person again. */
  async refused(sourceId: string, principal: Principal): Promise<ConnectNeeded | { error: string }> {
    const owner = ownerOf(principal);
    const source = this.options.sources.get(sourceId);
    if (source?.config.mode === 'token-exchange') {
      // Nothing to connect: the next call exchanges again (or the caller presents a fresh JWT).
      this.exchanges.get(sourceId)!.forget(principal, `${principal.tenant}\u0000${owner}`);
      return { error: `${source.config.label ?? sourceId} refused the token it was given for you; call again with a fresh token from your identity provider.` };
    }
    if (source?.config.mode === 'per-principal' || source?.config.mode === 'oauth') {
      const row = await this.table().get(principal.tenant, owner, sourceId);
      const state = source.config.mode === 'oauth' ? 'disconnected' : 'refused';
      if (row) await this.table().replace({ ...row, meta: JSON.stringify({ state } satisfies Meta), updatedAt: new Date().toISOString() }, row.sealed);
      this.options.logger.info({ source: sourceId, tenant: principal.tenant }, `the upstream refused a principal's credential; marked ${state}`);
    }
    return this.connectNeeded(sourceId, 'refused by the upstream', principal);
  }

  /** Stores (sealed) a principal's own secret for a per-principal source. */
  async setSecret(sourceId: string, principal: Principal, secret: unknown): Promise<void> {
    const source = this.options.sources.get(sourceId);
    if (source?.config.mode !== 'per-principal') throw new CredentialInputError('this source takes no secret of its own');
    if (typeof secret !== 'string' || secret.length === 0) throw new CredentialInputError('secret must be a non-empty string');
    if (Buffer.byteLength(secret, 'utf8') > MAX_SECRET_BYTES) throw new CredentialInputError(`secret is longer than ${MAX_SECRET_BYTES} bytes`);
    if (!/^[\x20-\x7e]+$/.test(secret)) throw new CredentialInputError('secret must be visible ASCII (it travels in an HTTP header or URL)');
    const row: GrantRow = { tenant: principal.tenant, principal: ownerOf(principal), source: sourceId, kind: 'static', keyId: '', sealed: '', meta: JSON.stringify({ state: 'connected' } satisfies Meta), updatedAt: new Date().toISOString() };
    const { keyId, sealed } = this.keyring().seal(secret, rowBinding(row));
    await this.table().put({ ...row, keyId, sealed });
    this.changes.emit(changeKey(principal.tenant, row.principal, sourceId));
  }

  /** Forgets a principal's credential for a source; true when there was one. */
  async remove(sourceId: string, principal: Principal): Promise<boolean> {
    if (!this.options.sources.has(sourceId) || !this.options.table) return false;
    if (this.options.sources.get(sourceId)!.config.mode === 'oauth') return this.oauth!.disconnect(sourceId, principal.tenant, ownerOf(principal));
    return this.table().delete(principal.tenant, ownerOf(principal), sourceId);
  }

  /** The principal's connections, one per governed source. */
  async connections(principal: Principal): Promise<ConnectionView[]> {
    const rows = this.options.table ? await this.options.table.list(principal.tenant, ownerOf(principal)) : [];
    const bySource = new Map(rows.map((r) => [r.source, r]));
    return this.sourceIds().map((id) => {
      const { config } = this.options.sources.get(id)!;
      const label = config.label ?? id;
      // Nothing for a person to connect: the host sends who calls (identity headers) or the caller's own JWT (token exchange).
      if (config.mode === 'identity-headers' || config.mode === 'token-exchange') return { source: id, label, mode: config.mode, state: 'connected' as const };
      const row = bySource.get(id);
      const meta = row ? parseMeta(row.meta) : undefined;
      const extra = { ...(row ? { updatedAt: row.updatedAt } : {}), ...(meta?.scopes ? { scopes: meta.scopes } : {}), ...(meta?.expiresAt ? { expiresAt: meta.expiresAt } : {}) };
      return { source: id, label, mode: config.mode, state: meta?.state ?? 'not_connected', ...extra, connectUrl: this.connectUrl(id, principal) };
    });
  }

  /**
   * Resolves true once the principal has a connected credential for the
   * source (stored here, or on another replica: the table is read every
   * pollMs), false when `signal` aborts first.
   */
  waitForConnection(sourceId: string, principal: Principal, signal: AbortSignal): Promise<boolean> {
    const owner = ownerOf(principal);
    const key = changeKey(principal.tenant, owner, sourceId);
    return new Promise((resolve) => {
      let timer: NodeJS.Timeout | undefined;
      const done = (ok: boolean) => {
        clearInterval(timer);
        this.changes.off(key, check);
        signal.removeEventListener('abort', aborted);
        resolve(ok);
      };
      const check = () => {
        void this.forCall(sourceId, principal).then(
          (r) => r !== undefined && 'credential' in r && done(true),
          () => {},
        );
      };
      const aborted = () => done(false);
      if (signal.aborted) return done(false);
      signal.addEventListener('abort', aborted, { once: true });
      this.changes.on(key, check);
      timer = setInterval(check, this.options.pollMs ?? 1000);
      timer.unref();
      check();
    });
  }

  /** Re-seals, with the newest key, every row sealed with an older one; returns how many. */
  async resealAll(batch = 100): Promise<number> {
    if (!this.options.table || !this.options.keyring) return 0;
    const keyring = this.options.keyring;
    let count = 0;
    const skipped = new Set<string>();
    for (;;) {
      const rows = (await this.options.table.sealedWithOther(keyring.currentId, batch + skipped.size)).filter((r) => !skipped.has(rowId(r)));
      if (rows.length === 0) return count;
      for (const row of rows) {
        try {
          const plain = keyring.open(row.keyId, row.sealed, rowBinding(row));
          const { keyId, sealed } = keyring.seal(plain, rowBinding(row));
          if (await this.options.table.replace({ ...row, keyId, sealed }, row.sealed)) count++;
        } catch {
          skipped.add(rowId(row));
          this.options.logger.warn({ source: row.source, tenant: row.tenant, keyId: row.keyId }, 'a stored upstream credential could not be re-sealed (its key is not configured, or it was altered)');
        }
      }
    }
  }

  private base(): string {
    return (this.options.publicUrl ?? '').replace(/\/+$/, '');
  }

  private connectUrl(sourceId: string, principal: Principal): string {
    if (this.options.sources.get(sourceId)?.config.mode === 'oauth') return this.oauth!.connectUrl(sourceId, principal.tenant, ownerOf(principal));
    return `${this.base()}/connections/${encodeURIComponent(sourceId)}`;
  }

  private connectNeeded(sourceId: string, why: string, principal: Principal): ConnectNeeded {
    const label = this.options.sources.get(sourceId)?.config.label ?? sourceId;
    const url = this.connectUrl(sourceId, principal);
    const how = this.options.sources.get(sourceId)?.config.mode === 'oauth' ? `Open ${url} in a browser to connect your account` : `Supply it at ${url} (PUT {"secret": "..."} with your toolhost credential)`;
    return { sourceId, label, url, message: `${label} needs your own credential (${why}). ${how}, then call again.` };
  }

  private table(): GrantTable {
    if (!this.options.table) throw new Error('no grant table: per-principal credentials need an event store');
    return this.options.table;
  }

  private keyring(): Keyring {
    if (!this.options.keyring) throw new Error('no sealing keys: per-principal credentials need upstreamCredentials.keys');
    return this.options.keyring;
  }
}

function ownerOf(principal: Principal): string {
  return `${principal.kind}:${principal.id}`;
}

function rowId(row: GrantRow): string {
  return `${row.tenant}\u0000${row.principal}\u0000${row.source}`;
}

function changeKey(tenant: string, owner: string, source: string): string {
  return `${tenant}\u0000${owner}\u0000${source}`;
}

function parseMeta(text: string): Meta {
  try {
    const m = JSON.parse(text) as Partial<Meta>;
    const state = m.state === 'connected' || m.state === 'disconnected' ? m.state : 'refused';
    return { state, ...(Array.isArray(m.scopes) ? { scopes: m.scopes } : {}), ...(typeof m.expiresAt === 'string' ? { expiresAt: m.expiresAt } : {}) };
  } catch {
    return { state: 'refused' };
  }
}
