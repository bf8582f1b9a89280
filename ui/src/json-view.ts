// A schema shown as indented JSON whose lines can be marked (the tool page's
// side-by-side schemas, docs/ui.md "Tool page"). Every line is built as text.
import { el } from './dom.js';

/** Returns a class name and a reason for the line of `keyword` in the object at `pointer`, or undefined. */
export type LineMark = (pointer: string, keyword: string) => { className: string; reason: string } | undefined;

const escapeSegment = (s: string): string => s.replace(/~/g, '~0').replace(/\//g, '~1');

export function jsonView(value: unknown, mark: LineMark = () => undefined, label = 'JSON'): HTMLElement {
  const pre = el('pre', { class: 'json', tabindex: 0, 'aria-label': label });
  const line = (indent: number, text: string, marked?: { className: string; reason: string }): void => {
    const span = el('span', { class: `line${marked ? ` ${marked.className}` : ''}`, title: marked?.reason }, '  '.repeat(indent) + text);
    pre.append(span, '\n');
  };
  const emit = (v: unknown, pointer: string, indent: number, prefix: string, suffix: string, marked?: { className: string; reason: string }): void => {
    if (Array.isArray(v) && v.length > 0) {
      line(indent, `${prefix}[`, marked);
      v.forEach((item, i) => emit(item, `${pointer}/${i}`, indent + 1, '', i < v.length - 1 ? ',' : ''));
      line(indent, `]${suffix}`, marked);
    } else if (typeof v === 'object' && v !== null && Object.keys(v).length > 0) {
      line(indent, `${prefix}{`, marked);
      const entries = Object.entries(v as Record<string, unknown>);
      entries.forEach(([k, sub], i) => emit(sub, `${pointer}/${escapeSegment(k)}`, indent + 1, `${JSON.stringify(k)}: `, i < entries.length - 1 ? ',' : '', mark(pointer, k)));
      line(indent, `}${suffix}`, marked);
    } else {
      line(indent, `${prefix}${JSON.stringify(v) ?? 'null'}${suffix}`, marked);
    }
  };
  emit(value, '', 0, '', '');
  return pre;
}
