// Principals' OAuth grants for `oauth` sources (docs/auth.md "Upstream
// credentials"): the browser leg of the authorization code flow, the sealed
// tokens in the grant table, their refresh and their revocation.
// - The connect link carries a sealed ticket (tenant, principal, source,
//   ten minutes): the browser that opens it holds no host credential.
// - CSRF and mix-up: the state, the PKCE verifier and the expected issuer
//   travel in a sealed, HttpOnly cookie set on the browser that started the
//   flow; the callback must carry the same state (compared in constant time)
//   and, when the server sends `iss` or says it does (RFC 9207), that issuer.
//   The redirect URI is one exact URL, registered as is.
// - Refresh: concurrent calls needing one make one (per process; across
//   replicas a compare-and-swap on the sealed row lets one refresh win and
//   the others read its result); a refused refresh marks the grant
//   disconnected, so the next call asks the person again.
import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { Logger } from 'pino';
import type { OAuthClientInformationMixed } from '@modelcontextprotocol/sdk/shared/auth.js';
import type { GrantRow, GrantTable } from '../events/grant-table.js';
import type { UpstreamCredential } from '../sources/upstream-credential.js';
import { rowBinding, type Keyring } from './cipher.js';
import { OAuthRefused, type GrantTokens, type OAuthUpstream } from './oauth-client.js';
import { secretCredential } from './principal-secret.js';

const TICKET_MS = 10 * 60_000;
/** A token this close to its expiry is refreshed before use. */
const REFRESH_EARLY_MS = 30_000;
export const PENDING_COOKIE = 'toolhost_oauth';

export class OAuthFlowError extends Error {}

interface Ticket {
  t: string;
  o: string;
  s: string;
  e: number;
}

interface Pending extends Ticket {
  state: string;
  v: string;
  c: OAuthClientInformationMixed;
  i: string;
}

export interface OAuthGrantsOptions {
  upstreams: ReadonlyMap<string, OAuthUpstream>;
  table: GrantTable;
  keyring: Keyring;
  publicUrl: string;
  logger: Logger;
  /** Told when a principal's grant for a source was stored (waiting calls go on). */
  connected(tenant: string, owner: string, source: string): void;
}

export class OAuthGrants {
  private readonly refreshing = new Map<string, Promise<GrantTokens | undefined>>();

  constructor(private readonly o: OAuthGrantsOptions) {}

  /** The caller's bearer credential, refreshed when about to expire; undefined: the person must connect. */
  async credential(sourceId: string, tenant: string, owner: string, connectionOwner: string): Promise<UpstreamCredential | undefined> {
    const row = await this.o.table.get(tenant, owner, sourceId);
    if (!row || stateOf(row) !== 'connected') return undefined;
    let grant: GrantTokens | undefined = this.open(row);
    if (grant.expiresAt !== undefined && grant.expiresAt - REFRESH_EARLY_MS < Date.now()) grant = await this.refreshOnce(row, grant);
    return grant && secretCredential({ mode: 'per-principal' }, connectionOwner, grant.access);
  }

  /** The link a person opens to connect: the host's authorize route with a sealed ticket. */
  connectUrl(sourceId: string, tenant: string, owner: string): string {
    const ticket: Ticket = { t: tenant, o: owner, s: sourceId, e: Date.now() + TICKET_MS };
    return `${this.o.publicUrl}/connections/${encodeURIComponent(sourceId)}/authorize?ticket=${this.seal(ticket, 'oauth-ticket')}`;
  }

  /** The browser opened a connect link: where to send it, and the cookie that binds the callback to this browser. */
  async begin(sourceId: string, ticketText: string): Promise<{ location: string; cookie: string }> {
    const ticket = this.unseal<Ticket>(ticketText, 'oauth-ticket');
    if (!ticket || ticket.s !== sourceId || ticket.e < Date.now()) throw new OAuthFlowError('this connect link is not valid (expired or altered); ask for a new one');
    const upstream = this.o.upstreams.get(sourceId);
    if (!upstream) throw new OAuthFlowError('this source is not connected by OAuth');
    const state = randomBytes(32).toString('base64url');
    const { url, verifier, client, issuer } = await upstream.begin(state);
    const pending: Pending = { ...ticket, e: Date.now() + TICKET_MS, state, v: verifier, c: client, i: issuer };
    const secure = this.o.publicUrl.startsWith('https:') ? '; Secure' : '';
    return { location: url.href, cookie: `${PENDING_COOKIE}=${this.seal(pending, 'oauth-pending')}; Path=/oauth/callback; HttpOnly; SameSite=Lax; Max-Age=600${secure}` };
  }

