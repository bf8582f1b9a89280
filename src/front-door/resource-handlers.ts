// The front door's resources, templates, prompts and completions
// (docs/mcp.md "Resources and prompts"): the SDK handlers of one session's
// Server, the capabilities a caller is offered (only those it sees something
// of), subscriptions (an upstream subscription held while any session wants
// it, its updates sent to exactly the sessions that subscribed and still see
// the resource), and list_changed when what a session sees changes.
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CompleteRequestSchema,
  ErrorCode,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ReadResourceRequestSchema,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
  type ServerCapabilities,
} from '@modelcontextprotocol/sdk/types.js';
import type { Principal } from '../auth/principal.js';
import type { ItemsSnapshot, ItemsView } from '../catalog/resources-prompts.js';
import {
  complete,
  getPrompt,
  type ItemDeps,
  ItemRefused,
  onUpstreamUpdate,
  readResource,
  RESOURCE_NOT_FOUND,
  serverTakesSubscriptions,
  subscribeUpstream,
  subscriptionTarget,
  unsubscribeUpstream,
} from '../invoke/resources-prompts.js';

/** JSON-RPC code of a read refused for its size (the implementation's range, -32000..-32099). */
export const RESOURCE_TOO_LARGE = -32004;
/** The code MCP gives an unknown resource. */
export const RESOURCE_NOT_FOUND_CODE = -32002;

type Caller = (extra: unknown) => { principal: Principal; signal: AbortSignal };

/** A JSON-RPC error for the SDK to answer with (its message is taken as is). */
function rpcFailure(code: number, message: string): Error {
  return Object.assign(new Error(message), { code });
}

function refusal(err: unknown, notFoundCode: number): unknown {
  if (!(err instanceof ItemRefused)) return err;
  if (err.kind === 'not_found') return rpcFailure(notFoundCode, err.message);
  if (err.kind === 'too_large') return rpcFailure(RESOURCE_TOO_LARGE, err.message);
  return rpcFailure(ErrorCode.InternalError, err.message);
}

/** One page of entries sorted by `key`; the cursor is the last key of the previous page. */
function page<T, W>(entries: readonly T[], key: (e: T) => string, wire: (e: T) => W, cursor: string | undefined, size: number): { items: W[]; nextCursor?: string } {
  const after = cursor === undefined ? undefined : Buffer.from(cursor, 'base64url').toString('utf8');
  let lo = 0;
  if (after !== undefined) {
    let hi = entries.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (key(entries[mid]) <= after) lo = mid + 1;
      else hi = mid;
    }
  }
  const slice = entries.slice(lo, lo + size);
  const more = lo + size < entries.length;
  return more ? { items: slice.map(wire), nextCursor: Buffer.from(key(slice[slice.length - 1]), 'utf8').toString('base64url') } : { items: slice.map(wire) };
}

interface Subscriber {
  host: string;
  principal: () => Principal | undefined;
}

export class ItemHandlers {
  /** `<server>\n<upstream uri>` -> the sessions subscribed to it. */
  private readonly subscribers = new Map<string, Map<Server, Subscriber>>();
  private readonly bySession = new Map<Server, Set<string>>();
  private readonly offered = new WeakMap<Server, ServerCapabilities>();

  constructor(
    private readonly deps: ItemDeps,
    private readonly pageSize: number,
  ) {
    onUpstreamUpdate(deps, (serverId, uri) => this.updated(serverId, uri));
  }

  /** What a session of this principal is offered: only the kinds it sees some of. */
  capabilities(principal: Principal): ServerCapabilities {
    const view = this.deps.store.current().viewFor(principal);
    const caps: ServerCapabilities = {};
    const servers = [...view.resources, ...view.templates].map((e) => e.serverId);
    if (servers.length > 0) caps.resources = { listChanged: true, subscribe: servers.some((s) => serverTakesSubscriptions(this.deps, s)) };
    if (view.prompts.length > 0) caps.prompts = { listChanged: true };
    const completing = [...view.templates, ...view.prompts].some((e) => this.deps.servers.get(e.serverId)?.lists().completions === true);
    if (completing) caps.completions = {};
    return caps;
  }

