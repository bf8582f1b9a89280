// Storage faults of the event log over the real host: a deleted events
// directory (real rm), an immutable file (chattr +i; an injected
// SQLITE_READONLY where chattr is unavailable) and a full disk (an injected
// SQLITE_FULL at the better-sqlite3 boundary: no small file system can be
// mounted here). Each must show on /readyz (503), in the metrics and in the
// log, and the tool call must be refused with a clear error; a log that can
// be written again is ready again.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import Database from 'better-sqlite3';
import { hashApiKey } from '../../src/auth/api-keys.js';
import { connect } from '../front-door/front-door-helpers.js';
import { startTestServer, tempDir, writeConfig, type TestServer } from '../helpers/server.js';
import { ACME, ACME_KEY, request } from './helpers.js';

const TOOL = 'x-host-toolhost-server-time';

interface World {
  server: TestServer;
  dataDir: string;
  file: string;
}

async function startWorld(): Promise<World> {
  const dir = tempDir('toolhost-faults-');
  const config = writeConfig(
    {
      tenants: { acme: { tools: ['*'] } },
      principals: [{ id: ACME.principal, tenant: ACME.tenant, keyHash: hashApiKey(ACME_KEY) }],
      events: { file: 'data/events.sqlite' },
      sources: { hostExtensions: [{ vendor: 'toolhost', name: 'server-time', command: ['date', '-u'], inputSchema: { type: 'object', properties: {} } }] },
    },
    dir,
  );
  const server = await startTestServer(config);
  return { server, dataDir: join(dir, 'data'), file: join(dir, 'data', 'events.sqlite') };
}

const worlds: World[] = [];
after(async () => {
  for (const w of worlds) await w.server.close();
});

async function callTool(url: string): Promise<{ ok: true } | { ok: false; message: string; code: unknown }> {
  const client = await connect(url, ACME_KEY);
  try {
    const result = await client.callTool({ name: TOOL, arguments: {} });
    assert.notEqual(result.isError, true, 'the tool itself works');
    return { ok: true };
  } catch (err) {
    return { ok: false, message: (err as Error).message, code: (err as { code?: unknown }).code };
  } finally {
    await client.close();
  }
}

async function readyz(url: string): Promise<{ status: number; body: any }> {
  const res = await request(url, '/readyz');
  return { status: res.status, body: res.json() };
}

async function waitForReadyz(url: string, status: number, what: string): Promise<any> {
  let last: { status: number; body: any } | undefined;
  const deadline = Date.now() + 20_000; // guards against a hang only
  while (Date.now() < deadline) {
    last = await readyz(url);
    if (last.status === status) return last.body;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`/readyz never answered ${status} (${what}); last: ${JSON.stringify(last)}`);
}

async function metric(url: string, line: RegExp): Promise<number> {
  const text = (await request(url, '/metrics')).text;
  const m = new RegExp(`^${line.source} (\\S+)$`, 'm').exec(text);
  assert.ok(m, `metric ${line.source} present`);
  return Number(m[1]);
}

function logLines(server: TestServer): Array<Record<string, any>> {
  return server.logs.map((l) => JSON.parse(l));
}

/** Makes every write statement throw what a failing disk makes SQLite throw; returns the undo. */
function injectWriteFailure(code: string, message: string): () => void {
  const probe = new Database(':memory:');
  const proto = Object.getPrototypeOf(probe.prepare('SELECT 1')) as { run: (...args: unknown[]) => unknown; get: (...args: unknown[]) => unknown };
  probe.close();
  const { run, get } = proto;
  const failing = (original: (...args: unknown[]) => unknown) =>
    function (this: { readonly: boolean }, ...args: unknown[]) {
      if (!this.readonly) throw new Database.SqliteError(message, code);
      return original.apply(this, args);
    };
  proto.run = failing(run);
  proto.get = failing(get);
  return () => {
    proto.run = run;
    proto.get = get;
  };
}

