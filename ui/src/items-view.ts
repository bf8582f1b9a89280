// The Resources page (docs/ui.md "Resources and prompts"): the MCP servers'
// resources, templates and prompts this credential sees, read through the
// page's MCP session exactly as an agent would (`resources/list`,
// `resources/read`, `prompts/list`, `prompts/get`), so it never shows more
// than the credential may see. A resource's text is shown inline (as text,
// never markup), a blob is offered as a download; a prompt is rendered with
// the arguments typed into its form.
import { el, replaceChildren } from './dom.js';
import { McpError, type McpClient } from './mcp.js';

interface Resource {
  uri: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
}
interface Template {
  uriTemplate: string;
  name: string;
  description?: string;
}
interface Prompt {
  name: string;
  title?: string;
  description?: string;
  arguments?: { name: string; description?: string; required?: boolean }[];
}
interface Content {
  uri: string;
  mimeType?: string;
  text?: string;
  blob?: string;
}

const METHOD_NOT_FOUND = -32601;

/** Every page of a list; a session not offered the method (the credential sees none) lists nothing. */
async function every<T>(mcp: McpClient, method: string, key: string): Promise<T[]> {
  const out: T[] = [];
  let cursor: string | undefined;
  try {
    do {
      const page = await mcp.request(method, cursor === undefined ? {} : { cursor });
      out.push(...((page[key] as T[] | undefined) ?? []));
      cursor = typeof page.nextCursor === 'string' ? page.nextCursor : undefined;
    } while (cursor !== undefined);
  } catch (err) {
    if (err instanceof McpError && err.code === METHOD_NOT_FOUND) return [];
    throw err;
  }
  return out;
}

const link = (page: string, arg: string, text: string) => el('a', { href: `#/${page}/${encodeURIComponent(arg)}` }, text);

function table(id: string, caption: string, heads: string[], rows: HTMLElement[]): HTMLElement {
  if (rows.length === 0) return el('p', { class: 'muted', id: `${id}-none` }, `No ${caption.toLowerCase()} for this credential.`);
  return el(
    'div',
    { class: 'table-wrap' },
    el('table', { class: 'items', id }, el('caption', {}, caption), el('thead', {}, el('tr', {}, ...heads.map((h) => el('th', { scope: 'col' }, h)))), el('tbody', {}, ...rows)),
  );
}

export async function renderItems(view: HTMLElement, mcp: McpClient): Promise<void> {
  replaceChildren(view, el('p', { class: 'muted' }, 'Loading resources and prompts…'));
  const [resources, templates, prompts] = await Promise.all([
    every<Resource>(mcp, 'resources/list', 'resources'),
    every<Template>(mcp, 'resources/templates/list', 'resourceTemplates'),
    every<Prompt>(mcp, 'prompts/list', 'prompts'),
  ]);
  replaceChildren(
    view,
    el('h1', {}, 'Resources and prompts'),
    el('p', { class: 'muted' }, 'What the MCP servers offer this credential besides tools, under the names the host gives them.'),
    table('resources', 'Resources', ['URI', 'Name', 'Type', 'Description'], resources.map((r) => el('tr', {}, el('td', { class: 'tool-id' }, link('resource', r.uri, r.uri)), el('td', {}, r.title ?? r.name), el('td', {}, r.mimeType ?? ''), el('td', {}, r.description ?? '')))),
    table('templates', 'Resource templates', ['URI template', 'Name', 'Description'], templates.map((t) => el('tr', {}, el('td', { class: 'tool-id' }, t.uriTemplate), el('td', {}, t.name), el('td', {}, t.description ?? '')))),
    table('prompts', 'Prompts', ['Name', 'Title', 'Arguments', 'Description'], prompts.map((p) => el('tr', {}, el('td', { class: 'tool-id' }, link('prompt', p.name, p.name)), el('td', {}, p.title ?? ''), el('td', {}, (p.arguments ?? []).map((a) => a.name).join(', ')), el('td', {}, p.description ?? '')))),
  );
}

