// The Catalog page (docs/ui.md "Catalog"): every tool of the signed-in
// caller's `GET /tools` in one table, filtered by source and tier and searched
// over ids, titles and descriptions. Rows are virtualized (only the visible
// window is in the DOM), so 10,000 tools render as fast as 30. A repaint
// moves the window by adding and removing rows at its edges, never by
// replacing the rows that stay: a focused link keeps its focus while the
// table scrolls under the keyboard. The parsed list, the filters and the
// scroll position outlive the page, so going back to the catalog shows it
// where the person left it without reading or indexing it again.
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
/** The last list indexed (by identity: the same read is indexed once) and where its table was scrolled to. */
let kept: { tools: Descriptor[]; all: Indexed[]; scrollTop: number } | undefined;

function indexOf(tools: Descriptor[]): { all: Indexed[]; scrollTop: number } {
  if (kept?.tools !== tools) kept = { tools, all: tools.map((tool) => ({ tool, text: `${tool.toolId}\n${tool.title ?? ''}\n${tool.description ?? ''}`.toLowerCase() })), scrollTop: 0 };
  return kept;
}

/** A cell whose text may be cut by the fixed layout: the whole text on hover. */
function cell(text: string, className?: string): HTMLTableCellElement {
  return el('td', { class: className, title: text === '' ? undefined : text }, text);
}

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
    el('td', { class: 'tool-id', title: tool.toolId }, el('a', { href: toolHref(tool.toolId) }, tool.toolId)),
    cell(tool.title ?? '', 'title'),
    cell(tool.source),
    el('td', {}, tierBadge(tool.safetyTier)),
    cell(approvalOf(tool)),
    cell(scopesOf(tool)),
    cell(tool.egress ?? ''),
    ...HINTS.map(([hint]) => el('td', { class: `hint-cell hint-${hintText(tool, hint)}` }, hintText(tool, hint))),
  );
}

export async function renderCatalog(view: HTMLElement, loadCatalog: () => Promise<Descriptor[]>): Promise<void> {
  performance.mark('catalog-start');
  replaceChildren(view, el('p', { class: 'muted' }, 'Loading the catalog…'));
  const tools = await loadCatalog();
  performance.mark('catalog-data');
  const index = indexOf(tools);
  const all = index.all;
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
  const spacer = (): HTMLTableRowElement => el('tr', { class: 'spacer', 'aria-hidden': 'true' }, el('td', { colspan: COLUMNS.length }));
  const top = spacer();
  const bottom = spacer();
  body.append(top, bottom);
  /** The rows in the DOM, by their index in `shown`: always one contiguous run, in order, between the spacers. */
  const rendered = new Map<number, HTMLTableRowElement>();
  let window0 = { first: 0, last: 0 };
  const paint = (fresh = false): void => {
    frame = 0;
    const first = Math.max(0, Math.floor(scroller.scrollTop / ROW_HEIGHT) - OVERSCAN);
    // The box grows with its rows up to its max-height: size the window for the viewport, which it never exceeds.
    const visible = Math.ceil(Math.max(scroller.clientHeight, window.innerHeight) / ROW_HEIGHT) + 2 * OVERSCAN;
    const last = Math.min(shown.length, first + visible);
    if (!fresh && first === window0.first && last === window0.last) return;
    window0 = { first, last };
    for (const [i, tr] of rendered) {
      if (fresh || i < first || i >= last) {
        tr.remove();
        rendered.delete(i);
      }
    }
    let anchor: HTMLTableRowElement = top;
    for (let i = first; i < last; i++) {
      let tr = rendered.get(i);
      if (tr === undefined) {
        tr = row(shown[i].tool, i);
        rendered.set(i, tr);
        anchor.after(tr);
      }
      anchor = tr;
    }
    top.hidden = first === 0;
    bottom.hidden = last >= shown.length;
    top.style.height = `${first * ROW_HEIGHT}px`;
    bottom.style.height = `${(shown.length - last) * ROW_HEIGHT}px`;
  };
  const schedule = (): void => {
    index.scrollTop = scroller.scrollTop;
    if (frame === 0) frame = requestAnimationFrame(() => paint());
  };
  const clear = el('button', { type: 'button', id: 'clear-filters' }, 'Clear search and filters');
  const empty = el('p', { class: 'empty', id: 'catalog-empty', role: 'status', hidden: true }, 'No tool matches this search and these filters. ', clear);
  const refilter = (scrollTop = 0): void => {
    filters.query = search.value;
    filters.source = sourceSelect.value;
    filters.tier = tierSelect.value;
    const words = filters.query.toLowerCase().split(/\s+/).filter((w) => w !== '');
    shown = words.length === 0 && filters.source === '' && filters.tier === '' ? all : all.filter((item) => matches(item, filters, words));
    table.setAttribute('aria-rowcount', String(shown.length + 1));
    count.textContent = shown.length === all.length ? `${all.length} tools` : `${shown.length} of ${all.length} tools`;
    empty.hidden = shown.length > 0 || all.length === 0;
    scroller.hidden = !empty.hidden;
    scroller.scrollTop = 0;
    paint(true);
    // Only now is the table tall enough to be scrolled back to where it was.
    if (scrollTop > 0) {
      scroller.scrollTop = scrollTop;
      paint();
    }
    index.scrollTop = scroller.scrollTop;
  };
  clear.addEventListener('click', () => {
    search.value = '';
    sourceSelect.value = '';
    tierSelect.value = '';
    refilter();
    search.focus();
  });
  let debounce = 0;
  search.addEventListener('input', () => {
    clearTimeout(debounce);
    debounce = window.setTimeout(() => refilter(), 60);
  });
  sourceSelect.addEventListener('change', () => refilter());
  tierSelect.addEventListener('change', () => refilter());
  scroller.addEventListener('scroll', schedule, { passive: true });

  const controls = el(
    'div',
    { class: 'controls' },
    el('div', { class: 'control grow' }, el('label', { for: 'catalog-search' }, 'Search'), search),
    el('div', { class: 'control' }, el('label', { for: 'catalog-source' }, 'Source'), sourceSelect),
    el('div', { class: 'control' }, el('label', { for: 'catalog-tier' }, 'Tier'), tierSelect),
  );
  replaceChildren(view, el('h1', {}, 'Catalog'), controls, count, empty, scroller);
  refilter(index.scrollTop);
  performance.mark('catalog-rows');
  // Measured to the second frame after the rows went in: the table has been laid out and painted by then.
  requestAnimationFrame(() =>
    requestAnimationFrame(() => {
      performance.mark('catalog-rendered');
      performance.measure('catalog-render', 'catalog-data', 'catalog-rendered');
      // From the sign-in that read the list when there was one (the first visit), else from this visit.
      performance.measure('catalog-load', performance.getEntriesByName('sign-in').length > 0 ? 'sign-in' : 'catalog-start', 'catalog-rendered');
      performance.clearMarks('sign-in');
    }),
  );
}
