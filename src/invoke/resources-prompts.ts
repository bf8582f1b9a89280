// One `resources/read`, `prompts/get` or `completion/complete` on the front
// door (docs/mcp.md "Resources and prompts"): the caller's items view decides
// (an unknown and an invisible item get the same refusal), the owning server
// answers, the contents leave under host names, and each read and get is an
// event in the tenant's log (who, which item, size, status; never contents),
// counted and traced. The contents were scrubbed by the server's adapter.
import type { CompleteResult, GetPromptResult, ReadResourceResult } from '@modelcontextprotocol/sdk/types.js';
import type { Principal } from '../auth/principal.js';
import type { ItemsStore } from '../catalog/resources-prompts.js';
import { hostUri, META_SERVER, META_UPSTREAM_URI, promptOf, upstreamOf } from '../catalog/resource-uri.js';
import type { ItemEventType, ReturnStatus } from '../events/event-types.js';
import { timeOrderedId } from '../events/time-ordered-id.js';
import type { EventStore } from '../events/store.js';
import type { HostMetrics } from '../observability/metrics.js';
import { SpanKind, type Tracing } from '../observability/tracing.js';
import { contentBytes, McpItemError, type McpItems } from '../sources/mcp/index.js';

/** Reads of more bytes than this are refused unless `mcp.maxResourceBytes` says otherwise. */
export const DEFAULT_MAX_RESOURCE_BYTES = 4 * 1024 * 1024;

export interface ItemDeps {
  store: ItemsStore;
  /** Each MCP server's items, by server id. */
  servers: ReadonlyMap<string, McpItems>;
  maxResourceBytes: number;
  events?: EventStore;
  metrics?: Pick<HostMetrics, 'itemRequests' | 'itemRequestSeconds'>;
  tracing?: Tracing;
}

export type ItemRefusal = 'not_found' | 'too_large' | 'upstream';

/** A request the front door answers with a JSON-RPC error; the message is credential-free and never names an invisible item. */
export class ItemRefused extends Error {
  constructor(
    readonly kind: ItemRefusal,
    message: string,
  ) {
    super(message);
  }
}

export const RESOURCE_NOT_FOUND = 'Resource not found';
export const PROMPT_NOT_FOUND = 'Prompt not found';
const UNKNOWN_ITEM = '(unknown)';

const STATUS: Record<string, ReturnStatus> = { too_large: 'refused', timeout: 'timeout', cancelled: 'cancelled', unavailable: 'error', upstream_error: 'error' };

interface Observed {
  kind: 'resource' | 'prompt' | 'completion';
  itemId: string;
  source: string;
  status: ReturnStatus;
  bytes: number;
}

/** Runs one request counted, timed, traced and (for reads and gets) recorded; the record is written before the answer leaves. */
async function observe<T>(deps: ItemDeps, principal: Principal, kind: Observed['kind'], run: (o: Observed) => Promise<T>): Promise<T> {
  const o: Observed = { kind, itemId: UNKNOWN_ITEM, source: 'unknown', status: 'ok', bytes: 0 };
  const started = performance.now();
  const body = async (): Promise<T> => {
    let answer: T | undefined;
    let failure: unknown;
    try {
      answer = await run(o);
    } catch (err) {
      failure = err;
      if (o.status === 'ok') o.status = 'error';
    }
    const seconds = (performance.now() - started) / 1000;
    const labels = { kind, source: o.source, outcome: o.status };
    deps.metrics?.itemRequests.inc(labels);
    deps.metrics?.itemRequestSeconds.observe(labels, seconds);
    if (kind !== 'completion' && deps.events !== undefined) await record(deps.events, principal, kind === 'resource' ? 'mcp.resource.read' : 'mcp.prompt.get', o, seconds);
    if (failure !== undefined) throw failure;
    return answer as T;
  };
  if (deps.tracing === undefined) return body();
  return deps.tracing.inSpan(kind === 'resource' ? 'resources/read' : kind === 'prompt' ? 'prompts/get' : 'completion/complete', SpanKind.INTERNAL, { 'toolhost.tenant': principal.tenant }, async (span) => {
    try {
      return await body();
    } finally {
      span?.setAttributes({ 'toolhost.item_id': o.itemId, 'toolhost.source': o.source, 'toolhost.outcome': o.status, 'toolhost.bytes': o.bytes });
    }
  });
}

function record(events: EventStore, principal: Principal, type: ItemEventType, o: Observed, seconds: number): Promise<unknown> {
  const sessionId = timeOrderedId();
  const payload = { sessionId, itemId: o.itemId, status: o.status, bytes: o.bytes, durationMs: Math.round(seconds * 1000) };
  return events.append([{ type, tenant: principal.tenant, principal: principal.id, sessionId, payload }]);
}

/** What a server's failure becomes for the caller and the record. */
function failed(o: Observed, err: unknown): never {
  if (err instanceof McpItemError) {
    o.status = STATUS[err.code] ?? 'error';
    throw new ItemRefused(err.code === 'too_large' ? 'too_large' : 'upstream', err.message);
  }
  throw err;
}

function serverOf(deps: ItemDeps, serverId: string): McpItems {
  const server = deps.servers.get(serverId);
  // The snapshot only holds items of configured servers.
  if (server === undefined) throw new ItemRefused('upstream', `mcp server ${serverId} is not configured`);
  return server;
}

