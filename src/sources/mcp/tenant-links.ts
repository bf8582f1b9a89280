// Per-tenant upstream connections for an MCP server configured with
// `isolation: tenant` (docs/mcp.md "Isolation"): each tenant that calls the
// server gets a connection (a process, for stdio) of its own, opened at its
// first call, reopened after it fails, and closed once unused for
// `tenantIdleMs`. What the upstream keeps between calls (its own session
// state, files, a logged-in browser) and what it says without naming a call
// (log messages, elicitation and sampling requests) then stay with one
// tenant. The source's shared connection keeps reading the tool list.
import type { UpstreamCallRelay } from './call-relay.js';

/** What a link needs of a connection. */
export interface LinkConnection {
  dead: boolean;
}

interface Link<C extends LinkConnection> {
  conn?: C;
  opening?: Promise<C>;
  relay: UpstreamCallRelay;
  calls: number;
  idle?: NodeJS.Timeout;
}

export interface TenantLinkOptions<C extends LinkConnection> {
  /** Opens a connection whose server messages go to `relay`; rejects when it cannot. */
  open(tenant: string, relay: UpstreamCallRelay): Promise<C>;
  close(conn: C): Promise<void>;
  /** A relay for one tenant's connection (it serves one tenant only). */
  relay(): UpstreamCallRelay;
  idleMs: number;
}

export class TenantLinks<C extends LinkConnection> {
  private readonly links = new Map<string, Link<C>>();
  private stopped = false;

  constructor(private readonly options: TenantLinkOptions<C>) {}

  /** Runs `work` on `tenant`'s own connection, opening it first when there is none (or it died). */
  async use<T>(tenant: string, work: (conn: C, relay: UpstreamCallRelay) => Promise<T>): Promise<T> {
    if (this.stopped) throw new Error('the source is stopped');
    let link = this.links.get(tenant);
    if (link === undefined) this.links.set(tenant, (link = { relay: this.options.relay(), calls: 0 }));
    clearTimeout(link.idle);
    link.calls++;
    try {
      return await work(await this.connected(tenant, link), link.relay);
    } finally {
      link.calls--;
      if (link.calls === 0 && this.links.get(tenant) === link) {
        link.idle = setTimeout(() => this.retire(tenant, link!), this.options.idleMs).unref();
      }
    }
  }

  /** How many tenants have a connection open or opening. */
  get size(): number {
    return this.links.size;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    const links = [...this.links.values()];
    this.links.clear();
    await Promise.all(links.map(async (link) => {
      clearTimeout(link.idle);
      const conn = link.conn ?? (await link.opening?.catch(() => undefined));
      if (conn !== undefined) await this.options.close(conn);
    }));
  }

  private async connected(tenant: string, link: Link<C>): Promise<C> {
    if (link.conn !== undefined && !link.conn.dead) return link.conn;
    link.conn = undefined;
    link.opening ??= this.options.open(tenant, link.relay).finally(() => (link.opening = undefined));
    const conn = await link.opening;
    if (this.stopped) {
      await this.options.close(conn);
      throw new Error('the source is stopped');
    }
    link.conn = conn;
    return conn;
  }

  private retire(tenant: string, link: Link<C>): void {
    if (link.calls > 0 || this.links.get(tenant) !== link) return;
    this.links.delete(tenant);
    if (link.conn !== undefined) void this.options.close(link.conn);
  }
}
