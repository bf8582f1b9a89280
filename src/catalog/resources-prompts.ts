// The resources, resource templates and prompts of every MCP source, under
// host names (resource-uri.ts), and what each caller sees of them
// (docs/mcp.md "Resources and prompts"). An immutable snapshot per change:
// built when a server's lists change, each entry's wire form made once, and
// per-caller views memoized (tenant and scopes). Visibility is the tools'
// rule applied to the rule ids: the tenant's `resources:` / `prompts:` globs
// (default nothing) and every scope the policy's matching rules require.
import { UriTemplate } from '@modelcontextprotocol/sdk/shared/uriTemplate.js';
import type { Prompt, Resource, ResourceTemplate } from '@modelcontextprotocol/sdk/types.js';
import { compileGlobs } from '../contract/glob.js';
import type { Policy } from '../classify/policy.js';
import type { ItemLists, McpItemLists } from '../sources/mcp/resources.js';
import { hostPromptName, hostUri, META_SERVER, META_UPSTREAM_NAME, META_UPSTREAM_URI, promptRuleId, resourceRuleId, upstreamOf } from './resource-uri.js';
import type { Caller } from './visibility.js';

export interface ItemRules {
  resources: (id: string) => boolean;
  prompts: (id: string) => boolean;
}

export function compileItemRules(resources: readonly string[] = [], prompts: readonly string[] = []): ItemRules {
  return { resources: compileGlobs(resources), prompts: compileGlobs(prompts) };
}

interface Entry<W> {
  serverId: string;
  /** The id rules match. */
  ruleId: string;
  /** Scopes the policy's rules require for it. */
  scopes: readonly string[];
  wire: W;
}
export type ResourceEntry = Entry<Resource> & { uri: string };
export type TemplateEntry = Entry<ResourceTemplate> & { template: UriTemplate };
export type PromptEntry = Entry<Prompt> & { name: string };

/** What one caller may list of resources, templates and prompts, with the lookups its reads use. */
export interface ItemsView extends ItemLists<ResourceEntry, TemplateEntry, PromptEntry> {
  /** Changes exactly when what this caller lists of resources (and templates), or of prompts, changes. */
  readonly resourcesKey: string;
  readonly promptsKey: string;
  readonly byUri: ReadonlyMap<string, ResourceEntry>;
  readonly byTemplate: ReadonlyMap<string, TemplateEntry>;
  readonly byName: ReadonlyMap<string, PromptEntry>;
}

/** The upstream a host URI reaches for this caller, or undefined (unknown and invisible alike). */
export interface ResolvedUri {
  serverId: string;
  uri: string;
  ruleId: string;
}

const MAX_VIEWS = 4096;
const meta = (serverId: string, key: string, value: string) => ({ _meta: { [META_SERVER]: serverId, [key]: value } });
const byKey = <T>(key: (t: T) => string) => (a: T, b: T) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0);

export class ItemsSnapshot {
  private readonly views = new Map<string, ItemsView>();
  readonly resources: readonly ResourceEntry[];
  readonly templates: readonly TemplateEntry[];
  readonly prompts: readonly PromptEntry[];

  constructor(
    servers: ReadonlyMap<string, McpItemLists>,
    private readonly tenants: ReadonlyMap<string, ItemRules>,
    private readonly policy: Policy,
  ) {
    const resources: ResourceEntry[] = [];
    const templates: TemplateEntry[] = [];
    const prompts: PromptEntry[] = [];
    for (const [serverId, lists] of servers) {
      for (const r of lists.resources) {
        const uri = hostUri(serverId, r.uri);
        resources.push({ ...this.entry(serverId, resourceRuleId(serverId, r.uri)), uri, wire: { ...r, uri, ...meta(serverId, META_UPSTREAM_URI, r.uri) } });
      }
      for (const t of lists.templates) {
        const uriTemplate = hostUri(serverId, t.uriTemplate);
        let template: UriTemplate;
        try {
          template = new UriTemplate(t.uriTemplate);
        } catch {
          continue; // not a template the host can match a read against
        }
        templates.push({ ...this.entry(serverId, resourceRuleId(serverId, t.uriTemplate)), template, wire: { ...t, uriTemplate, ...meta(serverId, META_UPSTREAM_URI, t.uriTemplate) } });
      }
      for (const p of lists.prompts) {
        const name = hostPromptName(serverId, p.name);
        prompts.push({ ...this.entry(serverId, promptRuleId(serverId, p.name)), name, wire: { ...p, name, ...meta(serverId, META_UPSTREAM_NAME, p.name) } });
      }
    }
    this.resources = resources.sort(byKey((e) => e.uri));
    this.templates = templates.sort(byKey((e) => e.wire.uriTemplate));
    this.prompts = prompts.sort(byKey((e) => e.name));
  }

