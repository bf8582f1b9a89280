// How an upstream MCP server's resources and prompts are named on the front
// door (docs/mcp.md "Resources and prompts"). Two servers may offer the same
// URI or prompt name, so the client sees a host-assigned name that carries
// the server id: `toolhost-mcp://<server>/<upstream URI, verbatim>` and
// `<server>.<prompt name>`. A server id is `[a-z0-9][a-z0-9_-]*` (no `/`,
// no `.`), so the first `/` after the authority and the first `.` end it:
// the mapping is injective and reversible by taking the prefix off. The
// upstream text is kept verbatim (not percent-encoded) so a template's
// `{variables}` stay where they were: expanding the host template gives the
// host URI of the upstream expansion. The ids tenant rules match are
// `mcp:<server>:<upstream URI or template>` and `mcp:<server>.<prompt name>`.
import { SOURCE_ID_PATTERN } from '../contract/tool-id.js';

export const HOST_URI_SCHEME = 'toolhost-mcp';
const PREFIX = `${HOST_URI_SCHEME}://`;
/** The `_meta` keys that carry the upstream's own names on what the front door serves. */
export const META_SERVER = 'toolhost/server';
export const META_UPSTREAM_URI = 'toolhost/upstreamUri';
export const META_UPSTREAM_NAME = 'toolhost/upstreamName';

export function hostUri(serverId: string, uri: string): string {
  return `${PREFIX}${serverId}/${uri}`;
}

/** The server and upstream URI (or template) a host URI names; undefined for anything else. */
export function upstreamOf(host: string): { serverId: string; uri: string } | undefined {
  if (!host.startsWith(PREFIX)) return undefined;
  const slash = host.indexOf('/', PREFIX.length);
  if (slash < 0) return undefined;
  const serverId = host.slice(PREFIX.length, slash);
  if (!SOURCE_ID_PATTERN.test(serverId)) return undefined;
  return { serverId, uri: host.slice(slash + 1) };
}

export function hostPromptName(serverId: string, name: string): string {
  return `${serverId}.${name}`;
}

export function promptOf(host: string): { serverId: string; name: string } | undefined {
  const dot = host.indexOf('.');
  if (dot < 0) return undefined;
  const serverId = host.slice(0, dot);
  return SOURCE_ID_PATTERN.test(serverId) ? { serverId, name: host.slice(dot + 1) } : undefined;
}

/** The id `resources:` globs and policy rules match: the server and the upstream URI or template. */
export function resourceRuleId(serverId: string, uri: string): string {
  return `mcp:${serverId}:${uri}`;
}

/** The id `prompts:` globs and policy rules match. */
export function promptRuleId(serverId: string, name: string): string {
  return `mcp:${serverId}.${name}`;
}
