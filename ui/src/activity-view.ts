// The Activity page (docs/ui.md "Activity"): the tenant's tool sessions, live
// (the event hub follows /events/stream), newest first; a session opens to its
// events, read from /sessions/{id}/events.
import type { Api } from './api.js';
import { formatDuration, formatTime, pathSegment, toolHref } from './badges.js';
import { el, replaceChildren } from './dom.js';
import { sessionsOf, type EventHub, type LiveState } from './event-hub.js';
import type { ToolEvent } from './types.js';

/** Rows shown at most; the hub holds more. */
const MAX_ROWS = 500;

const STATE_TEXT: Record<LiveState, string> = {
  loading: 'Loading…',
  live: 'Live',
  reconnecting: 'Reconnecting…',
  refused: 'The host refused the live stream',
  unavailable: 'This host keeps no event log',
};

export function renderActivity(view: HTMLElement, hub: EventHub): () => void {
  const state = el('span', { class: 'live-state', id: 'live-state', role: 'status' });
  const body = el('tbody');
  const table = el(
    'table',
    { class: 'sessions', id: 'sessions' },
    el('caption', { class: 'sr-only' }, 'Tool sessions, newest first'),
    // The last column's links say "Events"; its header names it for screen readers without repeating it on screen.
    el('thead', {}, el('tr', {}, ...['Started', 'Tool', 'Principal', 'Status', 'Duration', 'Outcome'].map((h) => el('th', { scope: 'col' }, h)), el('th', { scope: 'col' }, el('span', { class: 'sr-only' }, 'Events')))),
    body,
  );
  const showState = (s: LiveState): void => {
    state.textContent = STATE_TEXT[s];
    state.className = `live-state state-${s}`;
  };
  const paint = (): void => {
    const sessions = sessionsOf(hub.events).slice(0, MAX_ROWS);
    body.replaceChildren(
      ...sessions.map((s) =>
        el(
          'tr',
          { 'data-session': s.sessionId },
          el('td', {}, formatTime(s.opened)),
          el('td', { class: 'tool-id' }, s.item ? s.toolId : el('a', { href: toolHref(s.toolId) }, s.toolId)),
          el('td', {}, s.principal),
          el('td', {}, el('span', { class: `status status-${s.status}` }, s.status)),
          el('td', {}, formatDuration(s.durationMs)),
          el('td', {}, s.outcome ?? ''),
          el('td', {}, el('a', { href: `#/session/${encodeURIComponent(s.sessionId)}` }, 'Events')),
        ),
      ),
    );
    if (sessions.length === 0) body.append(el('tr', {}, el('td', { colspan: 7, class: 'muted' }, 'No tool sessions yet. Calls made through /mcp appear here as they happen.')));
  };
  replaceChildren(
    view,
    el('div', { class: 'title-row' }, el('h1', {}, 'Activity'), state),
    hub.truncated ? el('p', { class: 'muted' }, 'Only the oldest part of a long history was read; live sessions still appear.') : null,
    el('div', { class: 'table-wrap' }, table),
  );
  showState(hub.state);
  paint();
  // A burst of events repaints once per frame.
  let frame = 0;
  const schedule = (): void => {
    if (frame === 0) frame = requestAnimationFrame(() => ((frame = 0), paint()));
  };
  const stop = hub.listen(schedule, showState);
  return () => {
    cancelAnimationFrame(frame);
    stop();
  };
}

export async function renderSession(view: HTMLElement, api: Api, sessionId: string): Promise<void> {
  replaceChildren(view, el('p', { class: 'muted' }, 'Loading the session…'));
  const { events } = await api.json<{ events: ToolEvent[] }>(`/sessions/${pathSegment(sessionId)}/events`);
  replaceChildren(
    view,
    el('p', { class: 'crumbs' }, el('a', { href: '#/activity' }, 'Activity'), ' / session'),
    el('h1', {}, 'Tool session'),
    el('p', {}, el('code', {}, sessionId)),
    el(
      'div',
      { class: 'table-wrap' },
      el(
        'table',
        { class: 'events', id: 'session-events' },
        el('caption', { class: 'sr-only' }, 'Events of the session'),
        el('thead', {}, el('tr', {}, ...['#', 'Time', 'Event', 'Tool', 'Principal', 'Status', 'Duration', 'Outcome'].map((h) => el('th', { scope: 'col' }, h)))),
        el(
          'tbody',
          {},
          ...events.map((e) =>
            el(
              'tr',
              {},
              el('td', {}, e.sequence),
              el('td', {}, formatTime(e.timestamp)),
              el('td', {}, e.type),
              el('td', { class: 'tool-id' }, e.payload.toolId ?? e.payload.itemId ?? ''),
              el('td', {}, e.principal ?? ''),
              el('td', {}, e.payload.status ?? ''),
              el('td', {}, formatDuration(e.payload.durationMs)),
              el('td', {}, e.payload.outcome ?? ''),
            ),
          ),
        ),
      ),
    ),
  );
}