  /** The authorization server redirected back: checks state and issuer, exchanges the code, stores the grant. */
  async complete(query: Record<string, string | undefined>, cookieText: string | undefined): Promise<string> {
    const pending = cookieText ? this.unseal<Pending>(cookieText, 'oauth-pending') : undefined;
    if (!pending || pending.e < Date.now()) throw new OAuthFlowError('no connection was started in this browser, or it took too long; start again from the link');
    if (!sameText(query.state ?? '', pending.state)) throw new OAuthFlowError('the answer does not belong to the connection this browser started (state mismatch)');
    const upstream = this.o.upstreams.get(pending.s);
    if (!upstream) throw new OAuthFlowError('this source is not connected by OAuth');
    const d = await upstream.discover();
    const issuerSupported = (d.metadata as { authorization_response_iss_parameter_supported?: boolean }).authorization_response_iss_parameter_supported === true;
    if ((query.iss !== undefined || issuerSupported) && query.iss !== pending.i) throw new OAuthFlowError('the answer came from another authorization server than the one asked (issuer mismatch)');
    if (query.error !== undefined) throw new OAuthFlowError(`the authorization server did not grant access (${query.error.slice(0, 64).replace(/[^\x20-\x7e]/g, '?')})`);
    if (!query.code) throw new OAuthFlowError('the answer carries no authorization code');
    const grant = await upstream.exchange(query.code, pending.v, pending.c);
    await this.store({ tenant: pending.t, principal: pending.o, source: pending.s }, grant);
    this.o.connected(pending.t, pending.o, pending.s);
    return pending.s;
  }

  /** Revokes at the authorization server (best effort) and forgets the grant. */
  async disconnect(sourceId: string, tenant: string, owner: string): Promise<boolean> {
    const row = await this.o.table.get(tenant, owner, sourceId);
    if (!row) return false;
    try {
      await this.o.upstreams.get(sourceId)?.revoke(this.open(row));
    } catch {
      // A row that does not open has nothing to revoke that the host could send.
    }
    return this.o.table.delete(tenant, owner, sourceId);
  }

  private refreshOnce(row: GrantRow, grant: GrantTokens): Promise<GrantTokens | undefined> {
    const id = `${row.tenant}\u0000${row.principal}\u0000${row.source}`;
    let running = this.refreshing.get(id);
    if (!running) {
      running = this.refresh(row, grant).finally(() => this.refreshing.delete(id));
      this.refreshing.set(id, running);
    }
    return running;
  }

  private async refresh(row: GrantRow, grant: GrantTokens): Promise<GrantTokens | undefined> {
    const upstream = this.o.upstreams.get(row.source)!;
    let fresh: GrantTokens;
    try {
      fresh = await upstream.refresh(grant);
    } catch (err) {
      if (!(err instanceof OAuthRefused)) throw err;
      await this.o.table.replace({ ...row, meta: JSON.stringify({ state: 'disconnected' }), updatedAt: new Date().toISOString() }, row.sealed);
      this.o.logger.info({ source: row.source, tenant: row.tenant }, 'an upstream refused to refresh a grant; marked disconnected');
      return undefined;
    }
    if (await this.store(row, fresh, row.sealed)) return fresh;
    // Another replica refreshed first: its tokens are the ones to use.
    const current = await this.o.table.get(row.tenant, row.principal, row.source);
    return current && stateOf(current) === 'connected' ? this.open(current) : undefined;
  }

  private async store(at: Pick<GrantRow, 'tenant' | 'principal' | 'source'>, grant: GrantTokens, previous?: string): Promise<boolean> {
    const row: GrantRow = { ...at, kind: 'oauth', keyId: '', sealed: '', meta: '', updatedAt: new Date().toISOString() };
    const { keyId, sealed } = this.o.keyring.seal(JSON.stringify(grant), rowBinding(row));
    const meta = JSON.stringify({ state: 'connected', ...(grant.scope ? { scopes: grant.scope.split(' ') } : {}), ...(grant.expiresAt ? { expiresAt: new Date(grant.expiresAt).toISOString() } : {}) });
    const full = { ...row, keyId, sealed, meta };
    if (previous === undefined) {
      await this.o.table.put(full);
      return true;
    }
    return this.o.table.replace(full, previous);
  }

  private open(row: GrantRow): GrantTokens {
    return JSON.parse(this.o.keyring.open(row.keyId, row.sealed, rowBinding(row))) as GrantTokens;
  }

  private seal(value: unknown, purpose: string): string {
    const { keyId, sealed } = this.o.keyring.seal(JSON.stringify(value), purpose);
    return `${keyId}.${sealed}`;
  }

  private unseal<T>(text: string, purpose: string): T | undefined {
    const dot = text.indexOf('.');
    try {
      return JSON.parse(this.o.keyring.open(text.slice(0, dot), text.slice(dot + 1), purpose)) as T;
    } catch {
      return undefined;
    }
  }
}

function stateOf(row: GrantRow): string {
  try {
    return (JSON.parse(row.meta) as { state?: string }).state ?? 'refused';
  } catch {
    return 'refused';
  }
}

function sameText(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

