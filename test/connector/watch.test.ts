// Live document changes: an edit that adds an operation fires onChange and
// the tool appears; a broken document keeps the last good tools with health
// "stale"; fixing it makes the source fresh again. Editors that replace the
// file (write elsewhere, rename over) are seen too.
import assert from 'node:assert/strict';
import { copyFile, mkdtemp, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { parse, stringify } from 'yaml';
import { createConnectorSource } from '../../src/sources/connector/index.js';
import { DEMO_DOC, testContext, waitFor } from './helpers.js';

async function withDir(fn: (dir: string) => Promise<void>): Promise<void> {
  const dir = await mkdtemp(path.join(tmpdir(), 'connector-watch-'));
  try {
    await fn(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

function addOperation(text: string, p: string, operationId: string): string {
  const doc = parse(text);
  doc.paths[p] = { get: { operationId, summary: `Added ${operationId}`, responses: { '200': { description: 'ok' } } } };
  return stringify(doc);
}

async function metric(ctx: ReturnType<typeof testContext>, name: string, source: string): Promise<number | undefined> {
  const all = await ctx.metrics.registry.getMetricsAsJSON();
  return all.find((m) => m.name === name)?.values.find((v) => v.labels.source === source)?.value;
}

test('edit → onChange and new tool; break → stale with last good tools; fix → fresh', async () => {
  await withDir(async (dir) => {
    const file = path.join(dir, 'tickets.yaml');
    await copyFile(DEMO_DOC, file);
    const ctx = testContext({ configDir: dir });
    let changes = 0;
    const source = createConnectorSource({ id: 'live', document: 'tickets.yaml', debounceMs: 40 }, ctx);
    await source.start(() => changes++);
    assert.equal(source.documentPath, file, 'document resolved against configDir');
    assert.equal(source.health().state, 'connected');
    assert.equal(source.tools().length, 5);
    const firstRefresh = source.health().lastRefresh;
    assert.ok(firstRefresh);

    // 1. edit in place: a new operation
    const original = await readFile(file, 'utf8');
    const edited = addOperation(original, '/stats', 'getStats');
    await writeFile(file, edited);
    await waitFor(() => changes === 1, 5000, 'onChange after the edit');
    assert.ok(source.tools().some((t) => t.toolId === 'connector:live.getStats'));
    assert.ok(source.operation('connector:live.getStats'));
    assert.equal(source.tools().length, 6);
    assert.equal(source.health().state, 'connected');
    assert.equal(await metric(ctx, 'toolhost_source_tools', 'connector:live'), 6);

    // 2. break it: the last good tools stay, health is stale with a short error
    const good = source.tools();
    await writeFile(file, 'openapi: 3.0.3\npaths: [unclosed\n');
    await waitFor(() => source.health().state === 'stale', 5000, 'stale health');
    const h = source.health();
    assert.equal(h.toolCount, 6);
    assert.match(h.lastError ?? '', /^tickets\.yaml: not valid YAML: /);
    assert.ok((h.lastError ?? '').length <= 300 && !(h.lastError ?? '').includes('\n'));
    assert.equal(h.lastRefresh !== undefined, true);
    assert.deepEqual(source.tools(), good);
    assert.equal(changes, 1, 'a failed read is no change');
    assert.equal(await metric(ctx, 'toolhost_source_failures_total', 'connector:live'), 1);
    assert.ok(ctx.lines.some((l) => l.includes('"level":50') && l.includes('not valid YAML')), 'the failure is logged at error level');

    // 3. fix it with the same content: fresh again, no change to report
    await writeFile(file, edited);
    await waitFor(() => source.health().state === 'connected', 5000, 'fresh health');
    assert.equal(source.health().lastError, undefined);
    assert.equal(changes, 1);

    // 4. an editor that writes a new file and renames it over the old one
    const tmp = path.join(dir, '.tickets.yaml.swp');
    await writeFile(tmp, addOperation(edited, '/health', 'getHealth'));
    await rename(tmp, file);
    await waitFor(() => changes === 2, 5000, 'onChange after rename-over');
    assert.ok(source.tools().some((t) => t.toolId === 'connector:live.getHealth'));

    // 5. deleted: stale; recreated: back
    await rm(file);
    await waitFor(() => source.health().state === 'stale', 5000, 'stale after delete');
    assert.match(source.health().lastError ?? '', /cannot read the document \(ENOENT\)/);
    assert.equal(source.tools().length, 7);
    await writeFile(file, original);
    await waitFor(() => changes === 3 && source.health().state === 'connected', 5000, 'back after recreate');
    assert.equal(source.tools().length, 5);

    // 6. after stop, changes are not seen
    await source.stop();
    await writeFile(file, edited);
    await new Promise((r) => setTimeout(r, 200));
    assert.equal(changes, 3);
    assert.equal(source.tools().length, 5);
  });
});

test('a document that cannot be read at start: start resolves, state failed, error logged; fixing it loads the tools', async () => {
  await withDir(async (dir) => {
    const file = path.join(dir, 'api.yaml');
    await writeFile(file, 'swagger: "2.0"\ninfo: {title: t, version: "1"}\npaths: {}\n');
    const ctx = testContext({ configDir: dir });
    let changes = 0;
    const source = createConnectorSource({ id: 'late', document: 'api.yaml', debounceMs: 20 }, ctx);
    await source.start(() => changes++);
    const h = source.health();
    assert.equal(h.state, 'failed');
    assert.equal(h.toolCount, 0);
    assert.equal(h.lastRefresh, undefined);
    assert.match(h.lastError ?? '', /Swagger 2\.0 documents are not supported/);
    assert.ok(ctx.lines.some((l) => l.includes('"level":50') && l.includes('Swagger 2.0')));
    assert.deepEqual(source.tools(), []);

    await copyFile(DEMO_DOC, file);
    await waitFor(() => changes === 1, 5000, 'onChange once the document is fixed');
    assert.equal(source.health().state, 'connected');
    assert.equal(source.tools().length, 5);
    await source.stop();
  });
});

test('watch: false reads once; refresh() re-reads on demand', async () => {
  await withDir(async (dir) => {
    const file = path.join(dir, 'tickets.yaml');
    await copyFile(DEMO_DOC, file);
    const ctx = testContext({ configDir: dir });
    let changes = 0;
    const source = createConnectorSource({ id: 'still', document: 'tickets.yaml', watch: false, debounceMs: 10 }, ctx);
    await source.start(() => changes++);
    await writeFile(file, addOperation(await readFile(file, 'utf8'), '/x', 'x'));
    await new Promise((r) => setTimeout(r, 200));
    assert.equal(changes, 0);
    assert.equal(source.tools().length, 5);
    await source.refresh();
    assert.equal(changes, 1);
    assert.equal(source.tools().length, 6);
    await source.stop();
  });
});
