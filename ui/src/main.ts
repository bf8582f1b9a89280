// The catalog browser's entry (docs/ui.md): sign-in, the navigation between
// pages (a URL fragment per page, so reloads and the back button work and no
// data ever goes into a URL the server sees), and what is kept per sign-in: the
// API client, the MCP session, the event hub, the catalog read at sign-in (read
// once: a reload of the tab reads it again) and who is signed in. On each
// navigation focus moves to the new page's heading, so a keyboard or screen
// reader user starts there, as after a page load.
import { renderActivity, renderSession } from './activity-view.js';
import { isAdmin } from './admin-api.js';
import { renderAdmin, showNavFor } from './admin-view.js';
import { Api, ApiError, forgetCredential, storeCredential, storedCredential } from './api.js';
import { renderCatalog } from './catalog-view.js';
import { renderConnections } from './connections-view.js';
import { el, replaceChildren } from './dom.js';
import { renderItems, renderPrompt, renderResource } from './items-view.js';
import { EventHub } from './event-hub.js';
import { McpClient } from './mcp.js';
import { renderSources } from './sources-view.js';
import { renderTool } from './tool-view.js';
import type { Descriptor } from './types.js';

interface Signed {
  api: Api;
  mcp: McpClient;
  hub: EventHub;
  catalog: Promise<Descriptor[]> | undefined;
  /** False for an admin key: it holds no tenant, so only the admin and health pages are its. */
  tenant: boolean;
}

/** `GET /whoami`: whom the credential stands for. */
interface Who {
  principal: string;
  tenant: string;
}

const view = document.getElementById('view') as HTMLElement;
const nav = document.getElementById('nav') as HTMLElement;
const account = document.getElementById('account') as HTMLElement;
let signed: Signed | undefined;
/** Undoes what the current page subscribed to (the Activity page's live listener). */
let leavePage: () => void = () => undefined;

function describeRefusal(err: unknown): string {
  if (err instanceof ApiError && err.status === 401) return `The host did not accept this credential (${err.message}). Check that you pasted the whole API key or JWT.`;
  if (err instanceof ApiError && err.status === 429) return `Too many requests for this credential: ${err.message}`;
  if (err instanceof ApiError) return `The host answered ${err.status}: ${err.message}`;
  return `The host could not be reached: ${(err as Error).message}`;
}

function signOut(message?: string): void {
  leavePage();
  if (signed !== undefined) {
    signed.hub.stop();
    void signed.mcp.close();
  }
  signed = undefined;
  forgetCredential();
  renderSignIn(message);
}

async function signIn(token: string): Promise<void> {
  const api = new Api(token);
  // From here to the catalog's first paint is what a person waits at sign-in (catalog-view.ts measures it).
  performance.mark('sign-in');
  // The catalog read is the check: the credential is good when /tools answers. It is
  // also the catalog page's list. A host without /whoami still signs in, without the name.
  const catalog = api.json<Descriptor[]>('/tools');
  const admin = isAdmin(api);
  const whoAnswer = api.json<Who>('/whoami').catch(() => undefined);
  // An admin key holds no tenant: /tools refuses it and the admin API does not.
  const tenant = await catalog.then(() => true, async (err: unknown) => { if (err instanceof ApiError && err.status === 401 && (await admin)) return false; throw err; });
  const who = await whoAnswer;
  storeCredential(token);
  const hub = new EventHub(api);
  signed = { api, mcp: new McpClient(api), hub, catalog: tenant ? catalog : undefined, tenant };
  if (tenant) void hub.start();
  showNavFor(nav, tenant, await admin);
  const name = who === undefined ? 'Signed in' : `${who.principal} · tenant ${who.tenant}`;
  account.replaceChildren(
    el('span', { class: 'muted who', id: 'who', title: name }, who === undefined ? name : el('span', {}, el('span', { class: 'sr-only' }, 'Signed in as '), name)),
    el('button', { type: 'button', class: 'small', id: 'sign-out', onclick: () => signOut() }, 'Sign out'),
  );
  nav.hidden = false;
  await route();
}

