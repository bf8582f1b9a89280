// Live delivery of a tenant's events (docs/contract.md "Tool sessions"; the SSE
// stream of http/events-routes.ts). Each subscribed tenant has a delivery
// cursor: events are handed over once each, in sequence order, after their
// commit. Another process writing the same SQLite file takes sequences this
// process never sees being appended; a gap before an event, or the periodic
// `catchUp`, reads what is missing from the file, so subscribers get every
// writer's events without skipping or repeating any.
import type { ToolEvent } from './event-types.js';

type Listener = (event: ToolEvent) => void;

interface TenantSubscription {
  listeners: Set<Listener>;
  /** The last sequence handed to this tenant's listeners (or skipped as older than the subscription). */
  delivered: number;
}

/** How many missing events are read from the file per step of a catch-up. */
const CATCH_UP_PAGE = 500;

export class Subscribers {
  private readonly tenants = new Map<string, TenantSubscription>();

  constructor(
    /** The tenant stream's last sequence, -1 when empty. */
    private readonly lastSequence: (tenant: string) => number,
    /** Up to `limit` stored events with sequence > after, ascending. */
    private readonly readAfter: (tenant: string, after: number, limit: number) => ToolEvent[],
  ) {}

  add(tenant: string, listener: Listener): () => void {
    let sub = this.tenants.get(tenant);
    if (!sub) this.tenants.set(tenant, (sub = { listeners: new Set(), delivered: this.lastSequence(tenant) }));
    const entry: Listener = (e) => listener(e);
    sub.listeners.add(entry);
    return () => {
      const current = this.tenants.get(tenant);
      if (!current) return;
      current.listeners.delete(entry);
      if (current.listeners.size === 0) this.tenants.delete(tenant);
    };
  }

  count(tenant?: string): number {
    if (tenant !== undefined) return this.tenants.get(tenant)?.listeners.size ?? 0;
    let n = 0;
    for (const sub of this.tenants.values()) n += sub.listeners.size;
    return n;
  }

  /** Hands committed events (in commit order) to their tenants' listeners, first reading any gap another writer left. */
  deliver(events: readonly ToolEvent[]): void {
    for (const event of events) {
      const sub = this.tenants.get(event.tenant);
      if (!sub || event.sequence <= sub.delivered) continue;
      if (event.sequence > sub.delivered + 1) this.fill(event.tenant, sub, event.sequence - 1);
      this.emit(sub, event);
    }
  }

  /** Reads and hands over what other writers appended to the subscribed tenants since the last delivery. */
  catchUp(): void {
    for (const [tenant, sub] of [...this.tenants]) {
      const last = this.lastSequence(tenant);
      if (last > sub.delivered) this.fill(tenant, sub, last);
    }
  }

  clear(): void {
    this.tenants.clear();
  }

  private fill(tenant: string, sub: TenantSubscription, upTo: number): void {
    while (sub.delivered < upTo) {
      const before = sub.delivered;
      for (const e of this.readAfter(tenant, sub.delivered, Math.min(CATCH_UP_PAGE, upTo - sub.delivered))) {
        if (e.sequence > upTo) break;
        this.emit(sub, e);
      }
      if (sub.delivered === before) break;
    }
    // Retention may have pruned part of the gap: what is gone is gone.
    if (sub.delivered < upTo) sub.delivered = upTo;
  }

  private emit(sub: TenantSubscription, event: ToolEvent): void {
    sub.delivered = event.sequence;
    for (const listener of [...sub.listeners]) {
      try {
        listener(event);
      } catch {
        // The event is already durable; one broken subscriber must not fail the
        // call that produced it, nor starve the other subscribers.
      }
    }
  }
}
