// The admin page (docs/ui.md "Admin"): the host's MCP servers and connectors
// as the admin API lists them, with add, edit and remove (each previewed by
// the host's dry run before it is applied), and the audit trail. Only an
// admin's credential gets here: the page asks the API (admin-api.ts
// `isAdmin`), and for anyone else the API's first read is a 404.
import { adminRequest, type AuditRecord, type Listed } from './admin-api.js';
import { openEditor, preview, type EditorHooks, type SourceKind } from './admin-editor.js';
import type { Api } from './api.js';
import { formatTime } from './badges.js';
import { el, replaceChildren } from './dom.js';

const WHAT: Record<SourceKind, string> = { mcp: 'MCP server', connectors: 'connector' };

function where(kind: SourceKind, value: Record<string, unknown>): string {
  if (kind === 'connectors') return String(value.document ?? '');
  if (value.transport === 'http') return String(value.url ?? '');
  return [value.command, ...(Array.isArray(value.args) ? value.args : [])].map(String).join(' ');
}

function table(id: string, caption: string, headers: string[], rows: HTMLElement[]): HTMLElement {
  return el(
    'div',
    { class: 'table-wrap' },
    el(
      'table',
      { class: 'sources', id },
      el('caption', { class: 'sr-only' }, caption),
      el('thead', {}, el('tr', {}, ...headers.map((h) => el('th', { scope: 'col', class: h === '#' ? 'num' : undefined }, h)))),
      el('tbody', {}, ...rows),
    ),
  );
}

function sourceSection(kind: SourceKind, items: Listed[], api: Api, box: HTMLElement, hooks: EditorHooks): HTMLElement {
  const what = WHAT[kind];
  const rows = items.map((item) =>
    el(
      'tr',
      { 'data-id': item.id },
      el('td', { class: 'tool-id' }, item.id),
      el('td', {}, kind === 'mcp' ? String(item.value.transport ?? '') : 'openapi'),
      el('td', { class: 'tool-id' }, where(kind, item.value)),
      el(
        'td',
        {},
        el('button', { type: 'button', class: 'small', 'aria-label': `Edit ${what} ${item.id}`, onclick: () => openEditor(box, api, kind, item, hooks) }, 'Edit'),
        ' ',
        el(
          'button',
          {
            type: 'button',
            class: 'small',
            'aria-label': `Remove ${what} ${item.id}`,
            onclick: () => void preview(box, api, { method: 'DELETE', path: `/sources/${kind}/${encodeURIComponent(item.id)}`, ifMatch: item.etag, label: `remove ${what} ${item.id}` }, hooks),
          },
          'Remove',
        ),
      ),
    ),
  );
  const title = kind === 'mcp' ? 'MCP servers' : 'Connectors';
  return el(
    'section',
    { class: 'card', 'aria-labelledby': `admin-${kind}-title` },
    el('h2', { id: `admin-${kind}-title` }, title),
    items.length === 0 ? el('p', { class: 'muted' }, `No ${what}s are configured.`) : table(`admin-${kind}`, title, ['Id', kind === 'mcp' ? 'Transport' : 'Kind', kind === 'mcp' ? 'Command or URL' : 'Document', 'Actions'], rows),
    el('div', { class: 'actions' }, el('button', { type: 'button', id: `admin-add-${kind}`, onclick: () => openEditor(box, api, kind, undefined, hooks) }, `Add ${what}`)),
  );
}

function short(digest: string | null): string {
  return digest === null ? '(none)' : digest.replace(/^sha256:/, '').slice(0, 12);
}

function auditSection(records: AuditRecord[]): HTMLElement {
  const rows = [...records].reverse().map((r) =>
    el('tr', {}, el('td', { class: 'num' }, r.seq), el('td', {}, formatTime(r.at)), el('td', {}, r.who), el('td', {}, r.action), el('td', { class: 'tool-id' }, r.resource), el('td', { class: 'tool-id' }, `${short(r.before)} → ${short(r.after)}`)),
  );
  return el(
    'section',
    { class: 'card', 'aria-labelledby': 'admin-audit-title' },
    el('h2', { id: 'admin-audit-title' }, 'Audit trail'),
    el('p', { class: 'muted' }, 'Changes made through this replica since it started, newest first. Digests of the resource before and after, never its values.'),
    records.length === 0 ? el('p', { class: 'muted', id: 'admin-audit-empty' }, 'No changes yet.') : table('admin-audit', 'Audit trail', ['#', 'When', 'Who', 'Action', 'Resource', 'Before → after'], rows),
  );
}

/** Renders the admin page; `message` (after a change) is announced in its status line. */
export async function renderAdmin(view: HTMLElement, api: Api, message = ''): Promise<void> {
  replaceChildren(view, el('p', { class: 'muted' }, 'Loading…'));
  const [mcp, connectors, audit] = await Promise.all([
    adminRequest<{ items: Listed[] }>(api, 'GET', '/sources/mcp'),
    adminRequest<{ items: Listed[] }>(api, 'GET', '/sources/connectors'),
    adminRequest<{ records: AuditRecord[] }>(api, 'GET', '/audit?limit=1000'),
  ]);
  const box = el('div', { id: 'admin-editor' });
  const hooks: EditorHooks = {
    done: (text) => void renderAdmin(view, api, text),
    reload: () => void renderAdmin(view, api, 'Reloaded the host’s current sources.'),
  };
  replaceChildren(
    view,
    el('h1', {}, 'Admin'),
    el('p', { class: 'muted' }, 'The running host’s sources, changed through the admin API. Each change is previewed first and applied only if nobody changed the source meanwhile.'),
    el('p', { role: 'status', id: 'admin-status' }, message),
    sourceSection('mcp', mcp.body!.items, api, box, hooks),
    sourceSection('connectors', connectors.body!.items, api, box, hooks),
    box,
    auditSection(audit.body!.records),
  );
}

/** Shows the admin link to an admin only, and to a credential without a tenant only the pages it can use. */
export function showNavFor(nav: HTMLElement, tenant: boolean, admin: boolean): void {
  for (const link of nav.querySelectorAll('a')) {
    const href = link.getAttribute('href');
    link.hidden = href === '#/admin' ? !admin : !tenant && href !== '#/sources';
  }
}
