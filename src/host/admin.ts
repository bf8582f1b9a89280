// The admin API's side of the host (docs/admin.md): who is an admin, the
// resources of the effective config (the file with the API's layer over it),
// and a change: checked and applied as a config reload is (host/reload.ts),
// or only previewed (`dryRun`), guarded by the resource's ETag and recorded
// as an audit record that names who, when and what (digests, never values).
import { ApiKeyStore } from '../auth/api-keys.js';
import type { Authenticator } from '../auth/principal.js';
import type { CatalogSnapshot } from '../catalog/snapshot.js';
import { ContractError } from '../contract/errors.js';
import { applyLayer, layerKey, pointerOf, resourceOf, resourcesOf, withChange, type ConfigLayer, type LayerEntry, type ResourceKind } from '../config/layer.js';
import { loadConfigFile, loadConfigValue, type LoadedConfig } from '../config/load.js';
import type { AdminConfig } from '../config/schema.js';
import type { HostMetrics } from '../observability/metrics.js';
import { ConfigError } from '../util/validated-yaml.js';
import { catalogDiff, digestOf, etagOf, masked, maskedConfig, problemsOf, unmasked, type TenantDiff } from './admin-view.js';
import type { ConfigReloader } from './reload.js';
import type { ConfigChangeStore } from '../events/config-changes.js';
import type { ChangeRequest } from '../http/admin-routes.js';

/** How often a replica looks for changes other replicas stored. */
const SYNC_INTERVAL_MS = 250;

/** The file's config with `layer` over it, checked as a file is (the file alone when the layer is empty). */
export function layeredConfig(file: LoadedConfig, layer: ConfigLayer): LoadedConfig {
  if (layer.size === 0) return file;
  return loadConfigValue(applyLayer(file.config, layer), file.file, LAYER_LABEL);
}

/** The stored changes folded into a layer, and the last one's sequence (-1: none). */
export async function readStoredLayer(store: ConfigChangeStore, layer: ConfigLayer = new Map(), after = -1): Promise<{ layer: ConfigLayer; seq: number }> {
  let next = layer;
  let seq = after;
  for (const c of await store.readChangesAfter(after)) {
    next = withChange(next, { kind: c.kind as ResourceKind, id: c.id, value: c.value });
    seq = c.seq;
  }
  return { layer: next, seq };
}

const sameLayer = (a: ConfigLayer, b: ConfigLayer): boolean => JSON.stringify([...a.values()]) === JSON.stringify([...b.values()]);

export const DEFAULT_ADMIN_SCOPE = 'toolhost:admin';
const MAX_AUDIT = 1000;
const LAYER_LABEL = 'admin API changes';

export interface AuditRecord {
  seq: number;
  at: string;
  /** The admin's principal id. */
  who: string;
  action: 'create' | 'replace' | 'delete';
  resource: string;
  /** Digests of the resource's JSON before and after (null: absent). */
  before: string | null;
  after: string | null;
}


export type ChangeResult = { dryRun: true; changes: Record<string, TenantDiff>; refusedSettings: string[] } | { dryRun: false; value: unknown; etag: string; generation: number };

export class AdminService {
  private layer: ConfigLayer;
  /** The last stored change this replica has applied (-1: none; without a store, unused). */
  private appliedSeq: number;
  /** Changes and syncs one at a time. */
  private chain: Promise<unknown> = Promise.resolve();
  private readonly timer?: NodeJS.Timeout;
  private readonly keys: ApiKeyStore;
  private readonly scope: string;
  private readonly records: AuditRecord[] = [];
  private seq = 0;

  constructor(
    private readonly deps: {
      config?: AdminConfig;
      authenticator: Authenticator;
      reloader: ConfigReloader;
      metrics: HostMetrics;
      loaded: () => LoadedConfig;
      tenantSnapshot: () => CatalogSnapshot;
      /** Where changes are kept for every replica; absent: in this process only. */
      changes?: ConfigChangeStore;
      /** What the store held at start, already applied. */
      stored?: { layer: ConfigLayer; seq: number };
    },
  ) {
    this.layer = deps.stored?.layer ?? new Map();
    this.appliedSeq = deps.stored?.seq ?? -1;
    if (deps.changes !== undefined) {
      this.timer = setInterval(() => void this.serial(() => this.sync()).catch(() => undefined), SYNC_INTERVAL_MS);
      this.timer.unref();
    }
    this.keys = new ApiKeyStore((deps.config?.keys ?? []).map((k) => ({ principalId: k.id, tenant: '', scopes: [], keyHash: k.keyHash })));
    this.scope = deps.config?.scope ?? DEFAULT_ADMIN_SCOPE;
    deps.reloader.setLayer((loaded) => layeredConfig(loaded, this.layer));
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
  }

  private serial<T>(run: () => Promise<T>): Promise<T> {
    const next = this.chain.then(run);
    this.chain = next.catch(() => undefined);
    return next;
  }

  /** Applies the changes other replicas stored since the last one applied here, in their order. */
  private async sync(): Promise<void> {
    const { layer, seq } = await readStoredLayer(this.deps.changes!, this.layer, this.appliedSeq);
    if (seq === this.appliedSeq) return;
    this.appliedSeq = seq;
    if (sameLayer(layer, this.layer)) return;
    this.layer = layer;
    await this.deps.reloader.apply('admin API change stored by a replica', () => layeredConfig(loadConfigFile(this.deps.loaded().file), layer));
  }

