// Live events across replicas for the PostgreSQL event store (docs/contract.md
// "Tool sessions": a subscriber sees every event of its tenant's stream, once,
// in order, whichever replica appended it).
//
// Every append transaction calls pg_notify with the tenant and the stream's
// new last sequence; PostgreSQL delivers it at commit to every replica's
// LISTEN connection. A notification is only a hint: on one, the tenant's feed
// reads its events after the last sequence it delivered, so delivery stays
// once, in order and gap-free however notifications are coalesced, delayed or
// lost. A tenant's appenders are serialized by its stream row, so its events
// commit in sequence order, and a read that sees sequence n sees every
// sequence before it.
//
// Safety net: every `pollIntervalMs` each subscribed tenant is read the same
// way, and a lost LISTEN connection is reopened (then every feed is read), so
// an event reaches every subscriber within about one poll interval even
// without notifications.
//
// Where a new subscription starts: at the highest sequence this replica has
// seen committed for the tenant (streams loaded at start, then notifications
// and its own appends). That value can only lag the truth, never lead it, so
// a subscriber may also be handed a few events committed just before it
// subscribed, never miss one committed after.
import type pg from 'pg';
import type { SerializedEvent, ToolEvent } from '../event-types.js';
import { TenantListeners, type Listener, type TenantFeed as Feed } from '../tenant-listeners.js';

/** Events read per query while a feed catches up. */
const PAGE = 500;

export interface FeedOptions {
  channel: string;
  pollIntervalMs: number;
  /** A new connection for LISTEN (not from the pool: it stays open). */
  connect: () => pg.Client;
  /** The tenant's events after `after`, ascending, at most `limit`. */
  readAfter: (tenant: string, after: number, limit: number) => Promise<SerializedEvent[]>;
  /** Every stream's last sequence. */
  readStreams: () => Promise<Array<{ tenant: string; last: number }>>;
}

/** The shared registry's feed, plus the one read a feed runs at a time. */
interface TenantFeed extends Feed {
  reading: boolean;
  again: boolean;
}

export class LiveFeed {
  private readonly lastSeen = new Map<string, number>();
  private readonly feeds = new TenantListeners<TenantFeed>((tenant) => ({ cursor: this.lastSeen.get(tenant) ?? -1, listeners: new Set(), reading: false, again: false }));
  private listener: pg.Client | undefined;
  private listening = false;
  private closed = false;
  private pollTimer: NodeJS.Timeout | undefined;
  private reconnecting = false;

  constructor(private readonly options: FeedOptions) {}

  /** Opens the LISTEN connection and learns where every stream is; fails when the database cannot be reached. */
  async start(): Promise<void> {
    await this.listen();
    this.pollTimer = setInterval(() => this.poll(), this.options.pollIntervalMs);
    this.pollTimer.unref();
  }

  /** Whether the LISTEN connection is up (notifications arrive). */
  get connected(): boolean {
    return this.listening;
  }

  subscribe(tenant: string, listener: Listener): () => void {
    return this.feeds.add(tenant, listener);
  }

  subscriberCount(tenant?: string): number {
    return this.feeds.count(tenant);
  }

  /**
   * This replica committed `events` (one tenant's, ascending): handed out
   * directly when they follow what the feed delivered, otherwise the feed
   * reads what it is missing first.
   */
  appended(tenant: string, events: readonly ToolEvent[]): void {
    if (events.length === 0) return;
    this.saw(tenant, events[events.length - 1].sequence);
    const feed = this.feeds.get(tenant);
    if (!feed) return;
    if (!feed.reading && events[0].sequence === feed.cursor + 1) {
      for (const event of events) this.feeds.emit(feed, event);
      return;
    }
    this.read(tenant, feed);
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.pollTimer) clearInterval(this.pollTimer);
    this.feeds.clear();
    const client = this.listener;
    this.listener = undefined;
    this.listening = false;
    if (client) await client.end().catch(() => {});
  }

  private saw(tenant: string, last: number): void {
    if ((this.lastSeen.get(tenant) ?? -1) < last) this.lastSeen.set(tenant, last);
  }

  /** Reads the tenant's events after the feed's cursor until none are left; one read at a time per feed. */
  private read(tenant: string, feed: TenantFeed): void {
    if (feed.reading) {
      feed.again = true;
      return;
    }
    feed.reading = true;
    void (async () => {
      try {
        do {
          feed.again = false;
          for (;;) {
            const page = await this.options.readAfter(tenant, feed.cursor, PAGE);
            if (this.closed || this.feeds.get(tenant) !== feed) return;
            for (const row of page) this.feeds.emit(feed, JSON.parse(row.json) as ToolEvent);
            if (page.length > 0) this.saw(tenant, feed.cursor);
            if (page.length < PAGE) break;
          }
        } while (feed.again);
      } catch {
        // The database is unreachable: the store's health says so; the next poll reads again.
      } finally {
        feed.reading = false;
      }
    })();
  }

  private poll(): void {
    if (this.closed) return;
    if (!this.listening) this.reconnect();
    for (const [tenant, feed] of this.feeds.entries()) this.read(tenant, feed);
  }

  private onNotification(payload: string | undefined): void {
    if (payload === '*' || payload === undefined) {
      for (const [tenant, feed] of this.feeds.entries()) this.read(tenant, feed);
      return;
    }
    let tenant: unknown;
    let last: unknown;
    try {
      [tenant, last] = JSON.parse(payload) as [unknown, unknown];
    } catch {
      return;
    }
    if (typeof tenant !== 'string' || typeof last !== 'number') return;
    this.saw(tenant, last);
    const feed = this.feeds.get(tenant);
    if (feed && feed.cursor < last) this.read(tenant, feed);
  }

  private async listen(): Promise<void> {
    const client = this.options.connect();
    const lost = () => {
      if (this.listener !== client) return;
      this.listener = undefined;
      this.listening = false;
      client.end().catch(() => {});
    };
    client.on('error', lost);
    client.on('end', lost);
    client.on('notification', (msg) => {
      if (msg.channel === this.options.channel) this.onNotification(msg.payload);
    });
    try {
      await client.connect();
      await client.query(`LISTEN "${this.options.channel}"`);
      // Listening first, then reading the streams: nothing committed in between is missed.
      for (const { tenant, last } of await this.options.readStreams()) this.saw(tenant, last);
    } catch (err) {
      await client.end().catch(() => {});
      throw err;
    }
    if (this.closed) {
      await client.end().catch(() => {});
      return;
    }
    this.listener = client;
    this.listening = true;
  }

  private reconnect(): void {
    if (this.reconnecting || this.closed) return;
    this.reconnecting = true;
    this.listen()
      .then(() => {
        for (const [tenant, feed] of this.feeds.entries()) this.read(tenant, feed);
      })
      .catch(() => {
        // Still unreachable: the next poll tries again.
      })
      .finally(() => {
        this.reconnecting = false;
      });
  }
}
