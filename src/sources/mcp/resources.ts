// An MCP server's resources, resource templates and prompts (docs/mcp.md
// "Resources and prompts"): every page of each list, re-read on the server's
// `list_changed` and whenever the tools are, the last good lists kept while
// the server is down; and the requests that reach them (read, get, complete,
// subscribe). Entries are untrusted: each is cut down to the fields the host
// relays, bounded, and scrubbed of the secrets the server was given.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import {
  CompleteResultSchema,
  ErrorCode,
  GetPromptResultSchema,
  McpError,
  PromptListChangedNotificationSchema,
  ReadResourceResultSchema,
  ResourceListChangedNotificationSchema,
  ResourceUpdatedNotificationSchema,
  ResultSchema,
  type CompleteResult,
  type GetPromptResult,
  type ReadResourceResult,
} from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from 'pino';
import type { Redactor } from './redact.js';
import { contentBytes, type McpItemLists, MAX_URI, promptOf, resourceOf, templateOf, type UpstreamPrompt, type UpstreamResource, type UpstreamTemplate, withOptional } from './item-entries.js';

export { contentBytes } from './item-entries.js';
export type { ItemLists, McpItemLists, UpstreamPrompt, UpstreamResource, UpstreamTemplate } from './item-entries.js';

export type McpItemErrorCode = 'unavailable' | 'timeout' | 'cancelled' | 'too_large' | 'upstream_error';

/** A failed read, get or completion; `message` is credential-free. */
export class McpItemError extends Error {
  constructor(
    readonly code: McpItemErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'McpItemError';
  }
}

export interface ItemRequestOptions {
  signal?: AbortSignal;
}

/** The requests a host makes of one server's items (the server's own URIs and names). */
export interface McpItems {
  readonly serverId: string;
  lists(): McpItemLists;
  /** One listener: called after the lists changed. */
  onChange(listener: () => void): void;
  /** One listener: the server said a subscribed resource changed. */
  onUpdated(listener: (uri: string) => void): void;
  read(uri: string, options: ItemRequestOptions & { maxBytes: number }): Promise<ReadResourceResult>;
  getPrompt(name: string, args: Record<string, string>, options?: ItemRequestOptions): Promise<GetPromptResult>;
  complete(params: { ref: { type: 'ref/prompt'; name: string } | { type: 'ref/resource'; uri: string }; argument: { name: string; value: string }; context?: { arguments?: Record<string, string> } }, options?: ItemRequestOptions): Promise<CompleteResult>;
  subscribe(uri: string): Promise<void>;
  unsubscribe(uri: string): Promise<void>;
}

export interface ItemLimits {
  pageTimeoutMs: number;
  callTimeoutMs: number;
  maxPages: number;
  /** Most entries kept per list. */
  maxItems: number;
  maxDescriptionLength: number;
}

const EMPTY: McpItemLists = Object.freeze({ resources: [], templates: [], prompts: [], subscribe: false, completions: false });
interface ListSpec<T> {
  method: 'resources/list' | 'resources/templates/list' | 'prompts/list';
  key: 'resources' | 'resourceTemplates' | 'prompts';
  of: (e: Record<string, unknown>, maxDescription: number) => T | undefined;
}

const RESOURCES: ListSpec<UpstreamResource> = { method: 'resources/list', key: 'resources', of: resourceOf };
const TEMPLATES: ListSpec<UpstreamTemplate> = { method: 'resources/templates/list', key: 'resourceTemplates', of: templateOf };
const PROMPTS: ListSpec<UpstreamPrompt> = { method: 'prompts/list', key: 'prompts', of: promptOf };

export class UpstreamItems implements McpItems {
  private current: McpItemLists = EMPTY;
  private changed: () => void = () => {};
  private updated: (uri: string) => void = () => {};
  private refreshing?: Promise<void>;
  private queued = false;
  /** URIs the host holds a subscription to: re-sent on every new connection. */
  private readonly subscribed = new Set<string>();

  constructor(
    readonly serverId: string,
    private readonly limits: ItemLimits,
    private readonly redactor: Redactor,
    private readonly log: Logger,
    /** The live connection's client, or undefined while there is none. */
    private readonly client: () => Client | undefined,
  ) {}

  lists(): McpItemLists {
    return this.current;
  }

  onChange(listener: () => void): void {
    this.changed = listener;
  }

  onUpdated(listener: (uri: string) => void): void {
    this.updated = listener;
  }

