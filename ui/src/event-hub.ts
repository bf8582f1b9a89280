// The tenant's tool-session events as the page knows them (docs/ui.md
// "Activity"): the log's history read with `GET /events` pages, then the live
// `GET /events/stream` resumed from the last sequence read, so no event falls
// between the two. One hub per sign-in; pages subscribe to it.
import type { Api } from './api.js';
import { subscribe } from './sse.js';
import type { ToolEvent } from './types.js';

/** History read at sign-in, at most (pages of 1,000): the page is a browser, not an archive. */
const MAX_HISTORY_PAGES = 20;
const MAX_KEPT_EVENTS = 50_000;

export type LiveState = 'loading' | 'live' | 'reconnecting' | 'refused' | 'unavailable';

export class EventHub {
  readonly events: ToolEvent[] = [];
  /** Sequence of the last event the hub holds (-1: none). */
  lastSequence = -1;
  state: LiveState = 'loading';
  /** True when the history had more than the hub reads. */
  truncated = false;
  private readonly listeners = new Set<(added: ToolEvent[]) => void>();
  private readonly stateListeners = new Set<(state: LiveState) => void>();
  private stream: { stop(): void } | undefined;

  constructor(private readonly api: Api) {}

  async start(): Promise<void> {
    try {
      for (let page = 0; page < MAX_HISTORY_PAGES; page++) {
        const body = await this.api.json<{ events: ToolEvent[]; next: number }>(`/events?after=${this.lastSequence}&limit=1000`);
        this.add(body.events);
        if (body.events.length < 1000) break;
        if (page === MAX_HISTORY_PAGES - 1) this.truncated = true;
      }
    } catch {
      // A host without an event log: Activity says so.
      this.setState('unavailable');
      return;
    }
    this.stream = subscribe(
      '/events/stream',
      () => ({ ...this.api.headers(), 'last-event-id': String(this.lastSequence) }),
      (message) => {
        if (message.data === '') return;
        const event = JSON.parse(message.data) as ToolEvent;
        if (event.sequence > this.lastSequence) this.add([event]);
      },
      (state) => this.setState(state),
    );
  }

  private add(events: ToolEvent[]): void {
    if (events.length === 0) return;
    this.events.push(...events);
    this.lastSequence = events[events.length - 1].sequence;
    if (this.events.length > MAX_KEPT_EVENTS) this.events.splice(0, this.events.length - MAX_KEPT_EVENTS);
    for (const listener of this.listeners) listener(events);
  }

  private setState(state: LiveState): void {
    this.state = state;
    for (const listener of this.stateListeners) listener(state);
  }

  /** Listens for new events and state changes; returns the way to stop listening. */
  listen(onEvents: (added: ToolEvent[]) => void, onState: (state: LiveState) => void = () => undefined): () => void {
    this.listeners.add(onEvents);
    this.stateListeners.add(onState);
    return () => {
      this.listeners.delete(onEvents);
      this.stateListeners.delete(onState);
    };
  }

  stop(): void {
    this.stream?.stop();
    this.listeners.clear();
    this.stateListeners.clear();
  }
}

export interface SessionSummary {
  sessionId: string;
  toolId: string;
  principal: string;
  opened: string | undefined;
  status: string;
  outcome: string | undefined;
  durationMs: number | undefined;
  /** A resource read or prompt get (one event, `toolId` holding the item id), not a tool session. */
  item?: boolean;
}

/** One row per tool session, newest first, from the events the hub holds. */
export function sessionsOf(events: readonly ToolEvent[]): SessionSummary[] {
  const byId = new Map<string, SessionSummary>();
  for (const e of events) {
    const id = e.payload.sessionId;
    if (id === undefined) continue;
    let s = byId.get(id);
    if (s === undefined) {
      s = { sessionId: id, toolId: e.payload.toolId ?? '', principal: e.principal ?? '', opened: e.timestamp, status: 'open', outcome: undefined, durationMs: undefined };
      byId.set(id, s);
    }
    if (e.type === 'mcp.resource.read' || e.type === 'mcp.prompt.get') {
      Object.assign(s, { toolId: e.payload.itemId ?? '', status: e.payload.status ?? 'ok', durationMs: e.payload.durationMs, outcome: `${e.payload.bytes ?? 0} bytes`, item: true });
    } else if (e.type === 'agent.toolReturned') {
      s.status = e.payload.status ?? s.status;
      s.durationMs = (s.durationMs ?? 0) + (e.payload.durationMs ?? 0);
    } else if (e.type === 'tool.session.closed') {
      s.outcome = e.payload.outcome;
      // The session's own span, open to close, when both ends carry their time.
      const span = Date.parse(e.timestamp ?? '') - Date.parse(s.opened ?? '');
      if (Number.isFinite(span)) s.durationMs = span;
      if (s.status === 'open') s.status = 'closed';
    }
  }
  return [...byId.values()].reverse();
}
