// tools/list paging: every page is read, and a misbehaving pager is bounded.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createMcpSource } from '../../src/sources/mcp/index.js';
import { BASE_TOOLS, WARN, makeCtx, messages, stdioConfig, toolNames, waitFor } from './helpers.js';

test('2,500 tools in pages of 100: all of them, every page read', async () => {
  const ctx = makeCtx();
  const source = createMcpSource(stdioConfig('pg', ['--tools', '2500', '--page-size', '100']), ctx);
  try {
    await source.start(() => {});
    const h = source.health();
    assert.equal(h.state, 'connected');
    const names = toolNames(source);
    assert.equal(names.length, 2500 + BASE_TOOLS.length);
    assert.equal(new Set(source.tools().map((t) => t.toolId)).size, names.length);
    for (let i = 0; i < 2500; i++) assert.ok(names.includes(`gen_${String(i).padStart(5, '0')}`), `gen ${i}`);
    assert.equal(h.toolCount, 2506);
    assert.ok(h.lastRefresh && !Number.isNaN(Date.parse(h.lastRefresh)));
    const refresh = ctx.log.entries().find((e) => e.event === 'refresh');
    assert.ok(refresh);
    assert.equal(refresh.pages, Math.ceil(2506 / 100));
    assert.equal(refresh.toolCount, 2506);
    console.log(`# read 2506 tools in ${String(refresh.pages)} pages in ${String(refresh.ms)} ms`);
    const metrics = await ctx.metrics.registry.getMetricsAsJSON();
    const gauge = metrics.find((m) => m.name === 'toolhost_source_tools');
    assert.deepEqual(gauge?.values.find((v) => v.labels.source === 'mcp:pg')?.value, 2506);
    assert.equal(messages(ctx.log, WARN).length, 0);
  } finally {
    await source.stop();
  }
});

test('a repeated cursor ends the read with a warning, keeping what was read', async () => {
  const ctx = makeCtx();
  const source = createMcpSource(stdioConfig('loop', ['--repeat-cursor', '--page-size', '3']), ctx);
  try {
    await source.start(() => {});
    const h = source.health();
    assert.equal(h.state, 'connected');
    // Page 1 hands out "again", page 2 (asked with "again") hands it out again.
    assert.deepEqual(toolNames(source), BASE_TOOLS.slice(0, 3));
    assert.match(h.lastError ?? '', /repeated cursor/);
    assert.ok(messages(ctx.log, WARN).some((m) => /mcp server loop: .*repeated cursor/.test(m)));
  } finally {
    await source.stop();
  }
});

test('maxPages bounds an endless pager', async () => {
  const ctx = makeCtx();
  const source = createMcpSource(stdioConfig('endless', ['--endless'], { maxPages: 5 }), ctx);
  try {
    await source.start(() => {});
    assert.equal(source.health().state, 'connected');
    assert.equal(source.tools().length, 10);
    assert.ok(toolNames(source).includes('endless_4_1'));
    assert.ok(messages(ctx.log, WARN).some((m) => /mcp server endless: .*maxPages \(5\)/.test(m)));
  } finally {
    await source.stop();
  }
});

test('a pager that never ends, with new pages on every read, cannot grow the stdio page cache', async () => {
  const ctx = makeCtx();
  const maxPages = 4;
  const pad = 40_000; // each page well above the cache's 32 KB threshold
  // Every read stops early at maxPages, and every read's pages differ from the last one's.
  const source = createMcpSource(stdioConfig('endless_cache', ['--endless', '--endless-pad', String(pad), '--endless-fresh'], { maxPages, refreshIntervalMs: 20 }), ctx);
  type Refresh = { pages: number; pageCache: { misses: number; entries: number; bytes: number } };
  const refreshes = () => ctx.log.entries().filter((e) => e.event === 'refresh') as unknown as Refresh[];
  try {
    await source.start(() => {});
    await waitFor(() => refreshes().length >= 6, 60_000, 'six reads');
    const reads = refreshes();
    assert.ok(reads[reads.length - 1].pageCache.misses >= 6 * maxPages, 'the pages were cached as they came');
    for (const r of reads) {
      assert.ok(r.pageCache.entries <= maxPages, `${r.pageCache.entries} pages cached after a read of ${r.pages}`);
      assert.ok(r.pageCache.bytes <= maxPages * (2 * pad + 1000), `${r.pageCache.bytes} bytes cached`);
    }
  } finally {
    await source.stop();
  }
});

test('maxTools bounds the number of tools kept', async () => {
  const ctx = makeCtx();
  const source = createMcpSource(stdioConfig('many', ['--endless'], { maxTools: 7 }), ctx);
  try {
    await source.start(() => {});
    assert.equal(source.tools().length, 7);
    assert.match(source.health().lastError ?? '', /maxTools \(7\)/);
    assert.ok(messages(ctx.log, WARN).some((m) => /mcp server many: .*maxTools/.test(m)));
  } finally {
    await source.stop();
  }
});

test('a page that times out ends the read; the pages before it are served when nothing better exists', async () => {
  const ctx = makeCtx();
  const source = createMcpSource(
    stdioConfig('slowpage', ['--page-size', '2', '--hang-on-page', '3'], { pageTimeoutMs: 300, backoff: { initialMs: 5000, maxMs: 5000 } }),
    ctx,
  );
  try {
    await source.start(() => {});
    const h = source.health();
    assert.deepEqual(toolNames(source), BASE_TOOLS.slice(0, 4));
    assert.equal(h.state, 'stale');
    assert.match(h.lastError ?? '', /page 3 timed out after 300 ms/);
    assert.ok(messages(ctx.log, WARN).some((m) => /mcp server slowpage: .*page 3 timed out/.test(m)));
  } finally {
    await source.stop();
  }
});
