// Adding, editing and removing a source on the admin page (docs/ui.md
// "Admin"): a form in the config file's own shape, then the host's dry run
// of the change (what each tenant would gain, lose or see reclassified), and
// only then the change itself, sent with the ETag the resource was read with.
// A 412 means someone changed it meanwhile: the page says so and offers a
// reload rather than overwriting their change.
import { AdminError, adminRequest, type DryRun, type Listed } from './admin-api.js';
import type { Api } from './api.js';
import { el, jsonText, replaceChildren } from './dom.js';

export type SourceKind = 'mcp' | 'connectors';

/** One change as the admin API takes it; previewed with `?dryRun=true`, then applied as is. */
export interface Change {
  method: 'POST' | 'PUT' | 'DELETE';
  path: string;
  body?: unknown;
  ifMatch?: string;
  /** What the person is doing, in words ("Add MCP server everything"). */
  label: string;
}

export interface EditorHooks {
  /** The change was applied: re-read the page and say what happened. */
  done(message: string): void;
  /** Start over from the host's current state (after a 412). */
  reload(): void;
}

const FORM_KEYS: Record<SourceKind, string[]> = { mcp: ['id', 'transport', 'command', 'args', 'url'], connectors: ['id', 'document'] };

function field(id: string, label: string, input: HTMLElement, hint?: string): HTMLElement {
  if (hint !== undefined) input.setAttribute('aria-describedby', `${id}-hint`);
  return el('div', { class: 'control' }, el('label', { for: id }, label), input, hint === undefined ? null : el('small', { class: 'hint', id: `${id}-hint` }, hint));
}

function describeError(err: unknown): HTMLElement {
  if (err instanceof AdminError && err.status === 412) {
    return el('p', { class: 'problem', role: 'alert', id: 'admin-conflict' }, 'Changed meanwhile: this source was changed by someone else since the page read it. Reload to see the current version, then make your change again.');
  }
  if (err instanceof AdminError && err.problems.length > 0) {
    return el(
      'div',
      { role: 'alert', id: 'admin-problems' },
      el('p', { class: 'problem' }, `The host refused the change: ${err.message}`),
      el('ul', {}, ...err.problems.map((p) => el('li', {}, el('code', {}, `${p.in}${p.pointer === '' ? '' : ` ${p.pointer}`}`), `: ${p.message}`))),
    );
  }
  return el('p', { class: 'problem', role: 'alert' }, `The host refused the change: ${(err as Error).message}`);
}

function toolList(title: string, ids: string[]): HTMLElement | null {
  if (ids.length === 0) return null;
  return el('div', {}, el('h4', {}, `${title} (${ids.length})`), el('ul', { class: 'tool-id' }, ...ids.map((id) => el('li', {}, id))));
}

/** The dry run's answer as a list per tenant. */
export function renderDiff(result: DryRun): HTMLElement {
  const tenants = Object.entries(result.changes).filter(([, d]) => d.added.length + d.removed.length + d.reclassified.length > 0);
  return el(
    'div',
    { id: 'admin-diff' },
    tenants.length === 0 ? el('p', {}, 'No tenant’s tools would change.') : null,
    ...tenants.map(([tenant, d]) =>
      el(
        'section',
        { class: 'diff-tenant', 'aria-label': `Tenant ${tenant}` },
        el('h3', {}, `Tenant ${tenant}`),
        toolList('Tools added', d.added),
        toolList('Tools removed', d.removed),
        d.reclassified.length === 0 ? null : el('div', {}, el('h4', {}, `Reclassified (${d.reclassified.length})`), el('ul', {}, ...d.reclassified.map((r) => el('li', {}, el('code', {}, r.toolId), `: ${r.before} → ${r.after}`)))),
      ),
    ),
    result.refusedSettings.length === 0 ? null : el('p', { class: 'problem' }, `Settings that cannot change while running: ${result.refusedSettings.join(', ')}`),
  );
}

/** Fills the preview's box with one card. */
function fill(box: HTMLElement, ...children: (HTMLElement | null)[]): void {
  replaceChildren(box, el('section', { class: 'card', 'aria-labelledby': 'admin-preview-title' }, ...children));
}

/** Previews `change` in `box`, then offers to apply it. */
export async function preview(box: HTMLElement, api: Api, change: Change, hooks: EditorHooks): Promise<void> {
  const heading = el('h2', { tabindex: -1, id: 'admin-preview-title' }, `Preview: ${change.label}`);
  fill(box, heading, el('p', { class: 'muted', role: 'status' }, 'Asking the host what this would change…'));
  heading.focus();
  const dryRun = change.path + '?dryRun=true';
  let result: DryRun;
  try {
    result = (await adminRequest<DryRun>(api, change.method, dryRun, { body: change.body, ifMatch: change.ifMatch })).body!;
  } catch (err) {
    return showRefusal(box, heading, err, hooks);
  }
  const apply = el('button', { type: 'button', class: 'primary', id: 'admin-apply' }, 'Apply');
  const outcome = el('div', { id: 'admin-outcome' });
  apply.addEventListener('click', () => {
    apply.disabled = true;
    adminRequest(api, change.method, change.path, { body: change.body, ifMatch: change.ifMatch }).then(
      () => hooks.done(`Applied: ${change.label}.`),
      (err) => {
        replaceChildren(outcome, describeError(err), reloadButton(err, hooks));
      },
    );
  });
  fill(
    box,
    heading,
    el('p', { class: 'muted' }, 'The host checked this change as it would apply it. Nothing has changed yet.'),
    renderDiff(result),
    el('div', { class: 'actions' }, apply, el('button', { type: 'button', onclick: () => replaceChildren(box) }, 'Cancel')),
    outcome,
  );
}

