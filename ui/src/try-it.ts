// "Try it" on the tool page (docs/ui.md "Try it"): a form made from the input
// schema calls the tool through /mcp with the signed-in credential, exactly as
// an agent would. An approval tool's elicitation becomes a confirm dialog that
// shows the arguments; the result and the call's tool session appear below.
import type { Api } from './api.js';
import { formatDuration, pathSegment } from './badges.js';
import { el, jsonText, replaceChildren } from './dom.js';
import type { EventHub } from './event-hub.js';
import { jsonView } from './json-view.js';
import { McpError, type CallResult, type ElicitAnswer, type ElicitRequest, type McpClient } from './mcp.js';
import { FormError, objectFields } from './schema-form.js';
import type { Descriptor, ToolEvent } from './types.js';

/** Asks the person; resolves with what the MCP client answers the host. */
function confirmDialog(request: ElicitRequest, args: Record<string, unknown>): Promise<ElicitAnswer> {
  return new Promise((resolve) => {
    const approve = el('button', { type: 'button', class: 'primary', id: 'approve-call' }, 'Approve');
    const decline = el('button', { type: 'button', id: 'decline-call' }, 'Decline');
    const dialog = el(
      'dialog',
      { class: 'confirm', 'aria-labelledby': 'confirm-title' },
      el('h2', { id: 'confirm-title' }, 'Approve this call?'),
      el('p', { class: 'elicit-message' }, request.message),
      el('p', { class: 'muted' }, 'Arguments'),
      jsonView(args, undefined, 'Arguments of the call'),
      el('div', { class: 'actions' }, decline, approve),
    );
    let answered = false;
    const finish = (answer: ElicitAnswer): void => {
      if (answered) return;
      answered = true;
      dialog.close();
      dialog.remove();
      resolve(answer);
    };
    approve.addEventListener('click', () => finish({ action: 'accept', content: { approve: true } }));
    decline.addEventListener('click', () => finish({ action: 'decline' }));
    // Escape is a cancel, as MCP clients report it.
    dialog.addEventListener('cancel', (e) => {
      e.preventDefault();
      finish({ action: 'cancel' });
    });
    document.body.append(dialog);
    dialog.showModal();
    approve.focus();
  });
}

function resultView(result: CallResult): HTMLElement {
  const texts = (result.content ?? []).filter((c) => c.type === 'text' && typeof c.text === 'string').map((c) => c.text as string);
  return el(
    'div',
    { class: `result ${result.isError === true ? 'is-error' : 'is-ok'}`, id: 'call-result' },
    el('p', { class: 'result-status' }, result.isError === true ? 'The tool answered with an error' : 'The tool answered'),
    result.structuredContent !== undefined ? el('div', {}, el('h3', { class: 'sub' }, 'Structured content'), jsonView(result.structuredContent, undefined, 'Structured content')) : null,
    texts.length > 0 ? el('div', {}, el('h3', { class: 'sub' }, 'Text content'), el('pre', { class: 'text-content', tabindex: 0 }, texts.join('\n'))) : null,
  );
}

function eventsTable(events: ToolEvent[]): HTMLElement {
  return el(
    'table',
    { class: 'events', id: 'call-events' },
    el('caption', {}, 'Events of this call’s tool session'),
    el('thead', {}, el('tr', {}, ...['#', 'Event', 'Status', 'Duration', 'Outcome'].map((h) => el('th', { scope: 'col' }, h)))),
    el(
      'tbody',
      {},
      ...events.map((e) => el('tr', {}, el('td', {}, e.sequence), el('td', {}, e.type), el('td', {}, e.payload.status ?? ''), el('td', {}, formatDuration(e.payload.durationMs)), el('td', {}, e.payload.outcome ?? ''))),
    ),
  );
}

/**
 * The events of the call just made: the host commits a call's events before
 * it answers, so they are in the log now. The result does not name its tool
 * session; the newest session of this tool opened after `cursor` is taken
 * (docs/ui.md says when that could be another caller's).
 */
async function sessionEvents(api: Api, toolId: string, cursor: number): Promise<ToolEvent[] | undefined> {
  let sessionId: string | undefined;
  for (let after = cursor, page = 0; page < 10; page++) {
    const body = await api.json<{ events: ToolEvent[]; next: number }>(`/events?after=${after}&limit=1000`);
    for (const e of body.events) if (e.type === 'tool.session.opened' && e.payload.toolId === toolId) sessionId = e.payload.sessionId;
    if (body.events.length < 1000) break;
    after = body.next;
  }
  if (sessionId === undefined) return undefined;
  return (await api.json<{ events: ToolEvent[] }>(`/sessions/${pathSegment(sessionId)}/events`)).events;
}

export function tryIt(tool: Descriptor, api: Api, mcp: McpClient, hub: EventHub): HTMLElement {
  const schema = tool.inputSchema ?? { type: 'object', properties: {} };
  const fields = objectFields(schema);
  const problem = el('p', { class: 'problem', role: 'alert' });
  const output = el('div', { class: 'try-output', 'aria-live': 'polite' });
  const submit = el('button', { type: 'submit', class: 'primary', id: 'call-tool' }, 'Call tool');
  const form = el(
    'form',
    { class: 'try-form', novalidate: true },
    fields.elements.length === 0 ? el('p', { class: 'muted' }, 'This tool takes no arguments.') : null,
    ...fields.elements,
    el('div', { class: 'actions' }, submit, tool.approval === 'always' ? el('span', { class: 'muted' }, 'This tool asks for approval before it runs.') : null),
    problem,
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    problem.textContent = '';
    let args: Record<string, unknown>;
    try {
      args = fields.value();
    } catch (err) {
      problem.textContent = err instanceof FormError ? err.message : String(err);
      return;
    }
    const cursor = hub.lastSequence;
    submit.disabled = true;
    replaceChildren(output, el('p', { class: 'muted' }, 'Calling…'));
    void (async () => {
      const parts: HTMLElement[] = [];
      try {
        const result = await mcp.callTool(tool.toolId, args, (request) => confirmDialog(request, args));
        parts.push(resultView(result));
      } catch (err) {
        const text = err instanceof McpError ? `The host refused the call: ${err.message}` : `The call failed: ${(err as Error).message}`;
        parts.push(el('div', { class: 'result is-error', id: 'call-result' }, el('p', { class: 'result-status' }, text)));
      } finally {
        submit.disabled = false;
      }
      replaceChildren(output, ...parts, el('h3', { class: 'sub' }, 'Arguments sent'), el('pre', { class: 'json', tabindex: 0 }, jsonText(args)));
      if (hub.state === 'unavailable') {
        output.append(el('p', { class: 'muted' }, 'This host keeps no event log, so the call has no recorded session.'));
        return;
      }
      try {
        const events = await sessionEvents(api, tool.toolId, cursor);
        output.append(events === undefined ? el('p', { class: 'muted' }, 'No session of this call was found in the event log.') : eventsTable(events));
      } catch (err) {
        output.append(el('p', { class: 'problem' }, `The session's events could not be read: ${(err as Error).message}`));
      }
    })();
  });
  return el('section', { class: 'card', 'aria-labelledby': 'try-title' }, el('h2', { id: 'try-title' }, 'Try it'), form, output);
}
