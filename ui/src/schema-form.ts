// The "Try it" form, generated from a tool's standard input schema (docs/ui.md
// "Try it"): required fields, enums, nested objects and arrays become inputs;
// what a form cannot say plainly (`anyOf`, `$ref`, tuples) becomes a JSON box
// for that field. The host validates the arguments again on the call: the
// form helps the person, it does not decide.
import { el } from './dom.js';
import type { Schema } from './types.js';

export interface Field {
  element: HTMLElement;
  /** The argument value, or undefined to leave it out; throws FormError when the input cannot be read. */
  value(): unknown;
}

export class FormError extends Error {}

let counter = 0;
const nextId = (): string => `f${++counter}`;

const isObject = (v: unknown): v is Schema => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The one non-null type of a schema, when it names one. */
function typeOf(schema: Schema): string | undefined {
  const t = schema.type;
  if (typeof t === 'string') return t;
  if (Array.isArray(t)) {
    const rest = t.filter((x) => x !== 'null');
    return rest.length === 1 && typeof rest[0] === 'string' ? rest[0] : undefined;
  }
  if (isObject(schema.properties)) return 'object';
  if (Array.isArray(schema.enum)) return 'enum';
  return undefined;
}

function hint(schema: Schema): string | undefined {
  const d = typeof schema.description === 'string' ? schema.description : undefined;
  return d !== undefined && d.length > 300 ? `${d.slice(0, 300)}…` : d;
}

function labelled(id: string, name: string, required: boolean, schema: Schema, input: HTMLElement): HTMLElement {
  const text = hint(schema);
  const hintId = text !== undefined ? `${id}-hint` : undefined;
  if (hintId !== undefined) input.setAttribute('aria-describedby', hintId);
  return el(
    'div',
    { class: 'field' },
    el('label', { for: id }, name, required ? el('span', { class: 'req', title: 'required' }, ' *') : null),
    input,
    text !== undefined ? el('small', { id: hintId, class: 'hint' }, text) : null,
  );
}

function jsonField(name: string, required: boolean, schema: Schema): Field {
  const id = nextId();
  const area = el('textarea', { id, rows: 3, spellcheck: 'false', placeholder: 'JSON value' });
  if (schema.default !== undefined) area.value = JSON.stringify(schema.default);
  return {
    element: labelled(id, `${name} (JSON)`, required, schema, area),
    value: () => {
      if (area.value.trim() === '') return undefined;
      try {
        return JSON.parse(area.value);
      } catch {
        throw new FormError(`${name}: not valid JSON`);
      }
    },
  };
}

function scalarField(name: string, required: boolean, schema: Schema, type: string): Field {
  const id = nextId();
  const values = Array.isArray(schema.enum) ? schema.enum : undefined;
  if (values !== undefined) {
    const select = el('select', { id }, el('option', { value: '' }, required ? '— choose —' : '— none —'));
    values.forEach((v, i) => select.append(el('option', { value: String(i) }, JSON.stringify(v))));
    if (schema.default !== undefined) {
      const i = values.findIndex((v) => JSON.stringify(v) === JSON.stringify(schema.default));
      if (i >= 0) select.value = String(i);
    }
    return { element: labelled(id, name, required, schema, select), value: () => (select.value === '' ? undefined : values[Number(select.value)]) };
  }
  if (type === 'boolean') {
    const select = el('select', { id }, el('option', { value: '' }, '— none —'), el('option', { value: 'true' }, 'true'), el('option', { value: 'false' }, 'false'));
    if (typeof schema.default === 'boolean') select.value = String(schema.default);
    return { element: labelled(id, name, required, schema, select), value: () => (select.value === '' ? undefined : select.value === 'true') };
  }
  const numeric = type === 'integer' || type === 'number';
  const long = type === 'string' && (typeof schema.maxLength !== 'number' || schema.maxLength > 200);
  const input = long ? el('textarea', { id, rows: 2 }) : el('input', { id, type: numeric ? 'number' : 'text', step: type === 'integer' ? '1' : numeric ? 'any' : undefined });
  if (schema.default !== undefined && schema.default !== null) input.value = String(schema.default);
  else if (Array.isArray(schema.examples) && schema.examples.length > 0) input.setAttribute('placeholder', String(schema.examples[0]));
  if (required) input.setAttribute('aria-required', 'true');
  return {
    element: labelled(id, name, required, schema, input),
    value: () => {
      if (input.value === '') return undefined;
      if (!numeric) return input.value;
      const n = Number(input.value);
      if (!Number.isFinite(n)) throw new FormError(`${name}: not a number`);
      return n;
    },
  };
}

function arrayField(name: string, required: boolean, schema: Schema): Field {
  const itemSchema = isObject(schema.items) ? schema.items : {};
  const items: { field: Field; row: HTMLElement }[] = [];
  const list = el('div', { class: 'array-items' });
  const add = el('button', { type: 'button', class: 'small' }, `Add ${name} item`);
  add.addEventListener('click', () => {
    const field = fieldFor(`${name}[${items.length}]`, true, itemSchema);
    const remove = el('button', { type: 'button', class: 'small subtle' }, 'Remove');
    const row = el('div', { class: 'array-item' }, field.element, remove);
    const entry = { field, row };
    remove.addEventListener('click', () => {
      items.splice(items.indexOf(entry), 1);
      row.remove();
    });
    items.push(entry);
    list.append(row);
  });
  const element = el('fieldset', { class: 'nested' }, el('legend', {}, name, required ? el('span', { class: 'req', title: 'required' }, ' *') : null), hint(schema) !== undefined ? el('small', { class: 'hint' }, hint(schema)) : null, list, add);
  return {
    element,
    value: () => {
      if (items.length === 0) return required ? [] : undefined;
      return items.map((i) => i.field.value() ?? null);
    },
  };
}

export function objectFields(schema: Schema): { elements: HTMLElement[]; value(): Record<string, unknown> } {
  const properties = isObject(schema.properties) ? schema.properties : {};
  const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
  const fields = Object.entries(properties).map(([name, sub]) => [name, fieldFor(name, required.has(name), isObject(sub) ? sub : {})] as const);
  return {
    elements: fields.map(([, f]) => f.element),
    value: () => {
      const out: Record<string, unknown> = {};
      for (const [name, field] of fields) {
        const v = field.value();
        if (v !== undefined) out[name] = v;
        else if (required.has(name)) throw new FormError(`${name} is required`);
      }
      return out;
    },
  };
}

function objectField(name: string, required: boolean, schema: Schema): Field {
  const inner = objectFields(schema);
  const element = el('fieldset', { class: 'nested' }, el('legend', {}, name, required ? el('span', { class: 'req', title: 'required' }, ' *') : null), ...inner.elements);
  return {
    element,
    value: () => {
      const v = inner.value();
      return Object.keys(v).length === 0 && !required ? undefined : v;
    },
  };
}

export function fieldFor(name: string, required: boolean, schema: Schema): Field {
  const plain = !('anyOf' in schema) && !('oneOf' in schema) && !('$ref' in schema) && !('allOf' in schema);
  const type = typeOf(schema);
  if (!plain || type === undefined) return jsonField(name, required, schema);
  if (type === 'object') return isObject(schema.properties) ? objectField(name, required, schema) : jsonField(name, required, schema);
  if (type === 'array') return isObject(schema.items) ? arrayField(name, required, schema) : jsonField(name, required, schema);
  return scalarField(name, required, schema, type === 'enum' ? 'string' : type);
}
