// Search over the MCP resources, templates and prompts a caller sees
// (docs/search.md "Resources and prompts"), for GET /tool-search and the MCP
// search mode. A caller's items are few (each server's lists are bounded),
// so a query scans its own view: the same words and stems as tool search,
// scored by which fields hold each query term. A score depends on the item
// and the query alone, never on other items, so nothing another tenant
// offers can move a result or a count.
import type { ItemsView } from '../resources-prompts.js';
import { stem, words } from './text.js';

export interface ItemHit {
  kind: 'resource' | 'template' | 'prompt';
  /** The host URI (resource), URI template (template) or prompt name. */
  id: string;
  title?: string;
  description?: string;
  mimeType?: string;
  score: number;
}

interface ItemDocument {
  hit: Omit<ItemHit, 'score'>;
  /** Stemmed terms per field, with the field's weight. */
  fields: { terms: ReadonlySet<string>; weight: number }[];
}

const MAX_FIELD_CHARS = 2000;
const terms = (text: string | undefined) => new Set(words((text ?? '').slice(0, MAX_FIELD_CHARS)).map(stem));
const documents = new WeakMap<ItemsView, ItemDocument[]>();

function documentsOf(view: ItemsView): ItemDocument[] {
  let docs = documents.get(view);
  if (docs !== undefined) return docs;
  const doc = (hit: Omit<ItemHit, 'score'>, name: string, original: string): ItemDocument => ({
    hit,
    fields: [
      { terms: terms(name), weight: 3 },
      { terms: terms(hit.title), weight: 3 },
      { terms: terms(original), weight: 2 },
      { terms: terms(hit.description), weight: 1 },
    ],
  });
  const optional = (o: { title?: string; description?: string; mimeType?: string }) => ({
    ...(o.title !== undefined ? { title: o.title } : {}),
    ...(o.description !== undefined ? { description: o.description } : {}),
    ...(o.mimeType !== undefined ? { mimeType: o.mimeType } : {}),
  });
  docs = [
    ...view.resources.map((e) => doc({ kind: 'resource', id: e.uri, ...optional(e.wire) }, e.wire.name, String(e.wire._meta?.['toolhost/upstreamUri'] ?? ''))),
    ...view.templates.map((e) => doc({ kind: 'template', id: e.wire.uriTemplate, ...optional(e.wire) }, e.wire.name, String(e.wire._meta?.['toolhost/upstreamUri'] ?? ''))),
    ...view.prompts.map((e) => doc({ kind: 'prompt', id: e.name, ...optional(e.wire) }, e.name, String(e.wire._meta?.['toolhost/upstreamName'] ?? ''))),
  ];
  documents.set(view, docs);
  return docs;
}

/** The caller's items matching `query`, best first (ties by kind and id), at most `limit`; `total` counts every match. */
export function searchItems(view: ItemsView, query: string, limit: number): { hits: ItemHit[]; total: number } {
  const wanted = [...terms(query)];
  if (wanted.length === 0) return { hits: [], total: 0 };
  const scored: ItemHit[] = [];
  for (const d of documentsOf(view)) {
    let score = 0;
    for (const t of wanted) for (const f of d.fields) if (f.terms.has(t)) score += f.weight;
    if (score > 0) scored.push({ ...d.hit, score });
  }
  scored.sort((a, b) => b.score - a.score || (a.kind < b.kind ? -1 : a.kind > b.kind ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return { hits: scored.slice(0, limit), total: scored.length };
}
