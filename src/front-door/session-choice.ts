// What a client chooses for its session when it opens one (docs/mcp.md,
// docs/search.md, docs/compact-view.md): `?view=compact`, `?mode=tools|search`
// and `?profile=...` on the initialize request, each defaulting to its
// tenant's setting.
import type { Principal } from '../auth/principal.js';
import { PROFILE_IDS, type ProfileId, isProfileId } from '../catalog/profiles/rules.js';
import { MCP_MODES, type McpMode } from './search-mode.js';

export interface SessionChoice {
  compact: boolean;
  mode: McpMode;
  profile?: ProfileId;
}

export interface ChoiceDefaults {
  /** Tenants whose sessions get compact input schemas by default. */
  compactTenants?: ReadonlySet<string>;
  /** Tenants whose sessions are in search mode by default. */
  searchTenants?: ReadonlySet<string>;
  /** Whether the host has tool search at all. */
  searchAvailable: boolean;
}

/** The session's choice from the initialize request's query, or what is wrong with it (a Bad Request's words). */
export function sessionChoice(query: Record<string, unknown>, principal: Principal, defaults: ChoiceDefaults): SessionChoice | { refused: string } {
  const compact = query.view === 'compact' || (defaults.compactTenants?.has(principal.tenant) ?? false);
  const asked = query.mode;
  if (asked !== undefined && !MCP_MODES.includes(asked as McpMode)) return { refused: `Bad Request: mode must be one of ${MCP_MODES.join(', ')}` };
  const mode: McpMode = (asked as McpMode | undefined) ?? (defaults.searchTenants?.has(principal.tenant) ? 'search' : 'tools');
  if (mode === 'search' && !defaults.searchAvailable) return { refused: 'Bad Request: search mode is not available on this host' };
  const profile = query.profile;
  if (profile !== undefined && !isProfileId(profile)) return { refused: `Bad Request: profile must be one of ${PROFILE_IDS.join(', ')}` };
  return { compact, mode, ...(profile !== undefined ? { profile } : {}) };
}