export function readResource(deps: ItemDeps, principal: Principal, requested: string, signal?: AbortSignal): Promise<ReadResourceResult> {
  return observe(deps, principal, 'resource', async (o) => {
    const target = deps.store.current().resolveUri(principal, requested);
    if (target === undefined) {
      o.status = 'refused';
      throw new ItemRefused('not_found', RESOURCE_NOT_FOUND);
    }
    Object.assign(o, { itemId: target.ruleId, source: `mcp:${target.serverId}` });
    const result = await serverOf(deps, target.serverId)
      .read(target.uri, { signal, maxBytes: deps.maxResourceBytes })
      .catch((err: unknown) => failed(o, err));
    o.bytes = contentBytes(result);
    // Only what MCP defines of a content is relayed (no upstream _meta or extra fields), under its host URI.
    const contents = result.contents.map((c) => {
      const body = typeof (c as { blob?: unknown }).blob === 'string' ? { blob: (c as { blob: string }).blob } : { text: String((c as { text?: unknown }).text ?? '') };
      return { uri: hostUri(target.serverId, c.uri), ...(c.mimeType !== undefined ? { mimeType: c.mimeType } : {}), ...body, _meta: { [META_SERVER]: target.serverId, [META_UPSTREAM_URI]: c.uri } };
    });
    return { contents };
  });
}

export function getPrompt(deps: ItemDeps, principal: Principal, requested: string, args: Record<string, string>, signal?: AbortSignal): Promise<GetPromptResult> {
  return observe(deps, principal, 'prompt', async (o) => {
    const entry = deps.store.current().viewFor(principal).byName.get(requested);
    const upstream = entry === undefined ? undefined : promptOf(entry.name);
    if (entry === undefined || upstream === undefined) {
      o.status = 'refused';
      throw new ItemRefused('not_found', PROMPT_NOT_FOUND);
    }
    Object.assign(o, { itemId: entry.ruleId, source: `mcp:${entry.serverId}` });
    const result = await serverOf(deps, entry.serverId)
      .getPrompt(upstream.name, args, { signal })
      .catch((err: unknown) => failed(o, err));
    const messages = result.messages.map((m) => ({ role: m.role, content: hostContent(entry.serverId, m.content) }));
    const answer = { ...(typeof result.description === 'string' ? { description: result.description } : {}), messages };
    o.bytes = Buffer.byteLength(JSON.stringify(answer), 'utf8');
    // A prompt is bounded like a read: the same cap, on its serialized messages.
    if (o.bytes > deps.maxResourceBytes) {
      o.status = 'refused';
      throw new ItemRefused('too_large', `the prompt's messages are ${o.bytes} bytes, over the host's limit of ${deps.maxResourceBytes} bytes per answer`);
    }
    return answer;
  });
}

/** A prompt message's embedded resource or resource link, under its host URI. */
function hostContent<C extends { type: string }>(serverId: string, content: C): C {
  const c = content as unknown as { type: string; uri?: string; resource?: { uri: string } };
  if (c.type === 'resource_link' && typeof c.uri === 'string') return { ...content, uri: hostUri(serverId, c.uri) };
  if (c.type === 'resource' && c.resource !== undefined) return { ...content, resource: { ...c.resource, uri: hostUri(serverId, c.resource.uri) } };
  return content;
}

export type CompletionRef = { type: 'ref/prompt'; name: string } | { type: 'ref/resource'; uri: string };

/** Completes a visible prompt's argument or a visible template's variable; anything else completes to nothing. */
export function complete(deps: ItemDeps, principal: Principal, ref: CompletionRef, argument: { name: string; value: string }, context: { arguments?: Record<string, string> } | undefined, signal?: AbortSignal): Promise<CompleteResult> {
  return observe(deps, principal, 'completion', async (o) => {
    const view = deps.store.current().viewFor(principal);
    let serverId: string | undefined;
    let upstreamRef: CompletionRef | undefined;
    if (ref.type === 'ref/prompt') {
      const entry = view.byName.get(ref.name);
      const parsed = entry && promptOf(entry.name);
      if (entry && parsed) [serverId, upstreamRef] = [entry.serverId, { type: 'ref/prompt', name: parsed.name }];
    } else {
      const entry = view.byTemplate.get(ref.uri);
      const parsed = entry && upstreamOf(entry.wire.uriTemplate);
      if (entry && parsed) [serverId, upstreamRef] = [entry.serverId, { type: 'ref/resource', uri: parsed.uri }];
    }
    if (serverId === undefined || upstreamRef === undefined || !(deps.servers.get(serverId)?.lists().completions ?? false)) {
      o.status = 'refused';
      return { completion: { values: [] } };
    }
    o.source = `mcp:${serverId}`;
    return serverOf(deps, serverId)
      .complete({ ref: upstreamRef, argument, ...(context ? { context } : {}) }, { signal })
      .catch((err: unknown) => failed(o, err));
  });
}

/** The upstream a subscription to `requested` reaches, when the caller sees it; undefined otherwise. */
export function subscriptionTarget(deps: ItemDeps, principal: Principal, requested: string): { serverId: string; uri: string } | undefined {
  const target = deps.store.current().resolveUri(principal, requested);
  return target === undefined ? undefined : { serverId: target.serverId, uri: target.uri };
}

export function serverTakesSubscriptions(deps: ItemDeps, serverId: string): boolean {
  return deps.servers.get(serverId)?.lists().subscribe ?? false;
}

export function subscribeUpstream(deps: ItemDeps, serverId: string, uri: string): Promise<void> {
  return serverOf(deps, serverId)
    .subscribe(uri)
    .catch((err: unknown) => {
      throw err instanceof McpItemError ? new ItemRefused('upstream', err.message) : err;
    });
}

export function unsubscribeUpstream(deps: ItemDeps, serverId: string, uri: string): Promise<void> {
  return serverOf(deps, serverId).unsubscribe(uri);
}

/** Calls `listener` with each server's update of a resource the host subscribed to. */
export function onUpstreamUpdate(deps: ItemDeps, listener: (serverId: string, uri: string) => void): void {
  for (const [serverId, server] of deps.servers) server.onUpdated((uri) => listener(serverId, uri));
}
