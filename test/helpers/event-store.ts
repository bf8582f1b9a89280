// Reading events back from any EventStore in tests (SQLite or PostgreSQL),
// through the store interface's own reads: the wire JSON parsed.
import type { ToolEvent } from '../../src/events/event-types.js';
import type { EventStore } from '../../src/events/store.js';

/** Up to `limit` events of the tenant's stream after `after`, ascending. */
export async function storedEvents(store: EventStore, tenant: string, after = -1, limit = 1000): Promise<ToolEvent[]> {
  return (await store.readAfterSerialized(tenant, after, limit)).map((e) => JSON.parse(e.json) as ToolEvent);
}

/** Every event of one session, in order. */
export async function sessionEvents(store: EventStore, tenant: string, sessionId: string): Promise<ToolEvent[]> {
  return (await store.readSessionSerialized(tenant, sessionId)).map((json) => JSON.parse(json) as ToolEvent);
}