function chattrWorks(): boolean {
  const file = join(tempDir('toolhost-chattr-'), 'probe');
  writeFileSync(file, '');
  try {
    execFileSync('chattr', ['+i', file], { stdio: 'ignore' });
    execFileSync('chattr', ['-i', file], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

test('the events directory deleted mid-run: not ready, calls refused, nothing written into the deleted file', async () => {
  const world = await startWorld();
  worlds.push(world);
  const { server } = world;
  assert.deepEqual(await callTool(server.url), { ok: true });
  const before = await readyz(server.url);
  assert.equal(before.status, 200);
  assert.equal(before.body.events.writable, true);
  assert.match(before.body.events.logId, /^[0-9a-f-]{36}$/);
  assert.equal(await metric(server.url, /toolhost_event_log_writable/), 1);

  rmSync(world.dataDir, { recursive: true, force: true });

  const body = await waitForReadyz(server.url, 503, 'after rm');
  assert.equal(body.status, 'unavailable');
  assert.equal(body.events.writable, false);
  assert.equal(body.events.reason, 'file_lost');
  assert.equal(body.events.logId, before.body.events.logId);
  assert.equal(await metric(server.url, /toolhost_event_log_writable/), 0);

  const refused = await callTool(server.url);
  assert.equal(refused.ok, false);
  assert.match((refused as { message: string }).message, /event log cannot be written \(file deleted or replaced: the database file was deleted while the log had it open; restart the host/);
  // Found by the periodic check, so the call is refused before the MCP layer: 503 toolhost.unavailable, no append tried.
  assert.equal((refused as { code: unknown }).code, 503);
  assert.match((refused as { message: string }).message, /"error":"toolhost\.unavailable"/);
  assert.ok(
    logLines(server).some((l) => l.level === 50 && l.reason === 'file_lost' && /event log cannot be written; tool calls are refused/.test(l.msg)),
    'the fault is logged',
  );
  assert.equal((refused as { message: string }).message.includes(world.dataDir), false, 'the refusal names no host path');
  assert.equal(existsSync(world.dataDir), false, 'no new, empty log was made in its place');
  assert.equal((await request(server.url, '/health/sources')).status, 200, '/health/sources reports, it does not gate');
});

test('an immutable log file: calls refused and reported while it lasts, accepted again after', async (t) => {
  const world = await startWorld();
  worlds.push(world);
  const { server, file, dataDir } = world;
  assert.deepEqual(await callTool(server.url), { ok: true });
  // Not the -shm file: SQLite maps it, and a store into an immutable mapping is a SIGBUS.
  const targets = [file, `${file}-wal`, dataDir];
  const viaChattr = chattrWorks();
  t.diagnostic(viaChattr ? 'made immutable with chattr +i' : 'chattr unavailable here: SQLITE_READONLY injected');
  const undo = viaChattr
    ? (() => {
        execFileSync('chattr', ['+i', ...targets]);
        return () => execFileSync('chattr', ['-i', ...targets]);
      })()
    : injectWriteFailure('SQLITE_READONLY', 'attempt to write a readonly database');
  let undone = false;
  try {
    const refused = await callTool(server.url);
    assert.equal(refused.ok, false);
    assert.match((refused as { message: string }).message, /event log cannot be written \((I\/O error|read-only): /);
    const { status, body } = await readyz(server.url);
    assert.equal(status, 503);
    assert.equal(body.status, 'unavailable');
    const reason = body.events.reason as string;
    assert.ok(reason === 'io_error' || reason === 'read_only', reason);
    assert.ok((await metric(server.url, new RegExp(`toolhost_event_log_append_failures_total\\{reason="${reason}"\\}`))) >= 1);
    assert.equal(await metric(server.url, /toolhost_event_log_writable/), 0);
    assert.ok(logLines(server).some((l) => l.level === 50 && l.reason === reason && /event append refused/.test(l.msg)));
    undo();
    undone = true;
    await waitForReadyz(server.url, 200, 'after the file is writable again');
    assert.deepEqual(await callTool(server.url), { ok: true });
    assert.equal(await metric(server.url, /toolhost_event_log_writable/), 1);
  } finally {
    if (!undone) undo();
  }
});

test('a full disk (injected SQLITE_FULL): refused with a clear error, no sequence lost, ready again when space returns', async () => {
  const world = await startWorld();
  worlds.push(world);
  const { server } = world;
  assert.deepEqual(await callTool(server.url), { ok: true });
  const undo = injectWriteFailure('SQLITE_FULL', 'database or disk is full');
  let undone = false;
  try {
    for (let i = 0; i < 3; i++) {
      const refused = await callTool(server.url);
      assert.equal(refused.ok, false);
      if (i === 0) assert.equal((refused as { code: unknown }).code, -32603, 'the call that finds the fault: a JSON-RPC internal error, the host, not the request, is at fault');
      else assert.equal((refused as { code: unknown }).code, 503, 'later calls while the log cannot be written: refused before the MCP layer, 503 toolhost.unavailable');
      assert.match((refused as { message: string }).message, /event log cannot be written \(disk full: database or disk is full\); tool calls are refused/);
      if (i > 0) assert.match((refused as { message: string }).message, /"error":"toolhost\.unavailable"/);
    }
    const res = await readyz(server.url);
    assert.equal(res.status, 503);
    assert.equal(res.body.events.reason, 'disk_full');
    assert.equal(res.body.events.failedAppends, 1, 'only the first call reached the log');
    assert.equal(await metric(server.url, /toolhost_event_log_append_failures_total\{reason="disk_full"\}/), 1);
    assert.ok(logLines(server).some((l) => l.level === 50 && l.reason === 'disk_full' && l.code === 'SQLITE_FULL'));
    undo();
    undone = true;
    await waitForReadyz(server.url, 200, 'after space returns');
    assert.deepEqual(await callTool(server.url), { ok: true });
    const events = (await request(server.url, '/events', { token: ACME_KEY })).json().events as Array<{ sequence: number }>;
    assert.deepEqual(events.map((e) => e.sequence), [0, 1, 2, 3, 4, 5, 6, 7], 'refused appends took no sequence');
  } finally {
    if (!undone) undo();
  }
});
