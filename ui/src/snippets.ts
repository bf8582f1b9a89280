// Copyable ways to reach one tool (docs/ui.md "Tool page"): curl for the
// descriptor and an MCP client for a call. They name the credential as an
// environment variable, never the one the person signed in with.
import type { Descriptor } from './types.js';
import { toolPath } from './badges.js';

/** Example arguments: defaults, first enum values, examples, else a placeholder per required field. */
export function exampleArguments(schema: Record<string, unknown> | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const properties = (schema?.properties ?? {}) as Record<string, Record<string, unknown>>;
  const required = new Set(Array.isArray(schema?.required) ? (schema.required as string[]) : []);
  for (const [name, sub] of Object.entries(properties)) {
    if (!required.has(name)) continue;
    if (sub.default !== undefined) out[name] = sub.default;
    else if (Array.isArray(sub.enum) && sub.enum.length > 0) out[name] = sub.enum[0];
    else if (Array.isArray(sub.examples) && sub.examples.length > 0) out[name] = sub.examples[0];
    else if (sub.type === 'integer' || sub.type === 'number') out[name] = 0;
    else if (sub.type === 'boolean') out[name] = false;
    else if (sub.type === 'array') out[name] = [];
    else if (sub.type === 'object') out[name] = exampleArguments(sub);
    else out[name] = '…';
  }
  return out;
}

const shellQuote = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;

export function curlSnippet(origin: string, tool: Descriptor): string {
  return [
    `# The descriptor, as an agent sees it`,
    `curl -s ${shellQuote(origin + toolPath(tool.toolId))} \\`,
    `  -H "Authorization: Bearer $TOOLHOST_TOKEN"`,
    ``,
    `# The compact view of it`,
    `curl -s ${shellQuote(`${origin}${toolPath(tool.toolId)}?view=compact`)} \\`,
    `  -H "Authorization: Bearer $TOOLHOST_TOKEN"`,
  ].join('\n');
}

export function mcpSnippet(origin: string, tool: Descriptor, mcpName: string): string {
  const args = JSON.stringify(exampleArguments(tool.inputSchema));
  return [
    `// npm install @modelcontextprotocol/sdk`,
    `import { Client } from '@modelcontextprotocol/sdk/client/index.js';`,
    `import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';`,
    ``,
    `const client = new Client({ name: 'my-agent', version: '1.0.0' });`,
    `await client.connect(new StreamableHTTPClientTransport(new URL(${JSON.stringify(`${origin}/mcp`)}), {`,
    '  requestInit: { headers: { Authorization: `Bearer ${process.env.TOOLHOST_TOKEN}` } },',
    `}));`,
    `const result = await client.callTool({ name: ${JSON.stringify(mcpName)}, arguments: ${args} });`,
    `console.log(result);`,
  ].join('\n');
}

export function mcpConfigSnippet(origin: string): string {
  return JSON.stringify({ mcpServers: { toolhost: { type: 'http', url: `${origin}/mcp`, headers: { Authorization: 'Bearer ${TOOLHOST_TOKEN}' } } } }, null, 2);
}
