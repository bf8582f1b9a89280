// The Connections page (docs/ui.md "Connections"): the signed-in principal's
// own upstream credentials, from `GET /connections`. A source that takes a
// secret of the principal's own gets a password field (`PUT`, write-only: the
// page never reads a secret back); an OAuth source gets the link where the
// person connects (the host's authorize route, opened in a new tab); both
// can be disconnected (`DELETE`). Sources whose credential the host makes by
// itself (identity headers, token exchange) are listed with nothing to do.
import { ApiError, type Api } from './api.js';
import { formatTime } from './badges.js';
import { el, replaceChildren } from './dom.js';

interface Connection {
  source: string;
  label: string;
  mode: 'per-principal' | 'oauth' | 'identity-headers' | 'token-exchange' | string;
  state: 'connected' | 'not_connected' | 'refused' | 'disconnected' | string;
  updatedAt?: string;
  scopes?: string[];
  expiresAt?: string;
  connectUrl?: string;
}

const STATE_TEXT: Record<string, string> = { connected: 'connected', not_connected: 'not connected', refused: 'refused by the upstream', disconnected: 'disconnected' };
const AUTOMATIC: Record<string, string> = {
  'identity-headers': 'Nothing to connect: the host tells this upstream who you are.',
  'token-exchange': 'Nothing to connect: the host sends this upstream your sign-in token, or one exchanged for it.',
};

export async function renderConnections(view: HTMLElement, api: Api): Promise<void> {
  replaceChildren(view, el('p', { class: 'muted' }, 'Loading connections…'));
  let connections: Connection[];
  try {
    connections = (await api.json<{ connections: Connection[] }>('/connections')).connections;
  } catch (err) {
    if (!(err instanceof ApiError && err.status === 404)) throw err;
    connections = [];
  }
  const status = el('p', { class: 'muted', id: 'connections-status', role: 'status' });
  const reload = (message: string) =>
    renderConnections(view, api).then(() => {
      const s = view.querySelector('#connections-status');
      if (s) s.textContent = message;
    });
  replaceChildren(
    view,
    el('h1', {}, 'Connections'),
    el('p', { class: 'muted' }, 'Your own credentials for the upstreams that act on your behalf. Only you see and change them; a stored secret is never shown again.'),
    status,
    connections.length === 0
      ? el('p', { id: 'no-connections' }, 'None of the sources you can call needs a connection of yours.')
      : el('div', { class: 'connections', id: 'connections' }, ...connections.map((c) => card(c, api, reload))),
  );
}

function card(c: Connection, api: Api, reload: (message: string) => Promise<void>): HTMLElement {
  const headingId = `conn-${c.source.replace(/[^A-Za-z0-9_-]/g, '_')}`;
  const fact = (term: string, value: string, cls?: string) => el('div', { class: 'fact' }, el('dt', {}, term), el('dd', { class: cls }, value));
  const facts = el(
    'dl',
    { class: 'facts' },
    fact('Source', c.source, 'tool-id'),
    fact('Kind', c.mode),
    c.scopes && fact('Scopes', c.scopes.length > 0 ? c.scopes.join(' ') : 'none', 'scopes'),
    c.expiresAt && fact('Access expires', `${formatTime(c.expiresAt)} (renewed before use)`, 'expires'),
    c.updatedAt && fact('Updated', formatTime(c.updatedAt)),
  );
  const problem = el('p', { class: 'problem', role: 'alert' });
  const act = (what: Promise<unknown>, done: string) =>
    what.then(
      () => reload(done),
      (err: unknown) => void (problem.textContent = err instanceof ApiError ? `The host answered ${err.status}: ${err.message}` : `The host could not be reached: ${(err as Error).message}`),
    );
  const disconnect =
    c.state !== 'not_connected' && !(c.mode in AUTOMATIC)
      ? el('button', { type: 'button', class: 'small', onclick: () => void act(api.fetch(`/connections/${encodeURIComponent(c.source)}`, { method: 'DELETE' }), `${c.label} disconnected.`) }, `Disconnect ${c.label}`)
      : undefined;
  return el(
    'section',
    { class: 'card connection', 'data-source': c.source, 'aria-labelledby': headingId },
    el('div', { class: 'title-row' }, el('h2', { id: headingId }, c.label), el('span', { class: `status status-${c.state}` }, STATE_TEXT[c.state] ?? c.state)),
    facts,
    c.mode === 'per-principal' ? secretForm(c, api, act) : undefined,
    c.mode === 'oauth' && c.connectUrl
      ? el('p', {}, el('a', { href: c.connectUrl, target: '_blank', rel: 'noopener noreferrer', class: 'connect' }, c.state === 'connected' ? `Reconnect ${c.label}` : `Connect ${c.label}`), el('span', { class: 'hint' }, 'Opens the sign-in of the upstream in a new tab; come back and reload this page when done.'))
      : undefined,
    AUTOMATIC[c.mode] ? el('p', { class: 'muted' }, AUTOMATIC[c.mode]) : undefined,
    disconnect ? el('div', { class: 'actions' }, disconnect) : undefined,
    problem,
  );
}

function secretForm(c: Connection, api: Api, act: (what: Promise<unknown>, done: string) => Promise<void>): HTMLFormElement {
  const id = `secret-${c.source.replace(/[^A-Za-z0-9_-]/g, '_')}`;
  const input = el('input', { id, type: 'password', autocomplete: 'off', spellcheck: 'false', required: true, 'aria-describedby': `${id}-help` });
  const button = el('button', { type: 'submit', class: 'primary' }, c.state === 'connected' ? 'Replace' : 'Connect');
  const form = el(
    'form',
    { class: 'secret-form' },
    el('label', { for: id }, `Your API key or token for ${c.label}`),
    input,
    el('small', { id: `${id}-help`, class: 'hint' }, 'Sent once to the host, which keeps it encrypted and sends it only on your calls to this source.'),
    el('div', { class: 'actions' }, button),
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const secret = input.value;
    if (secret.trim() === '') return;
    button.disabled = true;
    input.value = '';
    void act(api.fetch(`/connections/${encodeURIComponent(c.source)}`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ secret }) }), `${c.label} connected.`).finally(() => (button.disabled = false));
  });
  return form;
}