  /** Hooks a new connection's notifications to this server's items. */
  attach(client: Client): void {
    const reread = () => {
      if (client === this.client()) void this.refresh();
    };
    client.setNotificationHandler(ResourceListChangedNotificationSchema, reread);
    client.setNotificationHandler(PromptListChangedNotificationSchema, reread);
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => {
      const uri = n.params.uri;
      if (client === this.client() && typeof uri === 'string' && this.subscribed.has(uri)) this.updated(uri);
    });
  }

  /** A connection was made: subscriptions are the server's again, and the lists are read. */
  async connected(): Promise<void> {
    await Promise.all([...this.subscribed].map((uri) => this.send('resources/subscribe', uri).catch(() => undefined)));
    await this.refresh();
  }

  /** The server is down and its last lists are not to be served (`keepStaleTools: false`). */
  clear(): void {
    if (this.current === EMPTY) return;
    this.current = EMPTY;
    this.changed();
  }

  /** Serialized reads: a trigger during a read queues exactly one more. Never rejects. */
  refresh(): Promise<void> {
    if (this.refreshing) {
      this.queued = true;
      return this.refreshing;
    }
    this.refreshing = (async () => {
      do {
        this.queued = false;
        await this.readOnce();
      } while (this.queued);
    })().finally(() => (this.refreshing = undefined));
    return this.refreshing;
  }

  private async readOnce(): Promise<void> {
    const client = this.client();
    if (client === undefined) return;
    const caps = client.getServerCapabilities() ?? {};
    try {
      const [resources, templates, prompts] = await Promise.all([
        caps.resources ? this.readList(client, RESOURCES) : [],
        caps.resources ? this.readList(client, TEMPLATES) : [],
        caps.prompts ? this.readList(client, PROMPTS) : [],
      ]);
      const next: McpItemLists = { resources, templates, prompts, subscribe: caps.resources?.subscribe === true, completions: caps.completions !== undefined };
      const scrubbed = this.redactor.scrub(next).value;
      if (JSON.stringify(scrubbed) === JSON.stringify(this.current)) return;
      this.current = Object.freeze(scrubbed);
      this.log.info({ event: 'items_refresh', resources: resources.length, templates: templates.length, prompts: prompts.length }, 'mcp resources and prompts read');
      this.changed();
    } catch (err) {
      // The last good lists stay; the tool list's own read reports the server's failure.
      this.log.warn({ event: 'items_refresh_failed', error: this.redactor.error(err) }, `mcp server ${this.serverId}: resources and prompts not read; last good lists kept`);
    }
  }

  private async readList<T>(client: Client, spec: ListSpec<T>): Promise<T[]> {
    const out: T[] = [];
    const cursors = new Set<string>();
    let cursor: string | undefined;
    for (let page = 0; page < this.limits.maxPages; page++) {
      const answer = await client.request({ method: spec.method, params: cursor === undefined ? {} : { cursor } }, ResultSchema, { timeout: this.limits.pageTimeoutMs });
      const entries = answer[spec.key];
      if (!Array.isArray(entries)) throw new Error(`malformed ${spec.method} result (${spec.key} is not an array)`);
      for (const e of entries) {
        const item = typeof e === 'object' && e !== null ? spec.of(e as Record<string, unknown>, this.limits.maxDescriptionLength) : undefined;
        if (item !== undefined && out.length < this.limits.maxItems) out.push(item);
      }
      const next = answer.nextCursor;
      if (typeof next !== 'string' || next === '' || cursors.has(next)) break;
      cursors.add(next);
      cursor = next;
    }
    return out;
  }

  async read(uri: string, options: ItemRequestOptions & { maxBytes: number }): Promise<ReadResourceResult> {
    const result = (await this.call('resources/read', { uri }, ReadResourceResultSchema, options)) as ReadResourceResult;
    const bytes = contentBytes(result);
    if (bytes > options.maxBytes) throw new McpItemError('too_large', `the resource's contents are ${bytes} bytes, over the host's limit of ${options.maxBytes} bytes per read`);
    return this.scrubbed(result);
  }

  async getPrompt(name: string, args: Record<string, string>, options: ItemRequestOptions = {}): Promise<GetPromptResult> {
    return this.scrubbed((await this.call('prompts/get', { name, arguments: args }, GetPromptResultSchema, options)) as GetPromptResult);
  }

  async complete(params: Parameters<McpItems['complete']>[0], options: ItemRequestOptions = {}): Promise<CompleteResult> {
    const result = (await this.call('completion/complete', params, CompleteResultSchema, options)) as CompleteResult;
    const values = result.completion.values.filter((v) => typeof v === 'string' && v.length <= MAX_URI).slice(0, 100);
    return this.scrubbed({ completion: withOptional({ values }, { total: result.completion.total, hasMore: result.completion.hasMore }) });
  }

  async subscribe(uri: string): Promise<void> {
    this.subscribed.add(uri);
    await this.send('resources/subscribe', uri);
  }

  async unsubscribe(uri: string): Promise<void> {
    this.subscribed.delete(uri);
    await this.send('resources/unsubscribe', uri).catch(() => undefined);
  }

  private async send(method: 'resources/subscribe' | 'resources/unsubscribe', uri: string): Promise<void> {
    await this.call(method, { uri }, ResultSchema, {});
  }

  /** What every upstream content passes through before it reaches a caller: the server's known secrets replaced. */
  private scrubbed<T>(value: T): T {
    return this.redactor.scrub(value).value;
  }

  private async call(method: string, params: Record<string, unknown>, schema: typeof ResultSchema, options: ItemRequestOptions): Promise<Record<string, unknown>> {
    const client = this.client();
    if (client === undefined) throw new McpItemError('unavailable', `mcp server ${this.serverId} is not connected`);
    const timeout = this.limits.callTimeoutMs;
    try {
      return await client.request({ method, params }, schema, { timeout, signal: options.signal });
    } catch (err) {
      if (options.signal?.aborted) throw new McpItemError('cancelled', `${method} on mcp server ${this.serverId} was cancelled`);
      if (err instanceof McpError && err.code === ErrorCode.RequestTimeout) throw new McpItemError('timeout', `${method} on mcp server ${this.serverId} timed out after ${timeout} ms`);
      if (err instanceof McpError && err.code === ErrorCode.ConnectionClosed) throw new McpItemError('unavailable', `mcp server ${this.serverId} closed the connection`);
      throw new McpItemError('upstream_error', `mcp server ${this.serverId}: ${this.redactor.error(err)}`);
    }
  }
}
