// The Catalog page (docs/ui.md "Catalog"): every tool of the signed-in
// caller's `GET /tools` in one table, filtered by source and tier and searched
// over ids, titles and descriptions. Rows are virtualized (only the visible
// window is in the DOM), so 10,000 tools render as fast as 30.
import { approvalOf, HINTS, hintText, scopesOf, tierBadge, TIERS, toolHref } from './badges.js';
import { el, replaceChildren } from './dom.js';
import type { Descriptor } from './types.js';

/** Fixed row height (styles.css `.tools td`): what makes the window arithmetic exact. */
const ROW_HEIGHT = 40;
const OVERSCAN = 8;
const COLUMNS = ['Tool', 'Title', 'Source', 'Tier', 'Approval', 'Scopes', 'Egress', ...HINTS.map(([, label]) => label)];

interface Indexed {
  tool: Descriptor;
  /** Lower-cased id, title and description, searched with substring matches. */
  text: string;
}

interface Filters {
  query: string;
  source: string;
  tier: string;
}

/** Kept while the tab lives, so going back to the catalog keeps what the person typed. */
const filters: Filters = { query: '', source: '', tier: '' };

function matches(item: Indexed, f: Filters, words: string[]): boolean {
  if (f.source !== '' && item.tool.source !== f.source) return false;
  if (f.tier !== '' && item.tool.safetyTier !== f.tier) return false;
  for (const w of words) if (!item.text.includes(w)) return false;
  return true;
}

function row(tool: Descriptor, index: number): HTMLTableRowElement {
  return el(
    'tr',
    { 'aria-rowindex': index + 2 },
    el('td', { class: 'tool-id' }, el('a', { href: toolHref(tool.toolId) }, tool.toolId)),
    el('td', { class: 'title' }, tool.title ?? ''),
    el('td', {}, tool.source),
    el('td', {}, tierBadge(tool.safetyTier)),
    el('td', {}, approvalOf(tool)),
    el('td', {}, scopesOf(tool)),
    el('td', {}, tool.egress ?? ''),
    ...HINTS.map(([hint]) => el('td', { class: `hint-cell hint-${hintText(tool, hint)}` }, hintText(tool, hint))),
  );
}

export async function renderCatalog(view: HTMLElement, loadCatalog: () => Promise<Descriptor[]>): Promise<void> {
  performance.mark('catalog-start');
  replaceChildren(view, el('p', { class: 'muted' }, 'Loading the catalog…'));
  const tools = await loadCatalog();
  performance.mark('catalog-data');
  const all: Indexed[] = tools.map((tool) => ({ tool, text: `${tool.toolId}\n${tool.title ?? ''}\n${tool.description ?? ''}`.toLowerCase() }));
  performance.mark('catalog-indexed');
  const sources = [...new Set(tools.map((t) => t.source))].sort();

  const search = el('input', { id: 'catalog-search', type: 'search', placeholder: 'Search ids, titles, descriptions', autocomplete: 'off' });
  search.value = filters.query;
  const sourceSelect = el('select', { id: 'catalog-source' }, el('option', { value: '' }, 'All sources'), ...sources.map((s) => el('option', { value: s }, s)));
  sourceSelect.value = sources.includes(filters.source) ? filters.source : '';
  const tierSelect = el('select', { id: 'catalog-tier' }, el('option', { value: '' }, 'All tiers'), ...TIERS.map((t) => el('option', { value: t }, t)));
  tierSelect.value = filters.tier;
  const count = el('p', { class: 'count', role: 'status', 'aria-live': 'polite' });

  const head = el('thead', {}, el('tr', { 'aria-rowindex': 1 }, ...COLUMNS.map((c) => el('th', { scope: 'col' }, c))));
  const body = el('tbody');
  const table = el('table', { class: 'tools' }, el('caption', { class: 'sr-only' }, 'Tools this credential can see'), head, body);
  const scroller = el('div', { class: 'table-scroll', role: 'region', 'aria-label': 'Tools', tabindex: 0 }, table);

  let shown: Indexed[] = all;
  let frame = 0;
  const paint = (): void => {
    frame = 0;
    const first = Math.max(0, Math.floor(scroller.scrollTop / ROW_HEIGHT) - OVERSCAN);
    // The box grows with its rows up to its max-height: size the window for the viewport, which it never exceeds.
    const visible = Math.ceil(Math.max(scroller.clientHeight, window.innerHeight) / ROW_HEIGHT) + 2 * OVERSCAN;
    const last = Math.min(shown.length, first + visible);
    const top = el('tr', { class: 'spacer', 'aria-hidden': 'true' }, el('td', { colspan: COLUMNS.length }));
    const bottom = el('tr', { class: 'spacer', 'aria-hidden': 'true' }, el('td', { colspan: COLUMNS.length }));
    top.style.height = `${first * ROW_HEIGHT}px`;
    bottom.style.height = `${(shown.length - last) * ROW_HEIGHT}px`;
    const rows: HTMLElement[] = [];
    for (let i = first; i < last; i++) rows.push(row(shown[i].tool, i));
    body.replaceChildren(...(first > 0 ? [top] : []), ...rows, ...(last < shown.length ? [bottom] : []));
  };
  const schedule = (): void => {
    if (frame === 0) frame = requestAnimationFrame(paint);
  };
  const refilter = (): void => {
    filters.query = search.value;
    filters.source = sourceSelect.value;
    filters.tier = tierSelect.value;
    const words = filters.query.toLowerCase().split(/\s+/).filter((w) => w !== '');
    shown = words.length === 0 && filters.source === '' && filters.tier === '' ? all : all.filter((item) => matches(item, filters, words));
    table.setAttribute('aria-rowcount', String(shown.length + 1));
    count.textContent = shown.length === all.length ? `${all.length} tools` : `${shown.length} of ${all.length} tools`;
    scroller.scrollTop = 0;
    paint();
  };
  let debounce = 0;
  search.addEventListener('input', () => {
    clearTimeout(debounce);
    debounce = window.setTimeout(refilter, 60);
  });
  sourceSelect.addEventListener('change', refilter);
  tierSelect.addEventListener('change', refilter);
  scroller.addEventListener('scroll', schedule, { passive: true });

  const controls = el(
    'div',
    { class: 'controls' },
    el('div', { class: 'control grow' }, el('label', { for: 'catalog-search' }, 'Search'), search),
    el('div', { class: 'control' }, el('label', { for: 'catalog-source' }, 'Source'), sourceSelect),
    el('div', { class: 'control' }, el('label', { for: 'catalog-tier' }, 'Tier'), tierSelect),
  );
  replaceChildren(view, el('h1', {}, 'Catalog'), controls, count, scroller);
  refilter();
  performance.mark('catalog-rows');
  // Measured to the second frame after the rows went in: the table has been laid out and painted by then.
  requestAnimationFrame(() =>
    requestAnimationFrame(() => {
      performance.mark('catalog-rendered');
      performance.measure('catalog-render', 'catalog-data', 'catalog-rendered');
      performance.measure('catalog-load', 'catalog-start', 'catalog-rendered');
    }),
  );
}
