// Live refresh: list_changed (debounced), removal, periodic re-read, and the
// tools/call forwarding the invocation layer will use.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { McpCallError, createMcpSource } from '../../src/sources/mcp/index.js';
import { makeCtx, median, startCounting, stdioConfig, toolNames, waitFor } from './helpers.js';

test('list_changed: the new tool is served within one second (20 repetitions), and removal', async () => {
  const ctx = makeCtx();
  const source = createMcpSource(stdioConfig('live'), ctx);
  try {
    const counter = await startCounting(source);
    assert.equal(source.health().state, 'connected');
    const latencies: number[] = [];
    for (let i = 0; i < 20; i++) {
      const name = `live_${i}`;
      const changed = counter.next();
      const t0 = performance.now();
      // The fixture adds the tool, then sends notifications/tools/list_changed.
      await source.callTool('fixture_control', { action: 'add', name });
      await changed;
      await waitFor(() => toolNames(source).includes(name), 1000, name);
      latencies.push(performance.now() - t0);
    }
    const worst = Math.max(...latencies);
    console.log(`# list_changed -> served over 20 reps: median ${median(latencies).toFixed(1)} ms, worst ${worst.toFixed(1)} ms`);
    assert.ok(worst < 1000, `worst ${worst} ms`);

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
  const source = createMcpSource(stdioConfig('burst', [], { debounceMs: 50 }), ctx);
  try {
    const counter = await startCounting(source);
    const reads = () => ctx.log.entries().filter((e) => e.event === 'refresh').length;
    const r0 = reads();
    const c0 = counter.changes(); // the first load itself counts as a change
    await source.callTool('fixture_control', { action: 'burst', count: 40 });
    await new Promise((r) => setTimeout(r, 400));
    const burstReads = reads() - r0;
    assert.ok(burstReads >= 1 && burstReads <= 3, `reads for a burst of 40: ${burstReads}`);
    assert.equal(counter.changes(), c0, 'list unchanged, so no onChange');
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
