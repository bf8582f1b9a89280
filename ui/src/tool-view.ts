// The tool page (docs/ui.md "Tool page"): what the host says about one tool
// (tier, approval, scopes, egress, hints), the standard and the compact input
// schema side by side with what the compact view loosened marked, the tool's
// MCP name as this caller's tools/list gives it, snippets, and "Try it".
import type { Api } from './api.js';
import { approvalOf, HINTS, hintText, scopesOf, tierBadge, toolPath } from './badges.js';
import { copyButton, el, replaceChildren } from './dom.js';
import type { EventHub } from './event-hub.js';
import { jsonView } from './json-view.js';
import type { ListedTool, McpClient } from './mcp.js';
import { loosenings, type Loosening } from './schema-diff.js';
import { curlSnippet, mcpConfigSnippet, mcpSnippet } from './snippets.js';
import { tryIt } from './try-it.js';
import type { Descriptor } from './types.js';

const base64url = (text: string): string => {
  let binary = '';
  for (const byte of new TextEncoder().encode(text)) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
};

/**
 * The tool as this caller's MCP tools/list shows it. tools/list is sorted by
 * toolId like GET /tools, and its cursor names the last toolId of the page
 * before (docs/mcp.md "tools/list"): starting from the tool just before this
 * one, the page's first entry is this tool, one request in any catalog size.
 */
async function listedTool(mcp: McpClient, catalog: readonly Descriptor[], toolId: string): Promise<ListedTool | undefined> {
  const i = catalog.findIndex((t) => t.toolId === toolId);
  if (i < 0) return undefined;
  const page = await mcp.listPage(i === 0 ? undefined : base64url(catalog[i - 1].toolId));
  return page.tools[0];
}

function facts(tool: Descriptor): HTMLElement {
  const row = (term: string, ...value: (Node | string)[]): HTMLElement[] => [el('div', { class: 'fact' }, el('dt', {}, term), el('dd', {}, ...value))];
  return el(
    'dl',
    { class: 'facts' },
    ...row('Tier', tierBadge(tool.safetyTier)),
    ...row('Source', tool.source),
    ...row('Approval', approvalOf(tool)),
    ...row('Scopes', scopesOf(tool) || 'none'),
    ...row('Egress', tool.egress ?? 'unknown'),
    ...row('Replay', tool.replayPolicy ?? 'unknown'),
    ...HINTS.flatMap(([hint, label]) => row(label, hintText(tool, hint))),
  );
}

function schemasSideBySide(standard: unknown, compact: unknown, loosened: Loosening[]): HTMLElement {
  const marks = new Map(loosened.map((l) => [`${l.pointer}\n${l.keyword}`, l]));
  const mark = (pointer: string, keyword: string) => {
    const l = marks.get(`${pointer}\n${keyword}`);
    return l === undefined ? undefined : { className: 'loosened', reason: l.kind === 'removed' ? 'not in the compact view' : 'different in the compact view' };
  };
  const list =
    loosened.length === 0
      ? el('p', { class: 'muted' }, 'The compact view keeps this schema as it is.')
      : el(
          'ul',
          { class: 'loosened-list', id: 'loosened-list' },
          ...loosened.map((l) => el('li', {}, el('code', {}, `${l.pointer || '/'}`), ` ${l.kind === 'removed' ? 'drops' : 'changes'} `, el('code', {}, l.keyword))),
        );
  return el(
    'section',
    { class: 'card', 'aria-labelledby': 'schemas-title' },
    el('h2', { id: 'schemas-title' }, 'Input schema'),
    el('p', { class: 'muted' }, 'Left: the standard view. Right: the compact view some models read. Highlighted: what the compact view loosened.'),
    el(
      'div',
      { class: 'side-by-side' },
      el('div', {}, el('h3', {}, 'Standard'), jsonView(standard, mark, 'Standard input schema')),
      el('div', {}, el('h3', {}, 'Compact'), jsonView(compact, undefined, 'Compact input schema')),
    ),
    el('h3', {}, `Loosened or rewritten in the compact view (${loosened.length})`),
    list,
  );
}

function snippet(title: string, text: string, id: string): HTMLElement {
  return el('div', { class: 'snippet' }, el('div', { class: 'snippet-head' }, el('h3', {}, title), copyButton(`Copy ${title}`, () => text)), el('pre', { id, tabindex: 0 }, text));
}

export async function renderTool(view: HTMLElement, api: Api, mcp: McpClient, hub: EventHub, catalog: () => Promise<Descriptor[]>, toolId: string): Promise<void> {
  replaceChildren(view, el('p', { class: 'muted' }, 'Loading the tool…'));
  const [tool, compact] = await Promise.all([api.json<Descriptor>(toolPath(toolId)), api.json<Descriptor>(`${toolPath(toolId)}?view=compact`)]);
  const origin = location.origin;
  const nameSlot = el('code', { id: 'mcp-name' }, '…');
  const mcpSlot = el('div', {}, el('p', { class: 'muted' }, 'Asking /mcp for this tool’s name…'));
  replaceChildren(
    view,
    el('p', { class: 'crumbs' }, el('a', { href: '#/catalog' }, 'Catalog'), ' / ', tool.toolId),
    el('h1', {}, tool.title ?? tool.toolId, ' ', tierBadge(tool.safetyTier)),
    el('p', { class: 'tool-id-line' }, el('code', {}, tool.toolId), ' · MCP name ', nameSlot),
    el('section', { class: 'card', 'aria-labelledby': 'about-title' }, el('h2', { id: 'about-title' }, 'What the host says'), el('p', { class: 'description' }, tool.description ?? 'No description.'), facts(tool)),
    schemasSideBySide(tool.inputSchema ?? {}, compact.inputSchema ?? {}, loosenings(tool.inputSchema ?? {}, compact.inputSchema ?? {})),
    tryIt(tool, api, mcp, hub),
    el('section', { class: 'card', 'aria-labelledby': 'use-title' }, el('h2', { id: 'use-title' }, 'Use it from code'), snippet('curl', curlSnippet(origin, tool), 'snippet-curl'), mcpSlot),
  );
  // Bring the first loosened line of a long schema into its box's view.
  const standardBox = view.querySelector<HTMLElement>('.side-by-side pre');
  const firstLoosened = standardBox?.querySelector<HTMLElement>('.line.loosened');
  if (standardBox && firstLoosened && firstLoosened.offsetTop > standardBox.clientHeight - 40) standardBox.scrollTop = firstLoosened.offsetTop - 60;
  try {
    const listed = await listedTool(mcp, await catalog(), tool.toolId);
    const name = listed?.name ?? tool.toolId;
    nameSlot.textContent = name;
    replaceChildren(mcpSlot, snippet('MCP client', mcpSnippet(origin, tool, name), 'snippet-mcp'), snippet('MCP client config', mcpConfigSnippet(origin), 'snippet-mcp-config'));
  } catch (err) {
    nameSlot.textContent = 'unknown';
    replaceChildren(mcpSlot, el('p', { class: 'problem' }, `/mcp did not answer: ${(err as Error).message}`));
  }
}
