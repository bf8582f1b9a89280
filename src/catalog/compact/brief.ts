// Short, model-readable renderings of compacted subschemas, used in the
// notes appended to `description` when a rewrite loses information
// ("One of: {kind: "circle", radius: number} | {kind: "square", side: number}").
import type { JsonValue } from '../../contract/descriptor.js';
import { isPlainObject } from '../../util/json.js';
import { MAX_NOTE_LENGTH } from './limits.js';

function clip(s: string, n: number): string {
  return s.length <= n ? s : s.slice(0, Math.max(0, n - 1)) + '…';
}

function literal(v: JsonValue): string {
  if (typeof v === 'string') return clip(JSON.stringify(v), 40);
  if (v === null || typeof v !== 'object') return String(v);
  return Array.isArray(v) ? '[…]' : '{…}';
}

function typeWord(s: JsonValue | undefined): string {
  if (s === true) return 'any';
  if (s === false) return 'nothing';
  if (!isPlainObject(s)) return 'any';
  if (s.const !== undefined) return literal(s.const);
  if (Array.isArray(s.enum)) {
    const vals = s.enum.slice(0, 6).map(literal);
    return vals.join(' | ') + (s.enum.length > 6 ? ' | …' : '');
  }
  const t = s.type;
  const types = typeof t === 'string' ? [t] : Array.isArray(t) ? (t.filter((x) => typeof x === 'string') as string[]) : [];
  if (types.length === 0) {
    if (isPlainObject(s.properties)) return 'object';
    if (s.items !== undefined || s.prefixItems !== undefined) return 'array';
    return 'any';
  }
  return types.join(' or ');
}

function num(v: unknown): string | undefined {
  return typeof v === 'number' ? String(v) : undefined;
}

function range(out: string[], lo: string | undefined, hi: string | undefined, unit: string): void {
  if (lo !== undefined && hi !== undefined) out.push(`${unit}${lo}–${hi}`);
  else if (lo !== undefined) out.push(`${unit}≥ ${lo}`);
  else if (hi !== undefined) out.push(`${unit}≤ ${hi}`);
}

/** Short constraint text: "length 2–10", "≥ 0", "matching /^a/". */
function constraints(s: Record<string, unknown>): string {
  const out: string[] = [];
  range(out, num(s.minLength), num(s.maxLength), 'length ');
  range(out, num(s.minItems), num(s.maxItems), 'items ');
  if (num(s.minimum) !== undefined) out.push(`≥ ${s.minimum}`);
  if (num(s.exclusiveMinimum) !== undefined) out.push(`> ${s.exclusiveMinimum}`);
  if (num(s.maximum) !== undefined) out.push(`≤ ${s.maximum}`);
  if (num(s.exclusiveMaximum) !== undefined) out.push(`< ${s.exclusiveMaximum}`);
  if (typeof s.pattern === 'string') out.push(`matching /${clip(s.pattern, 30)}/`);
  if (typeof s.format === 'string') out.push(clip(s.format, 20));
  return out.join(', ');
}

/** One line, at most `max` characters. */
export function brief(s: JsonValue | undefined, max = 80): string {
  if (typeof s === 'boolean') return s ? 'any' : 'nothing';
  if (!isPlainObject(s)) return 'any';
  let core = typeWord(s);
  const props = isPlainObject(s.properties) ? s.properties : undefined;
  const required = Array.isArray(s.required) ? s.required.filter((n): n is string => typeof n === 'string') : [];
  if (props || required.length > 0) {
    const req = new Set(required);
    const names = props ? Object.keys(props) : [];
    const parts = names.slice(0, 6).map((n) => `${clip(n, 24)}${req.has(n) ? '' : '?'}: ${typeWord(props![n])}`);
    for (const n of required) if (parts.length < 6 && !names.includes(n)) parts.push(clip(n, 24));
    if (names.length + required.filter((n) => !names.includes(n)).length > 6) parts.push('…');
    core = `{${parts.join(', ')}}`;
  } else if (s.items !== undefined && !Array.isArray(s.items) && (s.type === 'array' || s.type === undefined)) {
    core = `array of ${typeWord(s.items)}`;
  }
  const c = constraints(s);
  if (c) core = `${core}, ${c}`;
  const label = typeof s.title === 'string' && s.title.trim() ? s.title.trim() : typeof s.description === 'string' ? s.description.trim() : '';
  const text = label ? `${core} (${clip(label.replace(/\s+/g, ' '), 48)})` : core;
  return clip(text, max);
}

/** "One of: a | b | c", bounded by MAX_NOTE_LENGTH. */
export function alternativesNote(label: string, branches: readonly JsonValue[]): string {
  const per = Math.max(24, Math.floor((MAX_NOTE_LENGTH - label.length) / Math.max(1, branches.length)) - 3);
  return clip(`${label}: ${branches.map((b) => brief(b, per)).join(' | ')}`, MAX_NOTE_LENGTH);
}

export function boundedNote(text: string): string {
  return clip(text.replace(/\s+/g, ' '), MAX_NOTE_LENGTH);
}

/** Append a note to a description (sentence-separated). */
export function withNote(description: JsonValue | undefined, note: string): string {
  const d = typeof description === 'string' ? description.trim() : '';
  if (!d) return note;
  if (d.includes(note)) return d;
  return /[.!?:;…]$/.test(d) ? `${d} ${note}` : `${d}. ${note}`;
}
