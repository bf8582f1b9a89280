// The Sources page (docs/ui.md "Sources"): the health of every source as
// `/health/sources` reports it (state, whether its tools can be called and
// why not, tool count, last refresh, last error).
import type { Api } from './api.js';
import { formatTime } from './badges.js';
import { el, replaceChildren } from './dom.js';
import type { SourcesReport } from './types.js';

export async function renderSources(view: HTMLElement, api: Api): Promise<void> {
  replaceChildren(view, el('p', { class: 'muted' }, 'Loading sources…'));
  const report = await api.json<SourcesReport>('/health/sources');
  replaceChildren(
    view,
    el('div', { class: 'title-row' }, el('h1', {}, 'Sources'), el('span', { class: `status status-${report.status}`, id: 'host-status' }, `host ${report.status}`)),
    el('p', { class: 'muted' }, 'Every source of this host, whichever tenant its tools belong to: health is the host’s, not a tenant’s.'),
    el(
      'div',
      { class: 'table-wrap' },
      el(
        'table',
        { class: 'sources', id: 'sources' },
        el('caption', { class: 'sr-only' }, 'Sources and their health'),
        el('thead', {}, el('tr', {}, ...['Source', 'Kind', 'State', 'Can call', 'Tools', 'Last refresh', 'Last error'].map((h) => el('th', { scope: 'col', class: h === 'Tools' ? 'num' : undefined }, h)))),
        el(
          'tbody',
          {},
          ...report.sources.map((s) =>
            el(
              'tr',
              {},
              el('td', { class: 'tool-id' }, s.id),
              el('td', {}, s.kind),
              el('td', {}, el('span', { class: `status status-${s.state}` }, s.state)),
              el('td', { class: 'can-call' }, s.canCall === false ? el('span', {}, el('span', { class: 'status status-failed' }, 'no'), ' ', s.cannotCall ?? '') : 'yes'),
              el('td', { class: 'num' }, s.toolCount),
              el('td', {}, formatTime(s.lastRefresh)),
              el('td', { class: 'error-text' }, s.lastError ?? ''),
            ),
          ),
        ),
      ),
    ),
  );
}
