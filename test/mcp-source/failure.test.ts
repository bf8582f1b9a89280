// Failure isolation: down at start, killed, stopped and restarted, hung,
// garbage. start() never rejects and never waits past connectTimeoutMs; the
// last good tools stay served; the source comes back by itself.
import assert from 'node:assert/strict';
import net from 'node:net';
import { test } from 'node:test';
import { createMcpSource } from '../../src/sources/mcp/index.js';
import type { SourceState } from '../../src/sources/raw-tool.js';
import {
  BASE_TOOLS,
  freePort,
  httpConfig,
  makeCtx,
  startCounting,
  startHttpFixture,
  stdioConfig,
  toolNames,
  waitFor,
} from './helpers.js';

/** Records every state the source passes through (polled every 5 ms). */
function watchStates(get: () => SourceState): { seen: SourceState[]; stop: () => void } {
  const seen: SourceState[] = [get()];
  const sample = () => {
    const s = get();
    if (s !== seen[seen.length - 1]) seen.push(s);
  };
  const timer = setInterval(sample, 5);
  return {
    seen,
    stop: () => {
      clearInterval(timer);
      sample();
    },
  };
}

test('stdio child killed: stale with the last good tools, then fresh after reconnect', async () => {
  const ctx = makeCtx();
  const source = createMcpSource(stdioConfig('crashy'), ctx);
  try {
    const counter = await startCounting(source);
    const added = counter.next();
    await source.callTool('fixture_control', { action: 'add', name: 'ephemeral' });
    await added;
    const before = source.health();
    const pid = (await source.callTool('pid', {})).structuredContent?.pid as number;
    assert.ok(pid > 0);

    const refreshed = counter.next();
    process.kill(pid, 'SIGKILL');
    await waitFor(() => source.health().state === 'stale', 20_000, 'stale');
    const stale = source.health();
    assert.equal(stale.toolCount, BASE_TOOLS.length + 1);
    assert.ok(toolNames(source).includes('ephemeral'), 'last good tools kept');
    assert.match(stale.lastError ?? '', /server process exited/);

    // A fresh child does not know the added tool: the list changes back.
    await refreshed;
    await waitFor(() => source.health().state === 'connected', 20_000, 'connected');
    assert.deepEqual(toolNames(source), BASE_TOOLS);
    assert.ok(Date.parse(source.health().lastRefresh!) > Date.parse(before.lastRefresh!));
    assert.equal(source.health().lastError, undefined);
    const entries = ctx.log.entries();
    assert.ok(entries.some((e) => e.event === 'disconnect' && e.level === 40));
    assert.ok(entries.some((e) => e.event === 'backoff' && typeof e.attempt === 'number' && typeof e.delayMs === 'number'));
    assert.ok(entries.filter((e) => e.event === 'connect').length >= 2);
    const failures = (await ctx.metrics.registry.getMetricsAsJSON()).find((m) => m.name === 'toolhost_source_failures_total');
    assert.ok((failures?.values.find((v) => v.labels.source === 'mcp:crashy')?.value ?? 0) >= 1);
  } finally {
    await source.stop();
  }
});

test('HTTP server stopped and restarted on the same port: stale, tools kept, then fresh', async () => {
  const ctx = makeCtx();
  let fixture = await startHttpFixture();
  const source = createMcpSource(httpConfig('web', fixture.url), ctx);
  try {
    const counter = await startCounting(source);
    assert.equal(source.health().state, 'connected');
    const added = counter.next();
    await source.callTool('fixture_control', { action: 'add', name: 'before_restart' });
    await added;
    const firstRefresh = source.health().lastRefresh!;

    await fixture.kill();
    await waitFor(() => source.health().state === 'stale', 20_000, 'stale');
    assert.ok(toolNames(source).includes('before_restart'));

    const refreshed = counter.next();
    fixture = await startHttpFixture([], fixture.port);
    await refreshed;
    await waitFor(() => source.health().state === 'connected', 20_000, 'connected');
    assert.deepEqual(toolNames(source), BASE_TOOLS);
    assert.ok(Date.parse(source.health().lastRefresh!) > Date.parse(firstRefresh));
  } finally {
    await source.stop();
    await fixture.kill();
  }
});

test('stdio hang: tools/list times out, stale, recovers on reconnect', async () => {
  const ctx = makeCtx();
  const source = createMcpSource(stdioConfig('hangs', [], { pageTimeoutMs: 500 }), ctx);
  try {
    await source.start(() => {});
    const watch = watchStates(() => source.health().state);
    // The fixture stops answering tools/list, then announces a change.
    await source.callTool('fixture_control', { action: 'hang' });
    await waitFor(() => source.health().state === 'stale', 20_000, 'stale');
    assert.match(source.health().lastError ?? '', /tools\/list timed out after 500 ms/);
    assert.deepEqual(toolNames(source), BASE_TOOLS);
    await waitFor(() => source.health().state === 'connected', 20_000, 'connected again');
    watch.stop();
    assert.deepEqual(watch.seen, ['connected', 'stale', 'connected']);
  } finally {
    await source.stop();
  }
});