  private entry(serverId: string, ruleId: string): { serverId: string; ruleId: string; scopes: readonly string[] } {
    return { serverId, ruleId, scopes: this.scopesOf(ruleId) };
  }

  private scopesOf(ruleId: string): readonly string[] {
    return this.policy.classify({ toolId: ruleId, source: 'mcp' }).scopes;
  }

  viewFor(caller: Caller): ItemsView {
    const key = `${caller.tenant}\u0000${[...caller.scopes].sort().join('\u0000')}`;
    let view = this.views.get(key);
    if (view === undefined) {
      if (this.views.size >= MAX_VIEWS) this.views.clear();
      view = this.makeView(caller);
      this.views.set(key, view);
    }
    return view;
  }

  private makeView(caller: Caller): ItemsView {
    const rules = this.tenants.get(caller.tenant);
    const sees = (allows: ((id: string) => boolean) | undefined) => (e: Entry<unknown>) => allows !== undefined && allows(e.ruleId) && e.scopes.every((s) => caller.scopes.has(s));
    const resources = this.resources.filter(sees(rules?.resources));
    const templates = this.templates.filter(sees(rules?.resources));
    const prompts = this.prompts.filter(sees(rules?.prompts));
    return {
      resources,
      templates,
      prompts,
      resourcesKey: JSON.stringify([resources.map((e) => e.wire), templates.map((e) => e.wire)]),
      promptsKey: JSON.stringify(prompts.map((e) => e.wire)),
      byUri: new Map(resources.map((e) => [e.uri, e])),
      byTemplate: new Map(templates.map((e) => [e.wire.uriTemplate, e])),
      byName: new Map(prompts.map((e) => [e.name, e])),
    };
  }

  /**
   * The upstream behind a host URI the caller may read: a listed resource
   * it sees, or a URI one of its visible templates of that server expands
   * to, whose own id its rules allow. Anything else is undefined.
   */
  resolveUri(caller: Caller, host: string): ResolvedUri | undefined {
    const view = this.viewFor(caller);
    const listed = view.byUri.get(host);
    const parsed = upstreamOf(host);
    if (parsed === undefined) return undefined;
    const ruleId = resourceRuleId(parsed.serverId, parsed.uri);
    if (listed !== undefined) return { ...parsed, ruleId };
    const allows = this.tenants.get(caller.tenant)?.resources;
    if (allows === undefined || !allows(ruleId) || !this.scopesOf(ruleId).every((s) => caller.scopes.has(s))) return undefined;
    const expands = view.templates.some((t) => t.serverId === parsed.serverId && t.template.match(parsed.uri) !== null);
    return expands ? { ...parsed, ruleId } : undefined;
  }
}

type SwapListener = (next: ItemsSnapshot, previous: ItemsSnapshot) => void;

/** Holds the current items snapshot; a server's change swaps in a new one (a request keeps the one it started with). */
export class ItemsStore {
  private snapshot: ItemsSnapshot;
  private readonly servers = new Map<string, McpItemLists>();
  private readonly listeners = new Set<SwapListener>();

  constructor(
    private tenants: ReadonlyMap<string, ItemRules>,
    private policy: Policy,
  ) {
    this.snapshot = new ItemsSnapshot(this.servers, tenants, policy);
  }

  /** New rules and a new set of servers (a config reload), swapped in as one snapshot. */
  reconfigure(tenants: ReadonlyMap<string, ItemRules>, policy: Policy, servers: ReadonlyMap<string, McpItemLists>): void {
    this.tenants = tenants;
    this.policy = policy;
    this.servers.clear();
    for (const [id, lists] of servers) this.servers.set(id, lists);
    this.swap();
  }

  current(): ItemsSnapshot {
    return this.snapshot;
  }

  /** A server's lists as they now stand. */
  set(serverId: string, lists: McpItemLists): void {
    if (this.servers.get(serverId) === lists) return;
    this.servers.set(serverId, lists);
    this.swap();
  }

  private swap(): void {
    const previous = this.snapshot;
    this.snapshot = new ItemsSnapshot(this.servers, this.tenants, this.policy);
    for (const l of this.listeners) l(this.snapshot, previous);
  }

  onSwap(listener: SwapListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
