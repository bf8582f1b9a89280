// The live tool lists of @modelcontextprotocol/server-everything and
// @modelcontextprotocol/server-filesystem, fetched over stdio with the SDK
// client (the real servers, started from node_modules).
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

type Obj = { [k: string]: unknown };

export interface LiveTool {
  server: string;
  name: string;
  inputSchema: Obj;
}

function binEntry(pkg: string): string {
  const require = createRequire(import.meta.url);
  const pkgJson = require.resolve(`${pkg}/package.json`);
  const meta = JSON.parse(readFileSync(pkgJson, 'utf8')) as { bin: string | Record<string, string> };
  const rel = typeof meta.bin === 'string' ? meta.bin : Object.values(meta.bin)[0];
  return join(dirname(pkgJson), rel);
}

async function listTools(server: string, args: string[]): Promise<LiveTool[]> {
  const client = new Client({ name: 'toolhost-compact-test', version: '0.0.0' });
  const transport = new StdioClientTransport({ command: process.execPath, args, stderr: 'ignore' });
  await client.connect(transport);
  try {
    const tools: LiveTool[] = [];
    let cursor: string | undefined;
    do {
      const page = await client.listTools(cursor ? { cursor } : {});
      for (const t of page.tools) tools.push({ server, name: t.name, inputSchema: t.inputSchema as Obj });
      cursor = page.nextCursor;
    } while (cursor);
    return tools;
  } finally {
    await client.close();
  }
}

export async function fetchLiveTools(): Promise<LiveTool[]> {
  const dir = mkdtempSync(join(tmpdir(), 'toolhost-compact-fs-'));
  try {
    const [everything, filesystem] = await Promise.all([
      listTools('everything', [binEntry('@modelcontextprotocol/server-everything'), 'stdio']),
      listTools('filesystem', [binEntry('@modelcontextprotocol/server-filesystem'), dir]),
    ]);
    return [...everything, ...filesystem];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