test('HTTP hang of the same server: stale while it hangs, connected when it answers again', async () => {
  const ctx = makeCtx();
  const fixture = await startHttpFixture();
  const source = createMcpSource(httpConfig('hangweb', fixture.url, { pageTimeoutMs: 250, pingIntervalMs: 0 }), ctx);
  try {
    await source.start(() => {});
    await source.callTool('fixture_control', { action: 'hang', ms: 1200 });
    await waitFor(() => source.health().state === 'stale', 20_000, 'stale');
    assert.equal(source.tools().length, BASE_TOOLS.length);
    await waitFor(() => source.health().state === 'connected', 20_000, 'connected again');
    assert.equal(source.tools().length, BASE_TOOLS.length);
  } finally {
    await source.stop();
    await fixture.kill();
  }
});

test('down at start: start() resolves without waiting, state failed, connects when the server appears', async () => {
  const ctx = makeCtx();
  const port = await freePort();
  const source = createMcpSource(httpConfig('late', `http://127.0.0.1:${port}/mcp`, { connectTimeoutMs: 2000 }), ctx);
  let fixture: Awaited<ReturnType<typeof startHttpFixture>> | undefined;
  try {
    // start() resolves although nothing listens yet (the server appears only afterwards).
    const counter = await startCounting(source);
    const h = source.health();
    assert.equal(h.state, 'failed');
    assert.equal(h.toolCount, 0);
    assert.ok(h.lastError && h.lastError.length < 320, h.lastError);
    assert.equal(h.lastRefresh, undefined);

    const loaded = counter.next();
    fixture = await startHttpFixture([], port);
    await loaded;
    assert.equal(source.health().state, 'connected');
    assert.deepEqual(toolNames(source), BASE_TOOLS);
  } finally {
    await source.stop();
    await fixture?.kill();
  }
});

test('a server that accepts but never answers: start() resolves by connectTimeoutMs', async () => {
  const sockets = new Set<net.Socket>();
  const blackhole = net.createServer((s) => {
    sockets.add(s);
    s.on('error', () => {});
  });
  await new Promise<void>((r) => blackhole.listen(0, '127.0.0.1', () => r()));
  const port = (blackhole.address() as net.AddressInfo).port;
  const ctx = makeCtx();
  const source = createMcpSource(httpConfig('hole', `http://127.0.0.1:${port}/mcp`, { connectTimeoutMs: 400 }), ctx);
  try {
    // start() resolves although the server never answers; the error names the configured 400 ms, not the 10 s default.
    await source.start(() => {});
    assert.equal(source.health().state, 'failed');
    assert.match(source.health().lastError ?? '', /connect timed out after 400 ms/);
  } finally {
    await source.stop();
    for (const s of sockets) s.destroy();
    blackhole.close();
  }
});

test('stdio command that does not exist, garbage tools/list, missing ${VAR}: failed, not a crash', async () => {
  const cases = [
    { cfg: stdioConfig('nocmd', [], { command: '/nonexistent/mcp-server' }), error: /connect: .*ENOENT/ },
    { cfg: stdioConfig('garbage', ['--garbage-list']), error: /malformed tools\/list result/ },
    { cfg: stdioConfig('noenv', [], { env: { TOKEN: '${TOOLHOST_TEST_UNSET_VAR}' } }), error: /environment variable TOOLHOST_TEST_UNSET_VAR is not set/ },
  ];
  const sources = cases.map((c) => ({ ...c, source: createMcpSource(c.cfg, makeCtx()) }));
  try {
    await Promise.all(sources.map((s) => s.source.start(() => {})));
    for (const s of sources) {
      const h = s.source.health();
      assert.equal(h.state, 'failed', s.cfg.id);
      assert.equal(h.toolCount, 0);
      assert.match(h.lastError ?? '', s.error);
    }
  } finally {
    await Promise.all(sources.map((s) => s.source.stop()));
  }
});

test('keepStaleTools false: the tools go when the server goes', async () => {
  const ctx = makeCtx();
  const source = createMcpSource(stdioConfig('nostale', [], { keepStaleTools: false, backoff: { initialMs: 5000, maxMs: 5000 } }), ctx);
  try {
    const counter = await startCounting(source);
    assert.equal(source.tools().length, BASE_TOOLS.length);
    const emptied = counter.next();
    await source.callTool('fixture_control', { action: 'crash' });
    await emptied;
    assert.equal(source.tools().length, 0);
    assert.equal(source.health().state, 'failed');
  } finally {
    await source.stop();
  }
});
