// What a catalog read answers (docs/contract.md "The catalog", "Views and
// sessions"): GET /tools and GET /tools/{toolId}, standard, compact or a
// provider profile's form, for one caller. Both roads that answer it call
// `catalogBody`: fastify's routes (tool-routes.ts) and the node:http road in
// front of fastify (catalog-fast-path.ts), which differ only in how they
// write. Unknown and invisible ids share one 404.
import type { Principal } from '../auth/principal.js';
import type { Body } from '../catalog/body.js';
import { profileListBody, profiledTool } from '../catalog/profiles/profiled.js';
import type { ProfileId } from '../catalog/profiles/rules.js';
import type { CatalogStore } from '../catalog/store.js';
import { ContractError } from '../contract/errors.js';

export type CatalogRoute = '/tools' | '/tools/*';

export const NOT_FOUND_MESSAGE = 'no tool with that id is available';
const PREFIX_LENGTH = '/tools/'.length;

export interface CatalogRead {
  route: CatalogRoute;
  /** The toolId of `/tools/*`, percent-decoded (`toolIdFromUrl`). */
  toolId: string;
  compact: boolean;
  /** A provider profile's form of the compact view (docs/compact-view.md "Provider profiles"). */
  profile?: ProfileId;
}

/** The toolId from the raw path, percent-decoded once (ids may hold `:` `/` `.`). */
export function toolIdFromUrl(url: string): string {
  const q = url.indexOf('?', PREFIX_LENGTH);
  const path = q < 0 ? url.slice(PREFIX_LENGTH) : url.slice(PREFIX_LENGTH, q);
  if (!path.includes('%')) return path;
  try {
    return decodeURIComponent(path);
  } catch {
    throw new ContractError('validation_error', 'malformed percent-encoding in toolId');
  }
}

/**
 * The body answering `read` for `principal`, from the current snapshot;
 * undefined when no such tool is visible (404, NOT_FOUND_MESSAGE). The
 * compact list of a snapshot still being compacted after a start is a
 * promise, kept until it is (docs/benchmarks.md "Cold start").
 */
export function catalogBody(store: CatalogStore, principal: Principal, read: CatalogRead): Body | Promise<Body> | undefined {
  const snapshot = store.current();
  if (read.route === '/tools') {
    const view = snapshot.viewFor(principal);
    if (read.profile !== undefined) return profileListBody(view, read.profile);
    if (!read.compact) return view.standard;
    const compacting = snapshot.whenCompacted();
    return compacting === undefined ? view.compact : compacting.then(() => view.compact);
  }
  const entry = snapshot.lookup(principal, read.toolId);
  if (!entry) return undefined;
  if (read.profile !== undefined) return profiledTool(entry.tool.descriptor, read.profile).body;
  return read.compact ? entry.compact : entry.standard;
}