function reloadButton(err: unknown, hooks: EditorHooks): HTMLElement | null {
  return err instanceof AdminError && err.status === 412 ? el('button', { type: 'button', id: 'admin-reload', onclick: () => hooks.reload() }, 'Reload') : null;
}

function showRefusal(box: HTMLElement, heading: HTMLElement, err: unknown, hooks: EditorHooks): void {
  fill(box, heading, describeError(err), el('div', { class: 'actions' }, reloadButton(err, hooks), el('button', { type: 'button', onclick: () => replaceChildren(box) }, 'Close')));
}

/** The rest of a resource (what the form has no field for), kept as JSON so an edit loses nothing. */
function extrasOf(kind: SourceKind, value: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(value).filter(([k]) => !FORM_KEYS[kind].includes(k)));
}

/** The form to add a source (`existing` undefined) or edit one; its submit previews the change. */
export function openEditor(box: HTMLElement, api: Api, kind: SourceKind, existing: Listed | undefined, hooks: EditorHooks): void {
  const value = existing?.value ?? {};
  const str = (k: string) => (typeof value[k] === 'string' ? (value[k] as string) : '');
  const id = el('input', { id: 'src-id', required: true, spellcheck: 'false', value: existing?.id ?? '', readonly: existing !== undefined });
  const extras = el('textarea', { id: 'src-extras', rows: 4, spellcheck: 'false' }, jsonText(extrasOf(kind, value)));
  const problem = el('p', { class: 'problem', role: 'alert', id: 'src-problem' });
  const fields: HTMLElement[] = [field('src-id', 'Id', id, 'Lower-case letters, digits, _ and -; the source part of its toolIds.')];
  let build: () => Record<string, unknown>;
  if (kind === 'mcp') {
    const transport = el('select', { id: 'src-transport' }, el('option', { value: 'stdio' }, 'stdio (a command)'), el('option', { value: 'http' }, 'http (a URL)'));
    transport.value = str('transport') === 'http' ? 'http' : 'stdio';
    const command = el('input', { id: 'src-command', spellcheck: 'false', value: str('command') });
    const args = el('textarea', { id: 'src-args', rows: 3, spellcheck: 'false' }, Array.isArray(value.args) ? (value.args as string[]).join('\n') : '');
    const url = el('input', { id: 'src-url', type: 'url', spellcheck: 'false', value: str('url') });
    const stdioFields = el('div', { class: 'source-group' }, field('src-command', 'Command', command, 'Spawned without a shell.'), field('src-args', 'Arguments', args, 'One per line.'));
    const httpFields = el('div', { class: 'source-group' }, field('src-url', 'URL', url, 'The Streamable HTTP endpoint.'));
    const show = () => {
      stdioFields.hidden = transport.value !== 'stdio';
      httpFields.hidden = transport.value !== 'http';
    };
    transport.addEventListener('change', show);
    show();
    fields.push(field('src-transport', 'Transport', transport), stdioFields, httpFields);
    build = () => {
      const argList = args.value.split('\n').map((a) => a.trim()).filter((a) => a !== '');
      return transport.value === 'http'
        ? { id: id.value.trim(), transport: 'http', url: url.value.trim() }
        : { id: id.value.trim(), transport: 'stdio', command: command.value.trim(), ...(argList.length > 0 ? { args: argList } : {}) };
    };
  } else {
    const document = el('input', { id: 'src-document', spellcheck: 'false', value: str('document') });
    fields.push(field('src-document', 'OpenAPI document', document, 'A path on the host, relative to the config file’s folder.'));
    build = () => ({ id: id.value.trim(), document: document.value.trim() });
  }
  const what = kind === 'mcp' ? 'MCP server' : 'connector';
  const form = el(
    'form',
    { class: 'card', id: 'source-form', 'aria-labelledby': 'source-form-title' },
    el('h2', { id: 'source-form-title' }, existing === undefined ? `Add ${what}` : `Edit ${what} ${existing.id}`),
    ...fields,
    field('src-extras', 'Other settings (JSON)', extras, 'Any other keys of the config file’s entry, as a JSON object.'),
    el('div', { class: 'actions' }, el('button', { type: 'submit', class: 'primary' }, 'Preview change'), el('button', { type: 'button', onclick: () => replaceChildren(box) }, 'Cancel')),
    problem,
  );
  const result = el('div', { id: 'admin-preview' });
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    let rest: unknown;
    try {
      rest = JSON.parse(extras.value.trim() === '' ? '{}' : extras.value);
    } catch (err) {
      problem.textContent = `Other settings is not JSON: ${(err as Error).message}`;
      return;
    }
    if (typeof rest !== 'object' || rest === null || Array.isArray(rest)) {
      problem.textContent = 'Other settings must be a JSON object.';
      return;
    }
    problem.textContent = '';
    const body = { ...(rest as Record<string, unknown>), ...build() };
    const path = `/sources/${kind}`;
    const change: Change =
      existing === undefined
        ? { method: 'POST', path, body, label: `add ${what} ${body.id as string}` }
        : { method: 'PUT', path: `${path}/${encodeURIComponent(existing.id)}`, body, ifMatch: existing.etag, label: `edit ${what} ${existing.id}` };
    void preview(result, api, change, hooks);
  });
  replaceChildren(box, form, result);
  (existing === undefined ? id : (form.querySelector('select, input:not([readonly]), textarea') as HTMLElement)).focus();
}