  /** The admin's id when the token is an admin key, or a tenant credential holding the admin scope; undefined for anyone else. */
  async adminOf(token: string | undefined): Promise<string | undefined> {
    if (token === undefined || token === '') return undefined;
    const own = this.keys.verify(token);
    if (own.ok) return own.principal.id;
    const outcome = await this.deps.authenticator.authenticate(token);
    return outcome.ok && outcome.principal.scopes.has(this.scope) ? outcome.principal.id : undefined;
  }

  /** The effective config, masked. */
  effectiveConfig(): unknown {
    return maskedConfig(this.deps.loaded().config);
  }

  list(kind: Exclude<ResourceKind, 'policy-rules'>): { items: { id: string; etag: string; value: unknown }[] } {
    return { items: resourcesOf(this.deps.loaded().config, kind).map(([id, value]) => ({ id, etag: etagOf(value), value: masked(kind, value) })) };
  }

  get(kind: ResourceKind, id: string): { value: unknown; etag: string } | undefined {
    const value = resourceOf(this.deps.loaded().config, kind, id);
    return value === undefined ? undefined : { value: masked(kind, value), etag: etagOf(value) };
  }

  audit(after = 0, limit = 100): AuditRecord[] {
    return this.records.filter((r) => r.seq > after).slice(0, limit);
  }

  /** Checks and applies (or previews) one change; refusals are ContractErrors in the error envelope. */
  change(req: ChangeRequest): Promise<ChangeResult> {
    return req.dryRun ? this.changeNow(req) : this.serial(() => this.changeNow(req));
  }

  private async changeNow(req: ChangeRequest): Promise<ChangeResult> {
    const running = this.deps.loaded().config;
    const before = resourceOf(running, req.kind, req.id);
    this.precondition(req, before);
    const value = req.value === null ? null : unmasked(req.kind, req.value, before);
    const entry: LayerEntry = { kind: req.kind, id: req.id, value };
    const layer = withChange(this.layer, entry);
    const load = () => layeredConfig(loadConfigFile(this.deps.loaded().file), layer);
    const target = applyLayer(running, new Map([[layerKey(req.kind, req.id), entry]]));
    const at = value === null ? pointerOf(running, req.kind, req.id) : pointerOf(target, req.kind, req.id);
    try {
      if (req.dryRun) {
        const { snapshot, refused } = await this.deps.reloader.preview(load);
        const tenants = [...Object.keys(running.tenants), ...Object.keys(target.tenants)];
        return { dryRun: true, changes: catalogDiff(this.deps.tenantSnapshot(), snapshot, tenants), refusedSettings: refused };
      }
      const previous = this.layer;
      this.layer = layer;
      const outcome = await this.deps.reloader.apply(`admin API: ${req.who}`, load);
      if (outcome.outcome === 'refused') {
        this.layer = previous;
        throw new ConfigError(outcome.problems);
      }
      if (this.deps.changes !== undefined) await this.store(req, value, previous);
      this.record(req, before, value);
      const now = resourceOf(this.deps.loaded().config, req.kind, req.id);
      return { dryRun: false, value: now === undefined ? null : masked(req.kind, now), etag: etagOf(now), generation: outcome.generation };
    } catch (err) {
      if (!(err instanceof ConfigError)) throw err;
      throw new ContractError('validation_error', 'the change was refused; nothing changed', { problems: problemsOf(err.problems, at) });
    }
  }

  private precondition(req: ChangeRequest, before: unknown): void {
    if (req.create) {
      if (before !== undefined) throw new ContractError('toolhost.precondition_failed', `${req.resource} already exists; replace it with PUT and If-Match`);
      return;
    }
    if (before === undefined && req.kind !== 'policy-rules') throw new ContractError('not_found', 'no such resource');
    if (req.ifMatch === undefined) throw new ContractError('toolhost.precondition_required', 'a change needs If-Match with the ETag the resource was read with');
    if (req.ifMatch !== '*' && req.ifMatch !== etagOf(before)) throw new ContractError('toolhost.precondition_failed', 'the resource changed since it was read (stale If-Match); read it again', { etag: etagOf(before) });
  }

  /**
   * Stores an applied change for every replica; when another replica stored a
   * change of the same resource first, this one is undone here and refused.
   */
  private async store(req: ChangeRequest, value: unknown, previous: ConfigLayer): Promise<void> {
    const seq = await this.deps.changes!.appendChange({ kind: req.kind, id: req.id, value, who: req.who }, this.appliedSeq);
    if (seq === undefined) {
      this.layer = previous;
      await this.deps.reloader.apply('admin API change lost to a replica', () => layeredConfig(loadConfigFile(this.deps.loaded().file), previous));
      await this.sync();
      throw new ContractError('toolhost.precondition_failed', 'another replica changed the resource first (stale If-Match); read it again');
    }
    await this.sync();
  }

  private record(req: ChangeRequest, before: unknown, after: unknown): void {
    const action = req.value === null ? 'delete' : before === undefined ? 'create' : 'replace';
    this.records.push({ seq: ++this.seq, at: new Date().toISOString(), who: req.who, action, resource: req.resource, before: digestOf(before), after: digestOf(after ?? undefined) });
    if (this.records.length > MAX_AUDIT) this.records.shift();
    this.deps.metrics.adminChanges.inc({ kind: req.kind, action });
  }
}
