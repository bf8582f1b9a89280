// `toolhost clients`: ready-to-paste configuration for the MCP clients people
// already use, each in the format its vendor documents (docs/clients.md
// cites the pages; test/cli/clients.test.ts checks each against them).
// Where a client can send a header on Streamable HTTP it connects to /mcp
// directly, the credential read from an environment variable or asked for
// by the client, never written into the file; where it can only spawn a
// command (Claude Desktop) it runs `toolhost connect`, by absolute paths so
// a desktop app's short PATH still finds node and toolhost.
import { fileURLToPath } from 'node:url';

export const CLIENT_IDS = ['claude-desktop', 'claude-code', 'cursor', 'vscode', 'codex', 'windsurf'] as const;
export type ClientId = (typeof CLIENT_IDS)[number];

export interface ClientConfig {
  id: ClientId;
  name: string;
  /** Where the snippet goes. */
  file: string;
  format: 'json' | 'toml';
  /** `bridge`: the client spawns `toolhost connect`; `http`: it speaks Streamable HTTP to /mcp with the header. */
  via: 'bridge' | 'http';
  /** The parsed snippet (JSON formats) or undefined (TOML). */
  value?: unknown;
  text: string;
  /** What the person does besides pasting. */
  note: string;
}

export interface ClientsOptions {
  /** The MCP endpoint, e.g. http://127.0.0.1:8080/mcp (a URL without a path gets /mcp). */
  url: string;
  /** The environment variable holding the credential. */
  tokenEnv: string;
  /** The server's name in each client's list. */
  name: string;
  /** The node and bin/toolhost.js the bridge is started with. */
  node?: string;
  bin?: string;
}

/** The endpoint a client is given: the URL as typed, with /mcp when it names only the host. */
export function mcpEndpoint(url: string): string {
  const u = new URL(url);
  if (u.pathname === '/' || u.pathname === '') u.pathname = '/mcp';
  return u.href;
}

const json = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`;
const tomlString = (s: string) => JSON.stringify(s); // a TOML basic string is a JSON string for what we write

export function clientConfigs(options: ClientsOptions): ClientConfig[] {
  const url = mcpEndpoint(options.url);
  const { tokenEnv, name } = options;
  const node = options.node ?? process.execPath;
  const bin = options.bin ?? fileURLToPath(new URL('../../bin/toolhost.js', import.meta.url));
  const bearerHeader = (ref: string) => ({ Authorization: `Bearer ${ref}` });
  const made: Omit<ClientConfig, 'text'>[] = [
    {
      id: 'claude-desktop',
      name: 'Claude Desktop',
      file: 'claude_desktop_config.json (Settings > Developer > Edit Config)',
      format: 'json',
      via: 'bridge',
      value: { mcpServers: { [name]: { command: node, args: [bin, 'connect', '--url', url, '--token-env', tokenEnv], env: { [tokenEnv]: '<your toolhost API key>' } } } },
      note: `Claude Desktop starts local servers only from this file: it runs the stdio bridge. Put the key in place of the placeholder (or use --token-file FILE instead of --token-env and drop "env"), then restart Claude Desktop.`,
    },
    {
      id: 'claude-code',
      name: 'Claude Code',
      file: '.mcp.json at the project root (or `claude mcp add-json`)',
      format: 'json',
      via: 'http',
      value: { mcpServers: { [name]: { type: 'http', url, headers: bearerHeader(`\${${tokenEnv}}`) } } },
      note: `Claude Code expands \${${tokenEnv}} from its environment: export ${tokenEnv} before starting it.`,
    },
    {
      id: 'cursor',
      name: 'Cursor',
      file: '~/.cursor/mcp.json (or .cursor/mcp.json in a project)',
      format: 'json',
      via: 'http',
      value: { mcpServers: { [name]: { url, headers: bearerHeader(`\${env:${tokenEnv}}`) } } },
      note: `Cursor reads \${env:${tokenEnv}} from its environment: set ${tokenEnv} where Cursor is started.`,
    },
    {
      id: 'vscode',
      name: 'VS Code',
      file: '.vscode/mcp.json (or MCP: Open User Configuration)',
      format: 'json',
      via: 'http',
      value: {
        servers: { [name]: { type: 'http', url, headers: bearerHeader(`\${input:${name}-token}`) } },
        inputs: [{ type: 'promptString', id: `${name}-token`, description: 'toolhost API key', password: true }],
      },
      note: 'VS Code asks for the key once when the server first starts and keeps it in its secret storage.',
    },
    {
      id: 'codex',
      name: 'Codex',
      file: '~/.codex/config.toml',
      format: 'toml',
      via: 'http',
      note: `Codex sends the value of ${tokenEnv} as a bearer token: export it before starting Codex.`,
    },
    {
      id: 'windsurf',
      name: 'Windsurf',
      file: '~/.codeium/windsurf/mcp_config.json',
      format: 'json',
      via: 'http',
      value: { mcpServers: { [name]: { serverUrl: url, headers: bearerHeader(`\${env:${tokenEnv}}`) } } },
      note: `Windsurf reads \${env:${tokenEnv}} from its environment; press refresh in the MCP panel after saving.`,
    },
  ];
  return made.map((c) =>
    c.format === 'toml'
      ? { ...c, text: `[mcp_servers.${name}]\nurl = ${tomlString(url)}\nbearer_token_env_var = ${tomlString(tokenEnv)}\n` }
      : { ...c, text: json(c.value) },
  );
}

/** The text `toolhost clients` prints: each client's file, snippet and note. */
export function renderClients(configs: ClientConfig[]): string {
  return configs
    .map((c) => [`## ${c.name} (${c.via === 'bridge' ? 'stdio bridge: toolhost connect' : 'Streamable HTTP with a bearer header'})`, `# in ${c.file}`, c.text.trimEnd(), `# ${c.note}`, ''].join('\n'))
    .join('\n');
}