function contentView(c: Content, index: number): HTMLElement {
  const head = el('p', { class: 'muted' }, `${c.mimeType ?? 'no MIME type'} · ${c.uri}`);
  if (typeof c.text === 'string') return el('section', { class: 'card' }, head, el('pre', { class: 'text-content', id: `content-${index}` }, c.text));
  const bytes = Uint8Array.from(atob(c.blob ?? ''), (ch) => ch.charCodeAt(0));
  const url = URL.createObjectURL(new Blob([bytes], { type: c.mimeType ?? 'application/octet-stream' }));
  const name = decodeURIComponent(c.uri.split('/').pop() || 'resource');
  return el('section', { class: 'card' }, head, el('a', { href: url, download: name, id: `download-${index}` }, `Download ${name} (${bytes.length} bytes)`));
}

export async function renderResource(view: HTMLElement, mcp: McpClient, uri: string): Promise<void> {
  replaceChildren(view, el('p', { class: 'muted' }, 'Reading…'));
  let contents: Content[];
  try {
    contents = ((await mcp.request('resources/read', { uri })).contents as Content[] | undefined) ?? [];
  } catch (err) {
    if (!(err instanceof McpError)) throw err;
    replaceChildren(view, el('h1', {}, 'Resource'), el('p', { class: 'tool-id' }, uri), el('p', { class: 'problem', role: 'alert', id: 'read-problem' }, err.message));
    return;
  }
  replaceChildren(view, el('h1', {}, 'Resource'), el('p', { class: 'tool-id' }, uri), ...contents.map(contentView));
}

function messageView(m: { role: string; content: { type: string; text?: string; resource?: Content; uri?: string } }): HTMLElement {
  const c = m.content;
  const body = c.type === 'text' ? el('pre', { class: 'text-content' }, c.text ?? '') : c.type === 'resource' && c.resource ? contentView(c.resource, 0) : el('pre', {}, JSON.stringify(c, null, 2));
  return el('section', { class: 'card message' }, el('p', { class: 'muted' }, m.role), body);
}

export async function renderPrompt(view: HTMLElement, mcp: McpClient, name: string): Promise<void> {
  const prompt = (await every<Prompt>(mcp, 'prompts/list', 'prompts')).find((p) => p.name === name);
  if (prompt === undefined) {
    replaceChildren(view, el('h1', {}, 'Not found'), el('p', { class: 'problem', role: 'alert' }, 'This credential cannot see that prompt (or it does not exist).'));
    return;
  }
  const inputs = (prompt.arguments ?? []).map((a) => ({ arg: a, input: el('input', { id: `arg-${a.name}`, required: a.required === true, autocomplete: 'off' }) }));
  const output = el('div', { id: 'prompt-messages', 'aria-live': 'polite' });
  const form = el(
    'form',
    { class: 'card', id: 'prompt-form' },
    ...inputs.flatMap(({ arg, input }) => [el('label', { for: input.id }, `${arg.name}${arg.required ? ' (required)' : ''}`), input, arg.description ? el('small', { class: 'hint' }, arg.description) : null]),
    el('div', { class: 'actions' }, el('button', { type: 'submit', class: 'primary' }, 'Render')),
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const args = Object.fromEntries(inputs.filter(({ input }) => input.value !== '').map(({ arg, input }) => [arg.name, input.value]));
    replaceChildren(output, el('p', { class: 'muted' }, 'Rendering…'));
    mcp.request('prompts/get', { name, arguments: args }).then(
      (result) => replaceChildren(output, ...((result.messages as Parameters<typeof messageView>[0][] | undefined) ?? []).map(messageView)),
      (err: Error) => replaceChildren(output, el('p', { class: 'problem', role: 'alert' }, err.message)),
    );
  });
  replaceChildren(view, el('h1', {}, prompt.title ?? prompt.name), el('p', { class: 'tool-id' }, prompt.name), prompt.description ? el('p', { class: 'description' }, prompt.description) : null, form, output);
}
