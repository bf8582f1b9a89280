// Real servers over real transports: the reference servers over stdio, the
// fixture over Streamable HTTP and over the old HTTP+SSE transport (fallback).
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { createMcpSource, type McpStdioConfig } from '../../src/sources/mcp/index.js';
import { BASE_TOOLS, FAST, httpConfig, makeCtx, startCounting, startHttpFixture, toolNames, waitFor } from './helpers.js';

const require = createRequire(import.meta.url);

/** The entry file of an installed package's first "bin". */
function binOf(pkg: string): string {
  const manifestPath = require.resolve(`${pkg}/package.json`);
  const manifest = require(manifestPath) as { bin: string | Record<string, string> };
  const bin = typeof manifest.bin === 'string' ? manifest.bin : Object.values(manifest.bin)[0];
  return path.join(path.dirname(manifestPath), bin);
}

test('@modelcontextprotocol/server-everything over stdio', async () => {
  const ctx = makeCtx();
  const config: McpStdioConfig = { id: 'everything', transport: 'stdio', command: process.execPath, args: [binOf('@modelcontextprotocol/server-everything'), 'stdio'], ...FAST };
  const source = createMcpSource(config, ctx);
  try {
    await source.start(() => {});
    assert.equal(source.health().state, 'connected', source.health().lastError);
    const ids = source.tools().map((t) => t.toolId);
    console.log(`# server-everything: ${ids.length} tools: ${toolNames(source).join(', ')}`);
    assert.ok(ids.includes('mcp:everything.echo'));
    assert.ok(ids.every((id) => /^mcp:everything\.[A-Za-z0-9_./-]{1,128}$/.test(id)));
    for (const t of source.tools()) assert.equal(t.derived, undefined);
    const echo = await source.callTool('echo', { message: 'hello' });
    assert.match(JSON.stringify(echo.content), /hello/);
  } finally {
    await source.stop();
  }
});

test('@modelcontextprotocol/server-filesystem over stdio, on a temp dir', async () => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'toolhost-fs-'));
  await writeFile(path.join(dir, 'hello.txt'), 'hello from the fixture dir');
  const ctx = makeCtx();
  const config: McpStdioConfig = { id: 'fs', transport: 'stdio', command: process.execPath, args: [binOf('@modelcontextprotocol/server-filesystem'), dir], ...FAST };
  const source = createMcpSource(config, ctx);
  try {
    await source.start(() => {});
    assert.equal(source.health().state, 'connected', source.health().lastError);
    const names = toolNames(source);
    console.log(`# server-filesystem: ${names.length} tools: ${names.join(', ')}`);
    for (const n of ['read_text_file', 'list_directory', 'write_file']) assert.ok(names.includes(n), n);
    assert.ok(source.tools().every((t) => t.toolId.startsWith('mcp:fs.')));
    const listing = await source.callTool('list_directory', { path: dir });
    assert.match(JSON.stringify(listing.content), /hello\.txt/);
  } finally {
    await source.stop();
    await rm(dir, { recursive: true, force: true });
  }
});

for (const mode of ['streamable', 'sse'] as const) {
  test(`fixture over ${mode === 'sse' ? 'HTTP+SSE (fallback from Streamable HTTP)' : 'Streamable HTTP'}: list, list_changed, call`, async () => {
    const fixture = await startHttpFixture(mode === 'sse' ? ['--sse-only', '--tools', '30', '--page-size', '7'] : ['--tools', '30', '--page-size', '7']);
    const ctx = makeCtx();
    const source = createMcpSource(httpConfig(mode, fixture.url), ctx);
    try {
      const counter = await startCounting(source);
      assert.equal(source.health().state, 'connected', source.health().lastError);
      assert.equal(source.tools().length, BASE_TOOLS.length + 30);
      const connect = ctx.log.entries().find((e) => e.event === 'connect');
      assert.equal(connect?.transport, mode === 'sse' ? 'sse' : 'streamable-http');
      if (mode === 'sse') assert.ok(ctx.log.entries().some((e) => e.event === 'fallback' && e.status === 405));

      const changed = counter.next();
      const t0 = performance.now();
      await source.callTool('fixture_control', { action: 'add', name: `over_${mode}` });
      await changed;
      await waitFor(() => toolNames(source).includes(`over_${mode}`), 1000, 'new tool');
      console.log(`# ${mode}: list_changed -> served in ${(performance.now() - t0).toFixed(1)} ms`);
      assert.equal((await source.callTool('echo', { message: mode })).structuredContent?.message, mode);
    } finally {
      await source.stop();
      await fixture.kill();
    }
  });
}
