// Live refresh: list_changed (debounced), removal, periodic re-read, and the
// tools/call forwarding the invocation layer will use.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { McpCallError, createMcpSource } from '../../src/sources/mcp/index.js';
import { makeCtx, startCounting, stdioConfig, toolNames, waitFor } from './helpers.js';

test('list_changed: each new tool is served (20 repetitions), and removal', async () => {
  const ctx = makeCtx();
  const source = createMcpSource(stdioConfig('live'), ctx);
  try {
    const counter = await startCounting(source);
    assert.equal(source.health().state, 'connected');
    for (let i = 0; i < 20; i++) {
      const name = `live_${i}`;
      const changed = counter.next();
      // The fixture adds the tool, then sends notifications/tools/list_changed.
      await source.callTool('fixture_control', { action: 'add', name });
      await changed;
      assert.ok(toolNames(source).includes(name), name);
    }

    const before = counter.changes();
    const changed = counter.next();
    await source.callTool('fixture_control', { action: 'remove', name: 'live_3' });
    await changed;
    assert.ok(!toolNames(source).includes('live_3'));
    assert.ok(toolNames(source).includes('live_4'));
    assert.equal(counter.changes(), before + 1);
  } finally {
    await source.stop();
  }
});

test('a burst of list_changed collapses into few reads; an unchanged re-read does not call onChange', async () => {
  const ctx = makeCtx();
  // A quiet period of a whole second: the 41 notifications below come far closer together than that.
  const source = createMcpSource(stdioConfig('burst', [], { debounceMs: 1000 }), ctx);
  try {
    const counter = await startCounting(source);
    const reads = () => ctx.log.entries().filter((e) => e.event === 'refresh').length;
    const r0 = reads();
    const c0 = counter.changes(); // the first load itself counts as a change
    await source.callTool('fixture_control', { action: 'burst', count: 40 });
    // A sentinel change after the burst: once it is served, every read the burst caused is done.
    const sentinel = counter.next();
    await source.callTool('fixture_control', { action: 'add', name: 'after_burst' });
    await sentinel;
    assert.ok(toolNames(source).includes('after_burst'));
    const burstReads = reads() - r0;
    // Debounced: the 41 notifications (the burst and the sentinel's) are read once, after the quiet period.
    assert.equal(burstReads, 1, `reads for 41 notifications: ${burstReads}`);
    assert.equal(counter.changes(), c0 + 1, 'only the sentinel changed the list: the burst re-reads did not call onChange');
  } finally {
    await source.stop();
  }
});

test('periodic re-read picks up a change the server never announced', async () => {
  const ctx = makeCtx();
  const source = createMcpSource(stdioConfig('quiet', [], { refreshIntervalMs: 150 }), ctx);
  try {
    const counter = await startCounting(source);
    const changed = counter.next();
    await source.callTool('fixture_control', { action: 'add', name: 'silent_tool', quiet: true });
    await changed;
    assert.ok(toolNames(source).includes('silent_tool'));
  } finally {
    await source.stop();
  }
});

test('callTool forwards tools/call; unknown tools, bad arguments, timeouts and aborts are typed errors', async () => {
  const ctx = makeCtx();
  const source = createMcpSource(stdioConfig('call'), ctx);
  try {
    await source.start(() => {});
    const r = await source.callTool('echo', { message: 'hi' });
    assert.deepEqual(r.structuredContent, { message: 'hi' });
    assert.deepEqual(r.content, [{ type: 'text', text: 'hi' }]);

    await assert.rejects(source.callTool('nope', {}), (e: unknown) => e instanceof McpCallError && e.code === 'unknown_tool');
    await assert.rejects(source.callTool('echo', [1]), (e: unknown) => e instanceof McpCallError && e.code === 'invalid_arguments');
    await assert.rejects(source.callTool('slow', { ms: 2000 }, { timeoutMs: 100 }), (e: unknown) => e instanceof McpCallError && e.code === 'timeout');
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 50);
    await assert.rejects(source.callTool('slow', { ms: 2000 }, { signal: ac.signal }), (e: unknown) => e instanceof McpCallError && e.code === 'cancelled');
    // The connection is still fine afterwards.
    assert.equal((await source.callTool('echo', { message: 'again' })).structuredContent?.message, 'again');
    assert.equal(source.health().state, 'connected');
  } finally {
    await source.stop();
  }
});