function renderSignIn(message?: string): void {
  nav.hidden = true;
  account.replaceChildren();
  const input = el('input', { id: 'credential', type: 'password', autocomplete: 'off', spellcheck: 'false', required: true, 'aria-describedby': 'credential-help' });
  const problem = el('p', { class: 'problem', id: 'sign-in-problem', role: 'alert' }, message ?? '');
  const button = el('button', { type: 'submit', class: 'primary' }, 'Sign in');
  const form = el(
    'form',
    { class: 'sign-in card' },
    el('h1', {}, 'Sign in'),
    el('p', {}, 'Paste an API key or a JWT. The page sees exactly what an agent with this credential sees.'),
    el('label', { for: 'credential' }, 'API key or JWT'),
    input,
    el('small', { id: 'credential-help', class: 'hint' }, 'Kept in this tab only (sessionStorage) and sent as a bearer header; closing the tab forgets it.'),
    el('div', { class: 'actions' }, button),
    problem,
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const token = input.value.trim();
    if (token === '') {
      problem.textContent = 'Paste a credential first.';
      return;
    }
    button.disabled = true;
    problem.textContent = '';
    signIn(token).catch((err) => {
      button.disabled = false;
      problem.textContent = describeRefusal(err);
    });
  });
  replaceChildren(view, form);
  input.focus();
}

function catalogOf(s: Signed): () => Promise<Descriptor[]> {
  return () => (s.catalog ??= s.api.json<Descriptor[]>('/tools'));
}

async function route(): Promise<void> {
  const s = signed;
  if (s === undefined) return;
  leavePage();
  leavePage = () => undefined;
  const [, page = s.tenant ? 'catalog' : 'admin', ...rest] = location.hash.split('/');
  const arg = decodeURIComponent(rest.join('/'));
  for (const link of nav.querySelectorAll('a')) {
    if (link.getAttribute('href') === `#/${page}`) link.setAttribute('aria-current', 'page');
    else link.removeAttribute('aria-current');
  }
  try {
    if (page === 'admin' || (!s.tenant && page !== 'sources')) {
      // Sources change here: the catalog is read again when next shown.
      if (s.tenant) s.catalog = undefined;
      await renderAdmin(view, s.api);
    } else if (page === 'tool' && arg !== '') {
      await renderTool(view, s.api, s.mcp, s.hub, catalogOf(s), arg);
    } else if (page === 'activity') {
      leavePage = renderActivity(view, s.hub);
    } else if (page === 'session' && arg !== '') {
      await renderSession(view, s.api, arg);
    } else if (page === 'resources') {
      await renderItems(view, s.mcp);
    } else if (page === 'resource' && arg !== '') {
      await renderResource(view, s.mcp, arg);
    } else if (page === 'prompt' && arg !== '') {
      await renderPrompt(view, s.mcp, arg);
    } else if (page === 'connections') {
      await renderConnections(view, s.api);
    } else if (page === 'sources') {
      await renderSources(view, s.api);
    } else {
      await renderCatalog(view, catalogOf(s));
    }
    document.title = `${view.querySelector('h1')?.textContent ?? 'toolhost'} · toolhost`;
    focusHeading();
  } catch (err) {
    if (err instanceof ApiError && err.status === 401) return signOut('The host no longer accepts this credential. Sign in again.');
    const notFound = err instanceof ApiError && err.status === 404;
    replaceChildren(view, el('h1', {}, notFound ? 'Not found' : 'Something went wrong'), el('p', { class: 'problem', role: 'alert' }, notFound ? 'This credential cannot see that (or it does not exist).' : describeRefusal(err)));
    focusHeading();
  }
}

/** Focus on the page's heading (focusable by script only), as a new document would start there. */
function focusHeading(): void {
  const heading = view.querySelector('h1');
  if (heading === null) return;
  heading.setAttribute('tabindex', '-1');
  heading.focus();
}

window.addEventListener('hashchange', () => void route());

const remembered = storedCredential();
if (remembered === null) renderSignIn();
else signIn(remembered).catch((err) => signOut(describeRefusal(err)));
