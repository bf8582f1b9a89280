// notifications/tools/list_changed (and the resources' and prompts' own)
// when what a session's caller sees changes (docs/mcp.md): a catalog swap, a
// request of the session's identity carrying another principal (a reloaded
// key, another token), or a keys-file reload that changes or takes away an
// API key with open sessions.
import type { CatalogSnapshot } from '../catalog/snapshot.js';
import type { Principal } from '../auth/principal.js';
import type { FrontDoorParts } from './parts.js';
import type { McpSession } from './sessions.js';

function sameIds(a: ReadonlySet<string>, b: ReadonlySet<string>): boolean {
  if (a === b) return true;
  if (a.size !== b.size) return false;
  for (const id of a) if (!b.has(id)) return false;
  return true;
}

/** Tells every session whose caller's list changed with a swap; a caller's list changed when its view's bytes did (the per-view ETags). */
export function notifyOnSwaps(parts: FrontDoorParts): void {
  const { deps, items, sessions, searchServers } = parts;
  items?.onSwap((next, previous) => {
    for (const s of sessions.values()) items.notifyChanges(s.server, next.viewFor(s.principal), previous.viewFor(s.principal));
  });
  deps.store.onSwap((next: CatalogSnapshot, previous: CatalogSnapshot) => {
    for (const s of sessions.values()) {
      if (searchServers.has(s.server)) continue;
      if (next.viewFor(s.principal).standard.etag !== previous.viewFor(s.principal).standard.etag) {
        s.server.sendToolListChanged().catch(() => undefined);
      }
    }
  });
}

/** A request of the session's own identity whose principal changed (reloaded key, another token): tell the client if its list did. */
export function followPrincipal(parts: FrontDoorParts, session: McpSession, principal: Principal): void {
  if (session.principal === principal) return;
  const snapshot = parts.deps.store.current();
  const changed = !sameIds(snapshot.viewFor(principal).ids, snapshot.viewFor(session.principal).ids);
  const itemViews = parts.deps.items?.store.current();
  if (itemViews !== undefined) parts.items?.notifyChanges(session.server, itemViews.viewFor(principal), itemViews.viewFor(session.principal));
  session.principal = principal;
  if (changed && !parts.searchServers.has(session.server)) session.server.sendToolListChanged().catch(() => undefined);
}

/** A keys-file reload changes an API-key session's rights without any request of its own: follow it at once. Returns the unsubscribe. */
export function followKeyReloads(parts: FrontDoorParts): (() => void) | undefined {
  const apiKeys = parts.options.apiKeys;
  if (apiKeys === undefined) return undefined;
  let usableKeys = apiKeys.usablePrincipalKeys();
  return apiKeys.onReplace(() => {
    // A key taken away revokes its principal's sessions for good, held here or not: restoring the key later does not bring them back.
    const usable = apiKeys.usablePrincipalKeys();
    for (const identity of usableKeys) if (!usable.has(identity)) parts.replicas?.revoke(identity);
    usableKeys = usable;
    for (const s of parts.sessions.values()) {
      if (s.principal.kind !== 'api-key') continue;
      const now = apiKeys.currentPrincipal(s.identity);
      // A revoked, removed or expired key: close its sessions, which also ends a GET stream opened with it.
      if (now === undefined) parts.sessions.close(s);
      else followPrincipal(parts, s, now);
    }
  });
}
