// Live delivery of a tenant's events (docs/contract.md "Tool sessions"; the SSE
// stream of http/event-stream.ts). Each subscribed tenant has a delivery
// cursor: events are handed over once each, in sequence order, after their
// commit. Another process writing the same SQLite file takes sequences this
// process never sees being appended; a gap before an event, or the periodic
// `catchUp`, reads what is missing from the file, so subscribers get every
// writer's events without skipping or repeating any. The registry of
// listeners and cursors is the one the PostgreSQL feed uses too
// (tenant-listeners.ts).
import type { ToolEvent } from './event-types.js';
import { TenantListeners, type Listener, type TenantFeed } from './tenant-listeners.js';

/** How many missing events are read from the file per step of a catch-up. */
const CATCH_UP_PAGE = 500;

export class Subscribers {
  private readonly tenants: TenantListeners<TenantFeed>;

  constructor(
    /** The tenant stream's last sequence, -1 when empty. */
    private readonly lastSequence: (tenant: string) => number,
    /** Up to `limit` stored events with sequence > after, ascending. */
    private readonly readAfter: (tenant: string, after: number, limit: number) => ToolEvent[],
  ) {
    this.tenants = new TenantListeners((tenant) => ({ cursor: this.lastSequence(tenant), listeners: new Set() }));
  }

  add(tenant: string, listener: Listener): () => void {
    return this.tenants.add(tenant, listener);
  }

  count(tenant?: string): number {
    return this.tenants.count(tenant);
  }

  /** Hands committed events (in commit order) to their tenants' listeners, first reading any gap another writer left. */
  deliver(events: readonly ToolEvent[]): void {
    for (const event of events) {
      const feed = this.tenants.get(event.tenant);
      if (!feed || event.sequence <= feed.cursor) continue;
      if (event.sequence > feed.cursor + 1) this.fill(event.tenant, feed, event.sequence - 1);
      this.tenants.emit(feed, event);
    }
  }

  /** Reads and hands over what other writers appended to the subscribed tenants since the last delivery. */
  catchUp(): void {
    for (const [tenant, feed] of this.tenants.entries()) {
      const last = this.lastSequence(tenant);
      if (last > feed.cursor) this.fill(tenant, feed, last);
    }
  }

  clear(): void {
    this.tenants.clear();
  }

  private fill(tenant: string, feed: TenantFeed, upTo: number): void {
    while (feed.cursor < upTo) {
      const before = feed.cursor;
      for (const e of this.readAfter(tenant, feed.cursor, Math.min(CATCH_UP_PAGE, upTo - feed.cursor))) {
        if (e.sequence > upTo) break;
        this.tenants.emit(feed, e);
      }
      if (feed.cursor === before) break;
    }
    // Retention may have pruned part of the gap: what is gone is gone.
    if (feed.cursor < upTo) feed.cursor = upTo;
  }
}