test('a re-read reuses unchanged tools as the same objects; unchanged stdio pages come from the page cache', async () => {
  const ctx = makeCtx();
  // 2,000 tools (the fixture's 6 and 1,994 generated) in 4 pages of 500: each over the cache's size threshold.
  const source = createMcpSource(stdioConfig('reuse', ['--tools', '1994', '--page-size', '500']), ctx);
  try {
    const counter = await startCounting(source);
    const refreshes = () => ctx.log.entries().filter((e) => e.event === 'refresh');
    const before = new Map(source.tools().map((t) => [t.toolId, t]));

    // A re-read of an unchanged list: every page from the cache, every tool reused, no change reported.
    const c0 = counter.changes();
    await source.callTool('fixture_control', { action: 'notify' });
    await waitFor(() => refreshes().length >= 2, 20_000, 'second read');
    const second = refreshes()[1] as { reusedTools: number; toolCount: number; changed: boolean; pageCache: { hits: number; misses: number }; pages: number };
    assert.equal(second.changed, false);
    assert.equal(second.reusedTools, second.toolCount);
    assert.equal(second.pageCache.hits, second.pages, 'every page of the second read from the cache');
    assert.equal(counter.changes(), c0);

    // One tool added (it shifts every page): the pages are parsed again, the old tools still reused.
    const changed = counter.next();
    await source.callTool('fixture_control', { action: 'add', name: 'newcomer', description: 'a new tool' });
    await changed;
    const third = refreshes().at(-1) as { reusedTools: number; toolCount: number; changed: boolean };
    assert.equal(third.changed, true);
    assert.equal(third.toolCount, before.size + 1);
    assert.equal(third.reusedTools, before.size);
    const after = source.tools();
    assert.equal(after.find((t) => t.toolId === 'mcp:reuse.newcomer')?.description, 'a new tool');
    for (const t of after) if (t.toolId !== 'mcp:reuse.newcomer') assert.equal(t, before.get(t.toolId), `${t.toolId} is the same object`);
  } finally {
    await source.stop();
  }
});

test('a tool whose content changes under the same name is served with the new content (large cached pages too)', async () => {
  const ctx = makeCtx();
  // 1,000 generated tools in pages of 500: pages over the stdio cache's threshold, so the page cache is in play.
  const source = createMcpSource(stdioConfig('content', ['--tools', '994', '--page-size', '500']), ctx);
  const served = (name: string) => source.tools().find((t) => t.toolId === `mcp:content.${name}`);
  const reads = () => ctx.log.entries().filter((e) => e.event === 'refresh').length;
  // Changes the tool upstream and waits for the read that follows (a read, not a change: a wrong reuse would report none).
  const change = async (description: string, schema: object) => {
    const before = reads();
    await source.callTool('fixture_control', { action: 'add', name: 'shifty', description, schema });
    await waitFor(() => reads() > before, 20_000, 'the re-read after list_changed');
  };
  try {
    await source.start(() => {});
    await change('first words', { type: 'object', properties: { a: { type: 'string' } } });
    const first = served('shifty');
    assert.equal(first?.description, 'first words');
    const untouched = served('echo');

    // Same name, same place in the list, new description: a new tool object with the new text.
    await change('second words', { type: 'object', properties: { a: { type: 'string' } } });
    assert.equal(served('shifty')?.description, 'second words');
    assert.notEqual(served('shifty'), first);
    assert.equal(served('echo'), untouched, 'the unchanged tools are still reused');

    // Only the input schema changes.
    await change('second words', { type: 'object', properties: { a: { type: 'integer', minimum: 3 } }, required: ['a'] });
    assert.deepEqual(served('shifty')?.inputSchema, { type: 'object', properties: { a: { type: 'integer', minimum: 3 } }, required: ['a'] });
  } finally {
    await source.stop();
  }
});

test('a page cache stand-in the last read did not make (a duplicate that became the first of its name): read again without the cache, no reconnect', async () => {
  const ctx = makeCtx();
  // 2,000 tools in 4 pages of 500, each over the cache's size threshold; gen_01990 sits on the last page.
  const source = createMcpSource(stdioConfig('restale', ['--tools', '1994', '--page-size', '500']), ctx);
  try {
    const counter = await startCounting(source);
    const generated = source.tools().find((t) => t.toolId === 'mcp:restale.gen_01990')?.description;
    assert.ok(generated !== undefined);
    // An added tool of that name, near the top: the generated one is now a duplicate, skipped.
    let changed = counter.next();
    await source.callTool('fixture_control', { action: 'add', name: 'gen_01990', description: 'added first' });
    await changed;
    assert.equal(source.tools().find((t) => t.toolId === 'mcp:restale.gen_01990')?.description, 'added first');
    // Renamed in place: only the first page changes, the last comes from the cache with its duplicate now the first.
    changed = counter.next();
    await source.callTool('fixture_control', { action: 'rename', name: 'gen_01990', to: 'renamed_first' });
    await changed;
    const names = toolNames(source);
    assert.ok(names.includes('renamed_first'));
    assert.equal(source.tools().find((t) => t.toolId === 'mcp:restale.gen_01990')?.description, generated);
    const events = ctx.log.entries().map((e) => e.event);
    assert.ok(events.includes('page_cache_reset'), 'the read was made again without the cache');
    assert.ok(!events.includes('disconnect'), 'and the connection was kept');
    assert.equal(source.health().state, 'connected');
  } finally {
    await source.stop();
  }
});
