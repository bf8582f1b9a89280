// What tool search indexes of one catalog entry (docs/search.md "Ranking"):
// the toolId's words, title, description, the input's parameter names and
// their descriptions, and the source's own keywords (an OpenAPI operation's
// tags, method and path). Upstream text is untrusted and unbounded: every
// field is cut to a fixed size, and links are dropped (their words are noise).
import type { JsonObject, JsonValue } from '../../contract/descriptor.js';
import type { ToolEntry } from '../snapshot.js';

export const SEARCH_FIELDS = ['name', 'title', 'description', 'params', 'paramText', 'keywords'] as const;
export type SearchField = (typeof SEARCH_FIELDS)[number];

export type SearchDocument = { id: string } & Record<SearchField, string>;

const MAX_FIELD_CHARS = 2000;
/** The opening of a description says what the tool does; the rest is mostly usage notes shared by many tools. */
const MAX_DESCRIPTION_CHARS = 300;
const MAX_PARAM_DESCRIPTION_CHARS = 200;
const MAX_PARAMS = 64;
const MAX_KEYWORDS = 32;
const LINK = /\bhttps?:\/\/\S+|\]\([^)]*\)/g;
/** HTML tags and entities (Stripe's descriptions are HTML): their words are markup, not meaning. */
const MARKUP = /<[^>]{0,200}>|&[a-z]{2,8};|&#\d{1,6};/g;

/** Text without links and markup. */
export function stripMarkup(text: string): string {
  return text.replace(LINK, ' ').replace(MARKUP, ' ');
}

function cut(text: string, max = MAX_FIELD_CHARS): string {
  return text.length <= max ? text : text.slice(0, max);
}

function isObject(v: JsonValue | undefined): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Parameter names and descriptions: the input's properties, and one level into an object `body` (a connector's request body). */
function parameters(schema: JsonObject | undefined): { names: string[]; texts: string[] } {
  const names: string[] = [];
  const texts: string[] = [];
  const visit = (props: JsonValue | undefined, nested: boolean): void => {
    if (!isObject(props)) return;
    for (const name of Object.keys(props)) {
      if (names.length >= MAX_PARAMS) return;
      const p = props[name];
      names.push(name);
      if (isObject(p) && typeof p.description === 'string') texts.push(cut(p.description, MAX_PARAM_DESCRIPTION_CHARS));
      if (!nested && name === 'body' && isObject(p)) visit(p.properties, true);
    }
  };
  visit(schema?.properties, false);
  return { names, texts };
}

const METHODS = new Set(['GET', 'POST', 'PUT', 'PATCH', 'DELETE']);
const PARAM = /^\{.*\}$/;
/** Path segments that name no resource: API versions, dates, file extensions' bare names. */
const VERSION = /^(v\d+[a-z0-9]*|\d[\d-]*)$/i;
/** A path segment naming a method of a family, the way RPC-style HTTP APIs do. */
const RPC_METHOD = /^[a-z][a-zA-Z0-9_]*(\.[a-zA-Z][a-zA-Z0-9_]*)+$/;

/**
 * A title for an operation whose upstream gave none (Stripe's and many of
 * Twilio's have no summary): the action its method and path say and the
 * resource its last path segments name after the owner the path opens
 * with, "create subscriptions" for POST /v1/customers/{customer}/subscriptions,
 * "get Balance" for GET /Accounts/{AccountSid}/Balance.json, "finalize invoices" for
 * POST /v1/invoices/{invoice}/finalize; the method's own name for an
 * RPC-style path, "conversations kick" for POST /conversations.kick.
 * Searched, never published.
 */
export function derivedTitle(keywords: readonly string[]): string | undefined {
  const method = keywords.find((k) => METHODS.has(k));
  const path = keywords.find((k) => k.startsWith('/'));
  if (method === undefined || path === undefined) return undefined;
  const segments = path.split('/').map((s) => s.replace(/\.(json|xml)$/, '')).filter((s) => s !== '' && !VERSION.test(s));
  if (segments.length === 0) return undefined;
  const lastSegment = segments[segments.length - 1];
  // An RPC-style method (`/conversations.kick`, `/admin.apps.approve`): its name says the action; the HTTP method does not.
  if (RPC_METHOD.test(lastSegment)) return lastSegment.split('.').join(' ');
  const item = PARAM.test(lastSegment);
  const resources = segments.filter((s) => !PARAM.test(s));
  const plural = /s$/i.test(lastSegment);
  // POST /invoices/{invoice}/finalize: an action on an item (a sub-collection's name is plural).
  if (method === 'POST' && !item && !plural && segments.length >= 2 && PARAM.test(segments[segments.length - 2])) return `${lastSegment} ${resources.slice(-2, -1).join(' ')}`;
  const verb = method === 'GET' ? (item || !plural ? 'get' : 'list') : method === 'DELETE' ? 'delete' : method === 'POST' && !item ? 'create' : 'update';
  // Twilio's /Accounts/{AccountSid}/Calls, Stripe's /customers/{customer}/subscriptions: the path's first resource, scoped
  // by its id, is the owner, and most of the catalog's paths start with it; the resource acted on comes after.
  const named = resources.length >= 2 && PARAM.test(segments[1]) ? resources.slice(1) : resources;
  return `${verb} ${named.slice(-2).join(' ')}`;
}

export function searchDocument(entry: ToolEntry): SearchDocument {
  const d = entry.tool.descriptor;
  const { names, texts } = parameters(d.inputSchema);
  const keywords = (entry.tool.raw.keywords ?? []).slice(0, MAX_KEYWORDS).map((k) => k.slice(0, 200));
  return {
    id: d.toolId,
    name: d.toolId,
    title: cut(d.title ?? derivedTitle(keywords) ?? ''),
    description: cut(stripMarkup(cut(d.description ?? '')), MAX_DESCRIPTION_CHARS),
    params: cut(names.join(' ')),
    paramText: cut(stripMarkup(cut(texts.join(' '), MAX_FIELD_CHARS * 2))),
    keywords: cut(keywords.join(' ')),
  };
}

/**
 * What must be equal for an indexed entry to stand for a later one: the
 * published bytes (by their strong ETag) and the keywords, which are not
 * published.
 */
export function contentIdentity(entry: ToolEntry): string {
  const keywords = entry.tool.raw.keywords;
  return keywords === undefined ? entry.standard.etag : `${entry.standard.etag}\n${keywords.join('\n')}`;
}
