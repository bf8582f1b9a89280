// How safety reads at a glance (docs/ui.md "Catalog"): the tier as a coloured
// badge whose text says the tier too (colour is never the only signal), and
// the host-derived MCP hints as words.
import { el } from './dom.js';
import type { Descriptor } from './types.js';

export const TIERS = ['pure', 'read', 'write', 'exec'] as const;

const TIER_MEANING: Record<string, string> = {
  pure: 'pure: no side effects, no I/O',
  read: 'read: reads data, changes nothing',
  write: 'write: changes data',
  exec: 'exec: runs commands on the host',
};

export function tierBadge(tier: string): HTMLElement {
  return el('span', { class: `badge tier-${TIERS.includes(tier as never) ? tier : 'unknown'}`, title: TIER_MEANING[tier] ?? tier }, tier);
}

export const HINTS = [
  ['readOnlyHint', 'Read-only'],
  ['destructiveHint', 'Destructive'],
  ['idempotentHint', 'Idempotent'],
  ['openWorldHint', 'Open world'],
] as const;

export function hintText(d: Descriptor, hint: (typeof HINTS)[number][0]): string {
  const v = d.annotations?.[hint];
  return v === true ? 'yes' : v === false ? 'no' : '—';
}

export function approvalOf(d: Descriptor): string {
  return d.approval ?? 'never';
}

export function scopesOf(d: Descriptor): string {
  return d.auth?.scopes?.join(', ') ?? '';
}

export function formatDuration(ms: number | undefined): string {
  if (ms === undefined) return '';
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(2)} s`;
}

export function formatTime(iso: string | undefined): string {
  if (iso === undefined) return '';
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : d.toLocaleString(undefined, { hour12: false });
}

/** The URL fragment of a tool page. */
export function toolHref(toolId: string): string {
  return `#/tool/${encodeURIComponent(toolId)}`;
}

/**
 * One path segment for an id from the host or an upstream: every `/` and
 * unusual character escaped, so the id stays one segment under its prefix.
 * `.` and `..` cannot be escaped (a browser resolves `%2E%2E` as `..` too):
 * refused, so no id can climb out of its prefix to another endpoint.
 */
export function pathSegment(id: string): string {
  const segment = encodeURIComponent(id).replace(/%3A/gi, ':');
  if (/^(?:\.|%2e){1,2}$/i.test(segment)) throw new Error(`no page for the id ${JSON.stringify(id)}`);
  return segment;
}

/** A toolId as a path under /tools/, one segment (the host decodes it once). */
export function toolPath(toolId: string): string {
  return `/tools/${pathSegment(toolId)}`;
}
