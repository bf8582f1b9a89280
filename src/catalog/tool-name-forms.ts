// The readable forms an MCP tool name may take (docs/mcp.md "Names"), from
// the most complete to the shortest: the whole toolId made MCP-safe, then
// without its source prefix, then with long words abbreviated
// (`organization` → `org`), then with the connector's own operation prefix
// (GitHub's `code-security/`) cut to initials; and the same again led by the
// source's id, for operations two sources share.
// Which form a tool gets is decided over the caller's whole view in
// tool-names.ts; this module only lists the candidates of one tool.
import { parseToolId } from '../contract/tool-id.js';

export const MAX_MCP_NAME_LENGTH = 64;

/** What the front door names: a toolId and its source's configured `mcpPrefix`, if any. */
export interface McpNamingInput {
  toolId: string;
  /** Replaces the `<kind>__<sourceId>` prefix of an MCP server's or connector's tools; "" means none. */
  mcpPrefix?: string;
}

/** The characters MCP clients and LLM providers accept; everything else becomes `_`. */
export function mcpSafe(text: string): string {
  return text.replace(/:/g, '__').replace(/[^A-Za-z0-9_-]/g, '_');
}

/** The toolId made MCP-safe: `:` written `__`, other characters outside `[A-Za-z0-9_-]` written `_`. */
export function readableMcpName(toolId: string): string {
  return mcpSafe(toolId);
}

/**
 * Words common in API operation names, and the short forms a reader still
 * recognizes. Not shared with search's abbreviations (search/text.ts), which
 * go the other way and are tuned for recall: a change there must never rename
 * a tool an agent already knows.
 */
const WORD_ABBREVIATIONS: Readonly<Record<string, string>> = {
  administration: 'admin',
  application: 'app',
  applications: 'apps',
  authenticated: 'auth',
  authentication: 'auth',
  authorization: 'authz',
  configuration: 'config',
  configurations: 'configs',
  definition: 'def',
  definitions: 'defs',
  deployment: 'deploy',
  deployments: 'deploys',
  enterprise: 'ent',
  environment: 'env',
  environments: 'envs',
  information: 'info',
  installation: 'install',
  installations: 'installs',
  notification: 'notif',
  notifications: 'notifs',
  organization: 'org',
  organizations: 'orgs',
  permission: 'perm',
  permissions: 'perms',
  repositories: 'repos',
  repository: 'repo',
  subscription: 'sub',
  subscriptions: 'subs',
  vulnerability: 'vuln',
  vulnerabilities: 'vulns',
};

function abbreviateWords(text: string): string {
  return text.replace(/[A-Za-z]+/g, (word) => WORD_ABBREVIATIONS[word.toLowerCase()] ?? word);
}

/** `code-security/get-config` → `cs_get-config`: the operation's own group prefix cut to its initials. */
function abbreviateGroup(local: string): string {
  const slash = local.indexOf('/');
  if (slash <= 0) return local;
  const group = local.slice(0, slash);
  const words = group.split(/[-_.]+/).filter((w) => w !== '');
  const short = words.length > 1 ? words.map((w) => w[0]).join('') : (WORD_ABBREVIATIONS[group.toLowerCase()] ?? group.slice(0, 3));
  return `${short}/${local.slice(slash + 1)}`;
}

/** The toolId split into the prefix that names its source and the source's own name for the tool. */
interface SourceSplit {
  /** What the whole name starts with: `<kind>__<sourceId>`, or the configured `mcpPrefix`. */
  prefix: string;
  /** The same, shorter but still naming the source: the source id alone. */
  brief: string;
  local: string;
  configured: boolean;
}

function splitSource(input: McpNamingInput): SourceSplit {
  const parts = parseToolId(input.toolId);
  if (parts?.source === 'mcp' || parts?.source === 'connector') {
    const [kind, sourceId, local] = parts.source === 'mcp' ? ['mcp', parts.serverId, parts.toolName] : ['connector', parts.connectorId, parts.action];
    if (input.mcpPrefix !== undefined) return { prefix: mcpSafe(input.mcpPrefix), brief: mcpSafe(input.mcpPrefix), local, configured: true };
    return { prefix: `${kind}__${mcpSafe(sourceId)}`, brief: mcpSafe(sourceId), local, configured: false };
  }
  // `openwop:x` reads `openwop__x`: the prefix ends in one `_` and the join adds the other.
  if (parts?.source === 'node-pack') return { prefix: 'openwop_', brief: 'openwop', local: parts.typeId, configured: false };
  if (parts?.source === 'workflow') return { prefix: 'workflow_', brief: 'workflow', local: parts.workflowId, configured: false };
  // Host extensions (`x-host-<vendor>-<name>`) and anything unparseable keep their whole id.
  return { prefix: '', brief: '', local: input.toolId, configured: true };
}

const join = (prefix: string, local: string): string => (prefix === '' ? local : `${prefix}_${local}`);

/** Rank of a form: lower is more complete; hashed forms rank above every readable one. */
export interface NameForm {
  name: string;
  rank: number;
}

/**
 * The readable candidates for one tool, most complete first, each at most
 * 64 characters (longer ones are left out) and distinct. A configured
 * `mcpPrefix` is the operator's choice of prefix and is never dropped.
 */
export function readableForms(input: McpNamingInput): NameForm[] {
  const { prefix, brief, local, configured } = splitSource(input);
  const worded = abbreviateWords(local);
  const grouped = abbreviateGroup(local);
  const short = abbreviateWords(grouped);
  const keep = configured ? prefix : '';
  const candidates = [
    join(prefix, local),
    join(keep, local),
    join(keep, worded),
    join(keep, grouped),
    join(keep, short),
    // Where another source has the same operations, the source's name comes back.
    join(brief, local),
    join(brief, worded),
    join(brief, grouped),
    join(brief, short),
  ].map(mcpSafe);
  const forms: NameForm[] = [];
  candidates.forEach((name, rank) => {
    if (name.length > 0 && name.length <= MAX_MCP_NAME_LENGTH && !forms.some((f) => f.name === name)) forms.push({ name, rank });
  });
  return forms;
}

/** The first readable form, whatever its length: what a hashed name starts with. */
export function fullForm(input: McpNamingInput): string {
  const { prefix, local } = splitSource(input);
  return mcpSafe(join(prefix, local));
}
