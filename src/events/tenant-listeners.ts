// The per-tenant subscriber registry both event stores share (store.ts
// `subscribe`): each subscribed tenant has its listeners and a delivery
// cursor, the last sequence handed to them. Events go out once each, in
// sequence order: one at or below the cursor is skipped. How a store finds
// the events it has not delivered yet is its own (subscribers.ts reads the
// SQLite file synchronously, postgres/feed.ts reads the database on a
// notification); adding, removing, counting and handing over live here.
import type { ToolEvent } from './event-types.js';

export type Listener = (event: ToolEvent) => void;

/** What the registry keeps per tenant; a store may add state of its own. */
export interface TenantFeed {
  /** The last sequence handed to this tenant's listeners (or skipped as older than the subscription). */
  cursor: number;
  readonly listeners: Set<Listener>;
}

export class TenantListeners<F extends TenantFeed> {
  private readonly feeds = new Map<string, F>();

  /** `create` makes a tenant's feed at its first subscription, with the cursor where delivery starts. */
  constructor(private readonly create: (tenant: string) => F) {}

  add(tenant: string, listener: Listener): () => void {
    let feed = this.feeds.get(tenant);
    if (!feed) this.feeds.set(tenant, (feed = this.create(tenant)));
    // A wrapper of its own, so the same function subscribed twice is two subscriptions.
    const entry: Listener = (e) => listener(e);
    feed.listeners.add(entry);
    return () => {
      const current = this.feeds.get(tenant);
      if (!current) return;
      current.listeners.delete(entry);
      if (current.listeners.size === 0) this.feeds.delete(tenant);
    };
  }

  get(tenant: string): F | undefined {
    return this.feeds.get(tenant);
  }

  /** The subscribed tenants and their feeds, a copy (a listener may unsubscribe while it is walked). */
  entries(): Array<[string, F]> {
    return [...this.feeds];
  }

  count(tenant?: string): number {
    if (tenant !== undefined) return this.feeds.get(tenant)?.listeners.size ?? 0;
    let n = 0;
    for (const feed of this.feeds.values()) n += feed.listeners.size;
    return n;
  }

  /** Hands `event` to the feed's listeners unless it was delivered already; moves the cursor. */
  emit(feed: F, event: ToolEvent): void {
    if (event.sequence <= feed.cursor) return;
    feed.cursor = event.sequence;
    for (const listener of [...feed.listeners]) {
      try {
        listener(event);
      } catch {
        // The event is already durable; one broken subscriber must not fail the
        // call that produced it, nor starve the other subscribers.
      }
    }
  }

  clear(): void {
    this.feeds.clear();
  }
}
