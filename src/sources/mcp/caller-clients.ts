// One MCP client connection per caller, for a server whose `credentials`
// give each principal its own credential (sources/upstream-credential.ts).
// A caller's calls never share a connection, a session or a relay with
// another caller's: an upstream that binds its session to the user who
// opened it sees one user per session, and what the server says or asks
// during a call (logs, elicitation) can only reach that caller's own call.
// Connections are opened on a caller's first call, kept while used, closed
// after an idle period, and replaced when the caller's credential changes
// (a new key). The number kept is capped; the least recently used goes first.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { UpstreamCredentialRefused, type UpstreamCredential } from '../upstream-credential.js';
import { UpstreamCallRelay } from './call-relay.js';
import { Redactor } from './redact.js';
import type { Logger } from 'pino';

export interface CallerClient {
  client: Client;
  relay: UpstreamCallRelay;
  redactor: Redactor;
}

interface Entry {
  key: string;
  opening: Promise<CallerClient>;
  lastUsed: number;
  idle?: NodeJS.Timeout;
}

export interface CallerClientOptions {
  sourceId: string;
  serverId: string;
  clientInfo: { name: string; version: string };
  connectTimeoutMs: number;
  log: Logger;
  /** Makes the Streamable HTTP transport carrying these extra headers. */
  transport(headers: Readonly<Record<string, string>>, redactor: Redactor): StreamableHTTPClientTransport;
  idleMs?: number;
  max?: number;
}

/** True when an error says the upstream answered 401 (the SDK throws either of these). */
export function isUnauthorized(err: unknown): boolean {
  return err instanceof UnauthorizedError || (err instanceof StreamableHTTPError && err.code === 401);
}

export class CallerClients {
  private readonly entries = new Map<string, Entry>();

  constructor(private readonly options: CallerClientOptions) {}

  get size(): number {
    return this.entries.size;
  }

  /** The caller's connection (opened now if needed); rejects with UpstreamCredentialRefused on a 401. */
  get(credential: UpstreamCredential): Promise<CallerClient> {
    const owner = credential.owner;
    const existing = this.entries.get(owner);
    if (existing && existing.key === credential.key) {
      this.touch(owner, existing);
      return existing.opening;
    }
    if (existing) this.drop(owner);
    this.evictIfFull();
    const entry: Entry = { key: credential.key, opening: this.open(credential), lastUsed: Date.now() };
    this.entries.set(owner, entry);
    entry.opening.catch(() => {
      if (this.entries.get(owner) === entry) this.entries.delete(owner);
    });
    this.touch(owner, entry);
    return entry.opening;
  }

  /** Closes a caller's connection (its credential was refused or removed). */
  drop(owner: string): void {
    const entry = this.entries.get(owner);
    if (!entry) return;
    this.entries.delete(owner);
    clearTimeout(entry.idle);
    void entry.opening.then((c) => c.client.close()).catch(() => {});
  }

  async closeAll(): Promise<void> {
    const all = [...this.entries.keys()];
    await Promise.all(all.map((owner) => this.drop(owner)));
  }

  private touch(owner: string, entry: Entry): void {
    entry.lastUsed = Date.now();
    // Most recently used last, so the first key is the one to evict.
    this.entries.delete(owner);
    this.entries.set(owner, entry);
    clearTimeout(entry.idle);
    entry.idle = setTimeout(() => {
      if (this.entries.get(owner) === entry) this.drop(owner);
    }, this.options.idleMs ?? 120_000);
    entry.idle.unref();
  }

  private evictIfFull(): void {
    const max = this.options.max ?? 256;
    while (this.entries.size >= max) {
      const oldest = this.entries.keys().next();
      if (oldest.done) return;
      this.drop(oldest.value);
    }
  }

  private async open(credential: UpstreamCredential): Promise<CallerClient> {
    const redactor = new Redactor();
    redactor.add(credential.secrets);
    const client = new Client(this.options.clientInfo, { capabilities: {} });
    const relay = new UpstreamCallRelay(this.options.serverId, redactor, this.options.log, true);
    relay.attach(client);
    try {
      await client.connect(this.options.transport(credential.headers, redactor), { timeout: this.options.connectTimeoutMs });
    } catch (err) {
      await client.close().catch(() => {});
      if (isUnauthorized(err)) throw new UpstreamCredentialRefused(this.options.sourceId);
      throw new Error(`cannot connect for this caller: ${redactor.error(err)}`);
    }
    return { client, relay, redactor };
  }
}