  /** Registers the handlers its capabilities allow on a session's Server. */
  register(server: Server, caps: ServerCapabilities, callerOf: Caller, sessionPrincipal: () => Principal | undefined): void {
    this.offered.set(server, caps);
    const deps = this.deps;
    const view = (extra: unknown): ItemsView => deps.store.current().viewFor(callerOf(extra).principal);
    const size = this.pageSize;
    if (caps.resources !== undefined) {
      server.setRequestHandler(ListResourcesRequestSchema, async (req, extra) => {
        const { items, nextCursor } = page(view(extra).resources, (e) => e.uri, (e) => e.wire, req.params?.cursor, size);
        return nextCursor === undefined ? { resources: items } : { resources: items, nextCursor };
      });
      server.setRequestHandler(ListResourceTemplatesRequestSchema, async (req, extra) => {
        const { items, nextCursor } = page(view(extra).templates, (e) => e.wire.uriTemplate, (e) => e.wire, req.params?.cursor, size);
        return nextCursor === undefined ? { resourceTemplates: items } : { resourceTemplates: items, nextCursor };
      });
      server.setRequestHandler(ReadResourceRequestSchema, async (req, extra) => {
        const { principal, signal } = callerOf(extra);
        return readResource(deps, principal, req.params.uri, signal).catch((err: unknown) => {
          throw refusal(err, RESOURCE_NOT_FOUND_CODE);
        });
      });
      if (caps.resources.subscribe === true) {
        server.setRequestHandler(SubscribeRequestSchema, async (req, extra) => this.subscribe(server, callerOf(extra).principal, req.params.uri, sessionPrincipal));
        server.setRequestHandler(UnsubscribeRequestSchema, async (req) => this.unsubscribe(server, req.params.uri));
      }
    }
    if (caps.prompts !== undefined) {
      server.setRequestHandler(ListPromptsRequestSchema, async (req, extra) => {
        const { items, nextCursor } = page(view(extra).prompts, (e) => e.name, (e) => e.wire, req.params?.cursor, size);
        return nextCursor === undefined ? { prompts: items } : { prompts: items, nextCursor };
      });
      server.setRequestHandler(GetPromptRequestSchema, async (req, extra) => {
        const { principal, signal } = callerOf(extra);
        return getPrompt(deps, principal, req.params.name, req.params.arguments ?? {}, signal).catch((err: unknown) => {
          throw refusal(err, ErrorCode.InvalidParams);
        });
      });
    }
    if (caps.completions !== undefined) {
      server.setRequestHandler(CompleteRequestSchema, async (req, extra) => {
        const { principal, signal } = callerOf(extra);
        const { ref, argument, context } = req.params;
        return complete(deps, principal, ref, argument, context, signal).catch((err: unknown) => {
          throw refusal(err, ErrorCode.InvalidParams);
        });
      });
    }
  }

  private async subscribe(server: Server, principal: Principal, host: string, sessionPrincipal: () => Principal | undefined): Promise<Record<string, never>> {
    const target = subscriptionTarget(this.deps, principal, host);
    if (target === undefined) throw rpcFailure(RESOURCE_NOT_FOUND_CODE, RESOURCE_NOT_FOUND);
    if (!serverTakesSubscriptions(this.deps, target.serverId)) throw rpcFailure(ErrorCode.InvalidParams, `mcp server ${target.serverId} takes no subscriptions`);
    const key = `${target.serverId}\n${target.uri}`;
    let subs = this.subscribers.get(key);
    const first = subs === undefined;
    if (subs === undefined) this.subscribers.set(key, (subs = new Map()));
    subs.set(server, { host, principal: sessionPrincipal });
    let own = this.bySession.get(server);
    if (own === undefined) this.bySession.set(server, (own = new Set()));
    own.add(key);
    if (first) {
      await subscribeUpstream(this.deps, target.serverId, target.uri).catch((err: unknown) => {
        this.drop(server, key);
        throw refusal(err, RESOURCE_NOT_FOUND_CODE);
      });
    }
    return {};
  }

  private async unsubscribe(server: Server, host: string): Promise<Record<string, never>> {
    // Only the session's own subscriptions are looked at: nothing here tells whether another item exists.
    for (const key of [...(this.bySession.get(server) ?? [])]) {
      if (this.subscribers.get(key)?.get(server)?.host === host) this.drop(server, key);
    }
    return {};
  }

  private drop(server: Server, key: string): void {
    const subs = this.subscribers.get(key);
    subs?.delete(server);
    this.bySession.get(server)?.delete(key);
    if (subs !== undefined && subs.size === 0) {
      this.subscribers.delete(key);
      const [serverId, uri] = [key.slice(0, key.indexOf('\n')), key.slice(key.indexOf('\n') + 1)];
      void unsubscribeUpstream(this.deps, serverId, uri).catch(() => undefined);
    }
  }

  /** A session ended: its subscriptions go, and an upstream one nobody holds any more with them. */
  forget(server: Server): void {
    for (const key of [...(this.bySession.get(server) ?? [])]) this.drop(server, key);
    this.bySession.delete(server);
  }

  /** An upstream update: to every session subscribed to it that still sees it. */
  private updated(serverId: string, uri: string): void {
    for (const [server, sub] of this.subscribers.get(`${serverId}\n${uri}`) ?? []) {
      const principal = sub.principal();
      if (principal === undefined || subscriptionTarget(this.deps, principal, sub.host) === undefined) continue;
      server.sendResourceUpdated({ uri: sub.host }).catch(() => undefined);
    }
  }

  /** list_changed for each kind whose listing changed for this session (an items swap, or another principal on the session). */
  notifyChanges(server: Server, next: ItemsView, previous: ItemsView): void {
    const caps = this.offered.get(server);
    if (caps?.resources?.listChanged && next.resourcesKey !== previous.resourcesKey) server.sendResourceListChanged().catch(() => undefined);
    if (caps?.prompts?.listChanged && next.promptsKey !== previous.promptsKey) server.sendPromptListChanged().catch(() => undefined);
  }

  onSwap(listener: (next: ItemsSnapshot, previous: ItemsSnapshot) => void): () => void {
    return this.deps.store.onSwap(listener);
  }
}
